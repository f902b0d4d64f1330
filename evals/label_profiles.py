"""What normalization knows about each entity label of a store: its profile.

A profile gathers, from every claim on the label (any status): how many claims and
live ones, which agents, the statements with their value masked out ("The user
lives in Paris" -> "the user lives in ___"), the values themselves, and a sample
claim. Masking uses the claim's `value` where the text contains it, otherwise
numbers and capitalized words after the first word (a best effort for free text).

Pure Python over an Arrow table of claims: no Ray, no model.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from vault_ray import EntityRegistry, Policy

MASK = "___"
EXAMPLES = 3
CAP = 24
"""Distinct statements and values kept per label (the most frequent)."""
_VALUE_LIKE = re.compile(r"(?<!^)\b(?:\d[\w:./-]*|[A-Z][\w'’-]*)(?:\s+(?:\d[\w:./-]*|[A-Z][\w'’-]*))*")
_SPACE = re.compile(r"\s+")
CLAIM_COLUMNS = ["id", "entity", "text", "value", "kind", "agent", "session", "status", "observed_at", "recorded_at",
                 "confidence"]


def mask_value(text: str, value: str | None) -> tuple[str, str | None]:
    """(the statement with its value masked, the value as the text writes it)."""
    shown = (value or "").split(":", 1)[1] if value and value.split(":", 1)[0] in ("likes", "dislikes") else value
    if shown:
        at = text.lower().find(shown.strip().lower())
        if at >= 0:
            end = at + len(shown.strip())
            return _normal(text[:at] + MASK + text[end:]), text[at:end]
    found = list(_VALUE_LIKE.finditer(text))
    if not found:
        return _normal(text), shown or None
    start, end = found[0].start(), found[-1].end()  # "9 to 5": one value, masked whole
    return _normal(text[:start] + MASK + text[end:]), shown or text[start:end]


def _normal(statement: str) -> str:
    return _SPACE.sub(" ", statement.strip().rstrip(".!").lower())


def phrase(label: str) -> str:
    """What a label says in words, without its subject: 'user.home_town' -> 'home town'."""
    rest = label.split(".", 1)[1] if "." in label else label
    return rest.replace(".", " ").replace("_", " ")


@dataclass
class LabelProfile:
    label: str
    claims: int = 0
    live: int = 0
    agents: set[str] = field(default_factory=set)
    statements: Counter[str] = field(default_factory=Counter)
    values: Counter[str] = field(default_factory=Counter)
    sample: dict[str, Any] = field(default_factory=dict)
    """One claim's row (the newest live one, else the newest)."""
    examples: dict[str, str | None] = field(default_factory=dict)
    """A few distinct texts as written, with their value (for the reasoner)."""
    active: list[dict[str, Any]] = field(default_factory=list)
    """The rows of its active claims (what a merge puts through conflict detection)."""
    cardinality: str = "one"
    registered: str = ""
    """'key' (an exact registry entry), 'alias' (of another key), 'family' (under a `prefix.*` entry) or ''."""
    canonical: str = ""
    """The registry key this label is an alias of ('' unless registered == 'alias')."""
    high_stakes: bool = False
    """The policy's `high_stakes` names it: its conflicts wait for a person (a merge keeps that)."""

    @property
    def subject(self) -> str:
        return self.label.split(".", 1)[0]

    @property
    def phrase(self) -> str:
        return phrase(self.label)

    def top_statements(self) -> list[str]:
        return [s for s, _ in self.statements.most_common(CAP)]

    def top_values(self) -> list[str]:
        return [v for v, _ in self.values.most_common(CAP)]


def build_profiles(claims: pa.Table, policy: Policy, registry: EntityRegistry) -> dict[str, LabelProfile]:
    """One profile per entity label of `claims` (CLAIM_COLUMNS, any order of rows)."""
    profiles: dict[str, LabelProfile] = {}
    for row in claims.select(CLAIM_COLUMNS).to_pylist():
        p = profiles.get(row["entity"])
        if p is None:
            p = profiles[row["entity"]] = LabelProfile(row["entity"])
        p.claims += 1
        p.agents.add(row["agent"])
        live = row["status"] in ("active", "disputed")
        p.live += live
        statement, value = mask_value(row["text"], row["value"])
        p.statements[statement] += 1
        if value:
            p.values[value.strip()] += 1
        if len(p.examples) < EXAMPLES and row["text"] not in p.examples:
            p.examples[row["text"]] = row["value"]
        if row["status"] == "active":
            p.active.append(row)
        if not p.sample or (live, row["observed_at"]) >= (p.sample["status"] in ("active", "disputed"), p.sample["observed_at"]):
            p.sample = row
    for p in profiles.values():
        p.cardinality = policy.cardinality_for(p.label, registry.cardinality(p.label))
        p.registered, p.canonical = registration(p.label, registry)
        p.high_stakes = policy.is_high_stakes(p.label)
    return profiles


def registration(label: str, registry: EntityRegistry) -> tuple[str, str]:
    entry = registry.lookup(label)
    if entry is None:
        return "", ""
    if entry.key == label:
        return "key", ""
    if label in entry.aliases:
        return "alias", entry.key
    return "family", ""
