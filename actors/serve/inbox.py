"""What the inbox page shows: the open disputes, those waiting for a person first,
each with every competing value and its provenance (agent, authority weight,
session, when it was said, what was said) and the chain of decisions behind it.

Built from a handful of reads per dispute (the entity's history, its change log, the
disputes named there) and rendered by Jinja2 with autoescaping on: agents write the
text, so every value is escaped, and the page's Content-Security-Policy allows only
its own script and style besides.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import jinja2

from vault_ray.engine.explain import build, retracted_from
from vault_ray.models import MAX_NOTE, Claim, Dispute, Status
from vault_ray.reasoners.rules import kept_denial, normalized_value
from vault_ray.roles import clashing_holders
from vault_ray.vault import Vault

HERE = Path(__file__).parent
STATIC = HERE / "static"
MAX_CARDS = 50
COOKIE = "vault_inbox"
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
                               "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
TEMPLATES = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True,
                               undefined=jinja2.StrictUndefined)


@dataclass(frozen=True)
class Value:
    """One competing value of a dispute, as the person sees it."""

    claim: Claim
    role: str
    """"current" (an incumbent), "challenger" or "supporter"."""
    weight: float
    chain: str
    """The explain chain, as text."""


@dataclass(frozen=True)
class Option:
    """One choice of a dispute: a value, with every live claim of the dispute that says it."""

    backers: tuple[Value, ...]

    @property
    def claim(self) -> Claim:
        """The claim a choice of this value names (the first backer: the current one, if any)."""
        return self.backers[0].claim

    @property
    def role(self) -> str:
        return self.backers[0].role


@dataclass(frozen=True)
class Card:
    dispute: Dispute
    values: tuple[Option, ...]
    """One option per value (several agents saying the same value are one choice)."""
    many: bool
    """A 'many' entity: keeping both values is a choice."""
    retracted: tuple[tuple[Claim, str], ...] = ()
    """Claims a person retracted from the other side of the dispute (the incumbents), and who:
    the card says so, and the person may retract the value left too."""


def csrf_token(token: str) -> str:
    """Bound to the signed-in token: a form from another site cannot carry it."""
    return hmac.new(token.encode(), b"vault-ray inbox form", hashlib.sha256).hexdigest()[:32]


def open_disputes(vault: Vault) -> list[Dispute]:
    """Open disputes, those waiting for a person first, then the oldest first."""
    return sorted(vault.disputes("open"), key=lambda d: (not d.needs_user, d.opened_at))


def card(vault: Vault, dispute: Dispute) -> Card:
    policy, registry = vault.policy, vault.registry
    claims = {c.id: c for c in vault.history(dispute.entity)}
    log = vault.events(entity=dispute.entity)
    named = sorted({e.dispute_id for e in log if e.dispute_id})
    disputes = [dispute if i == dispute.id else vault.dispute(i) for i in named]
    roles = [(i, "current") for i in dispute.incumbents] + [(dispute.challenger, "challenger")]
    roles += [(i, "supporter") for i in dispute.supporters]
    options: dict[str, list[Value]] = {}
    for i, role in dict.fromkeys(roles):
        c = claims.get(i)
        if c is None or c.status == Status.SUPERSEDED:  # a claim the store no longer holds is no choice
            continue
        value = Value(c, role, policy.weight(c.agent, dispute.entity), build(c, log, disputes).text())
        options.setdefault(normalized_value(c), []).append(value)
    many = policy.cardinality_for(dispute.entity, registry.cardinality(dispute.entity)) == "many"
    held = [v.claim for vs in options.values() for v in vs]
    if many and (clashing_holders(c.value or c.text for c in held) or kept_denial(held)):
        many = False  # two holders of one single-valued role (wife:Anna / wife:Sarah), or a value and its
        # denial (peanuts / not:peanuts): keeping both is no choice
    backers = {dispute.challenger, *dispute.supporters}
    gone = tuple((claims[cid], by) for cid, by in retracted_from(log, dispute.id)
                 if cid in claims and cid not in backers and cid not in dispute.incumbents
                 and normalized_value(claims[cid]) not in options)
    return Card(dispute, tuple(Option(tuple(v)) for v in options.values()), many, gone)


def cards(vault: Vault) -> tuple[list[Card], int]:
    """The cards of the first MAX_CARDS open disputes, and how many are open."""
    found = open_disputes(vault)
    return [card(vault, d) for d in found[:MAX_CARDS]], len(found)


def when(at: datetime) -> str:
    return at.strftime("%Y-%m-%d %H:%M UTC")


TEMPLATES.filters["when"] = when
TEMPLATES.globals["max_note"] = MAX_NOTE  # the note limit of the API (POST /v1/disputes/{id}/resolve)


def render(name: str, **context: Any) -> str:
    return TEMPLATES.get_template(name).render(**context)
