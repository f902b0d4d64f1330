"""Entity registry: known entity keys with a description, cardinality and aliases.

Extraction and disambiguation see only the entries relevant to one fact (a
similarity filter plus a cap), never the whole table.
"""

from __future__ import annotations

import copy as _copy
import threading
import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import InvalidInput, InvalidPolicy
from .models import validate_entity
from .policy import CARDINALITIES
from .texts import check_string

MAX_DESCRIPTION = 2000
"""Characters of an entry's description (it is embedded for extraction and sent with every registry read)."""
MAX_EXAMPLE = 500
"""Characters of one example statement (a sentence as a user would say it)."""
MAX_EXAMPLES = 100
"""Example statements of one entry."""
MAX_ALIASES = 100
"""Aliases of one entry."""


@dataclass(frozen=True)
class RegistryEntry:
    key: str
    description: str = ""
    cardinality: str = "one"
    aliases: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()
    """Prototype statements, as a user would say them ("I'm on Pacific time"): the rule
    reasoner classifies a sentence to the entry whose examples it is nearest to."""

    def __post_init__(self) -> None:
        for name in ("aliases", "examples"):  # a caller's list (or generator) kept as given would change with it
            if not isinstance(value := getattr(self, name), str | tuple) and isinstance(value, Iterable):
                object.__setattr__(self, name, tuple(value))
        if isinstance(self.examples, str) or not all(isinstance(x, str) and x.strip() for x in self.examples):
            raise InvalidPolicy("examples must be a sequence of non-empty strings", value=self.examples)
        validate_entity(self.key[:-2] if self.key.endswith(".*") else self.key)
        if isinstance(self.aliases, str):
            raise InvalidPolicy(f"aliases is a sequence of keys, got one string: write ({self.aliases!r},)",
                                value=self.aliases)
        for alias in self.aliases:
            validate_entity(alias)
        if self.cardinality not in CARDINALITIES:
            raise InvalidPolicy(f"cardinality must be one of {list(CARDINALITIES)}", value=self.cardinality)


def check_entry_size(entry: RegistryEntry) -> None:
    """InvalidPolicy naming the field for an entry too large to register: a description over
    MAX_DESCRIPTION characters, an example over MAX_EXAMPLE, more than MAX_EXAMPLES examples or
    MAX_ALIASES aliases (or text with no UTF-8 form). Checked when an entry is registered, not
    when a stored registry is read (an entry saved before the limits still opens)."""
    for what, text, limit in (("description", entry.description, MAX_DESCRIPTION),
                              *((f"example {i}", x, MAX_EXAMPLE) for i, x in enumerate(entry.examples))):
        if isinstance(text, str) and len(text) > limit:
            raise InvalidPolicy(f"registry entry {entry.key!r}: the {what} is {len(text)} characters; at most {limit}",
                                value=len(text))
    try:
        check_string(entry.description, "registry description", limit=MAX_DESCRIPTION, empty=True)
        for i, example in enumerate(entry.examples):
            check_string(example, f"registry example {i}", limit=MAX_EXAMPLE)
    except InvalidPolicy:
        raise
    except InvalidInput as exc:
        raise InvalidPolicy(f"{exc} (entry {entry.key!r})", value=entry.key) from None
    for name, items, limit in (("examples", entry.examples, MAX_EXAMPLES), ("aliases", entry.aliases, MAX_ALIASES)):
        if len(items) > limit:
            raise InvalidPolicy(f"registry entry {entry.key!r} has {len(items)} {name}; at most {limit}",
                                value=len(items))


# The builtin registry: the keys the rule reasoner writes, each with a few prototype
# statements. Extend it with your own `RegistryEntry(..., examples=...)`: the rule
# reasoner classifies a sentence that no pattern reads to the entry with the nearest
# examples (docs/design.md, "Extraction").
NOTES_ENTITY = "user.notes"

BUILTIN_ENTRIES: tuple[RegistryEntry, ...] = (
    RegistryEntry(
        "user.timezone", "the user's time zone, e.g. PST, CET, UTC+2", "one", ("user.time_zone", "user.tz"),
        ("My time zone is PST", "I'm on Eastern time", "I'm in the Pacific time zone", "Schedule my calls in CET",
         "I'm UTC+2", "Use Central European Time for my meetings", "I switched to Mountain time"),
    ),
    RegistryEntry(
        "user.location", "the city or country where the user lives", "one", ("user.city", "user.home"),
        ("I live in Berlin", "I moved to New York", "I'm based in London", "Home is Toronto these days",
         "I relocated to Madrid", "I just moved here to Chicago", "I'm living in Paris now"),
    ),
    RegistryEntry(
        "user.hometown", "where the user comes from or grew up", "one", ("user.origin",),
        ("I'm from Ohio", "I grew up in Lyon", "I was born in Mumbai", "My hometown is Austin"),
    ),
    RegistryEntry(
        "user.diet", "the user's diet: vegetarian, vegan, pescatarian, omnivore", "one", ("user.dietary",),
        ("I'm vegetarian", "I went vegan last year", "I don't eat meat", "I'm not vegetarian anymore",
         "I eat meat every day now", "I follow a keto diet", "I keep kosher"),
    ),
    RegistryEntry(
        "user.food_preferences", "foods and cuisines the user likes or dislikes", "many",
        ("user.food", "user.cuisine", "user.food_likes"),
        ("I love Italian food", "I hate cilantro", "Sushi is my favorite", "I can't stand spicy food",
         "I'm a big fan of Thai curry", "I don't like mushrooms anymore"),
    ),
    RegistryEntry(
        "user.likes", "things the user likes or dislikes (not food)", "many", ("user.interests", "user.hobbies"),
        ("I love jazz", "I enjoy hiking", "I hate horror movies", "I'm really into chess", "I can't stand reality TV"),
    ),
    RegistryEntry(
        "user.allergies", "things the user is allergic to", "many", ("user.allergy",),
        ("I'm allergic to peanuts", "I have a shellfish allergy", "Penicillin gives me a reaction",
         "I'm no longer allergic to cats"),
    ),
    RegistryEntry(
        "user.language", "languages the user speaks", "many", ("user.languages",),
        ("I speak French", "I'm fluent in German", "My native language is Spanish", "Portuguese is my first language"),
    ),
    RegistryEntry("user.name", "the user's name", "one", ("user.full_name",),
                  ("My name is Ana", "Call me Sam", "I'm called Jo")),
    RegistryEntry(
        "user.job", "the user's job, role or occupation", "one", ("user.occupation", "user.role"),
        ("I'm a software engineer", "I work as a nurse", "My job is teaching", "I was promoted to senior manager",
         "I'm no longer a teacher"),
    ),
    RegistryEntry(
        "user.employer", "the company the user works for", "one", ("user.company",),
        ("I work at Acme", "I just joined Microsoft", "I started at Google last week", "I left Amazon",
         "My employer is Siemens", "I'm working for a startup called Nimbus"),
    ),
    RegistryEntry(
        "user.schedule.*", "recurring events in the user's schedule, e.g. gym, meetings", "one", (),
        ("I go to the gym at 7am", "My standup is at 9:30", "I have yoga every Tuesday", "Piano lessons are on Fridays"),
    ),
    RegistryEntry(
        "user.pets", "the user's pets", "many", ("user.pet",),
        ("I have a dog", "I've got two cats", "We adopted a puppy", "My parrot is called Kiwi",
         "I don't have a cat anymore"),
    ),
    RegistryEntry(
        "user.family", "the user's family members: spouse, children, siblings, parents", "many",
        ("user.children", "user.kids"),
        ("I have two kids", "My wife is Sarah", "I have a daughter", "I have three brothers"),
    ),
    RegistryEntry(
        "user.marital_status", "whether the user is single, married, divorced", "one", ("user.relationship_status",),
        ("I'm married", "I got divorced", "I'm single", "I just got engaged"),
    ),
    RegistryEntry("user.birthday", "the user's birthday", "one", ("user.birth_date",),
                  ("My birthday is on May 4", "I was born on 3 March 1990")),
    # slots the patterns read that need no prototype statements: registered so that entity
    # resolution never folds them into a look-alike (an age is no birthday)
    RegistryEntry("user.age", "the user's age in years", "one", ()),
    RegistryEntry("user.school", "the school, college or university the user studies at (an employer is user.employer)",
                  "one", ("user.education", "user.university", "user.college")),
    RegistryEntry("user.email", "the user's email address", "one", ("user.email_address",)),
    RegistryEntry("user.phone", "the user's phone number", "one", ("user.phone_number",)),
    RegistryEntry(
        "user.payment.method", "how the user pays: card, PayPal, invoice", "one", ("user.payment_method",),
        ("I pay with my Visa card", "Charge it to my Amex", "My payment method is PayPal",
         "I switched to paying by bank transfer", "Use my Mastercard for purchases"),
    ),
    RegistryEntry(
        "user.budget", "how much the user can or wants to spend; a budget or spending limit", "one",
        ("user.spending_limit",),
        ("My budget is $5000", "I can spend up to 5,000 USD", "Keep it under two thousand euros",
         "My spending limit is $300", "I don't want to spend more than $800"),
    ),
    RegistryEntry(
        "user.consent.*", "what the user agreed to or withdrew consent for: marketing, data sharing", "one", (),
        ("I consent to marketing emails", "I withdraw my consent for data sharing",
         "Stop sending me promotional emails", "You may record my calls", "I opt out of the newsletter"),
    ),
    RegistryEntry(
        "user.contact_preference", "how the user wants to be contacted: email, phone, text", "one",
        ("user.contact_method", "user.contact_channel"),
        ("Contact me by email", "Please text me instead of calling", "Email is the best way to reach me",
         "I prefer phone calls", "Reach me on WhatsApp"),
    ),
    RegistryEntry(NOTES_ENTITY, "free-text notes about the user no rule could read (kept if the policy says so)",
                  "many", ()),
)


@dataclass
class EntityRegistry:
    """A set of entries; `relevant(vector, ...)` filters by similarity and caps."""

    entries: dict[str, RegistryEntry] = field(default_factory=dict)
    _vectors: np.ndarray | None = field(default=None, repr=False)
    _keys: list[str] = field(default_factory=list, repr=False)
    _found: dict[str, RegistryEntry | None] = field(default_factory=dict, repr=False, compare=False)
    _found_size: int = field(default=-1, repr=False, compare=False)
    _aliases: dict[str, RegistryEntry] = field(default_factory=dict, repr=False, compare=False)
    _patterns: dict[str, tuple[int, RegistryEntry]] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def builtin(cls) -> EntityRegistry:
        return cls({e.key: e for e in BUILTIN_ENTRIES})

    def copy(self) -> EntityRegistry:
        """A registry of the same kind (a subclass's own state kept) with a table of entries of its
        own: adding to either leaves the other as it was."""
        twin = _copy.copy(self)
        twin.entries = dict(self.entries)
        twin._found, twin._aliases, twin._patterns, twin._found_size = {}, {}, {}, -1
        return twin

    def add(self, entry: RegistryEntry) -> None:
        self.entries[entry.key] = entry
        self._vectors = None
        self._found_size = -1  # the lookups are worked out again

    def __contains__(self, key: str) -> bool:
        return self.lookup(key) is not None

    def __len__(self) -> int:
        return len(self.entries)

    def lookup(self, key: str) -> RegistryEntry | None:
        """The entry for `key`: exact, via an alias, or via a `prefix.*` entry (which, as
        everywhere patterns are used, also matches `prefix` itself)."""
        if key in self.entries:
            return self.entries[key]
        # the scan of aliases and patterns is remembered (a bulk write asks it per fact);
        # forgotten when an entry is added, or when the entries dict changes size under us
        if self._found_size != len(self.entries) or len(self._found) >= 65_536:
            self._found, self._found_size = {}, len(self.entries)
            self._aliases = {}
            for entry in reversed(self.entries.values()):  # the first entry naming an alias wins
                self._aliases.update(dict.fromkeys(entry.aliases, entry))
            # a pattern `root.*` by its root, with its place: the first in entry order wins
            self._patterns = {e.key[:-2]: (n, e) for n, e in enumerate(self.entries.values()) if e.key.endswith(".*")}
        if key not in self._found:
            self._found[key] = self._aliases.get(key) or self._pattern_for(key)
        return self._found[key]

    def _pattern_for(self, key: str) -> RegistryEntry | None:
        """The first `root.*` entry matching `key` (`key` is `root` or under it): one dict
        probe per dotted prefix of `key`, not a scan of every pattern."""
        patterns, best, end = self._patterns, None, key.find(".")
        if not patterns:
            return None
        while True:  # each dotted prefix, then the key itself
            found = patterns.get(key if end < 0 else key[:end])
            if found is not None and (best is None or found[0] < best[0]):
                best = found
            if end < 0:
                return best[1] if best is not None else None
            end = key.find(".", end + 1)

    def canonical(self, key: str) -> str:
        """Map an alias to its key (`user.tz` -> `user.timezone`); other keys unchanged."""
        entry = self.lookup(key)
        if entry is None or entry.key.endswith(".*"):
            return key
        return entry.key

    def cardinality(self, key: str) -> str | None:
        entry = self.lookup(key)
        return entry.cardinality if entry else None

    def relevant(self, vector: np.ndarray, embed, *, k: int = 8, min_similarity: float = 0.2) -> list[RegistryEntry]:  # type: ignore[no-untyped-def]
        """At most `k` entries whose description is similar to the fact's vector."""
        if not self.entries:
            return []
        if self._vectors is None or len(self._keys) != len(self.entries):
            self._keys = list(self.entries)
            self._vectors = _described(self.description_texts(), embed)
        scores = self._vectors @ np.asarray(vector, dtype=np.float32)
        order = np.argsort(-scores)[:k]
        return [self.entries[self._keys[i]] for i in order if scores[i] >= min_similarity]

    def relevant_many(self, vectors: np.ndarray, embed, *, k: int = 8,  # type: ignore[no-untyped-def]
                      min_similarity: float = 0.2) -> list[list[RegistryEntry]]:
        """`relevant` of each row of `vectors`, in one product (a bulk write asks it per new
        label). A subclass that answers per vector (evals/namespace.py) is asked per vector."""
        if type(self).relevant is not EntityRegistry.relevant or not self.entries or not len(vectors):
            return [self.relevant(v, embed, k=k, min_similarity=min_similarity) for v in vectors]
        self.relevant(vectors[0], embed)  # the descriptions' vectors, made once
        scores = np.asarray(vectors, dtype=np.float32) @ self._vectors.T
        order = np.argsort(-scores, axis=1)[:, :k]
        best = np.take_along_axis(scores, order, axis=1) >= min_similarity
        entries = [self.entries[key] for key in self._keys]
        return [[entries[i] for i, ok in zip(row, keep, strict=True) if ok] for row, keep in
                zip(order.tolist(), best.tolist(), strict=True)]

    def description_texts(self) -> list[str]:
        """What `relevant` embeds for each entry, in entry order ("user timezone: ... e.g. ...")."""
        return [f"{key.replace('.', ' ').replace('_', ' ')}: {entry.description}"
                + (". " + "; ".join(entry.examples).replace("[", "").replace("]", "") if entry.examples else "")
                for key, entry in self.entries.items()]

    def to_list(self) -> list[dict[str, object]]:
        return [
            {"key": e.key, "description": e.description, "cardinality": e.cardinality, "aliases": list(e.aliases),
             "examples": list(e.examples)}
            for e in self.entries.values()
        ]

    @classmethod
    def from_list(cls, rows: list[dict[str, object]]) -> EntityRegistry:
        reg = cls()
        for row in rows:
            reg.add(
                RegistryEntry(
                    str(row["key"]),
                    str(row.get("description", "")),
                    str(row.get("cardinality", "one")),
                    tuple(row.get("aliases", ())),  # type: ignore[arg-type]
                    tuple(row.get("examples", ())),  # type: ignore[arg-type]
                )
            )
        return reg


_DESCRIBED: weakref.WeakKeyDictionary[Any, dict[tuple[str, ...], np.ndarray]] = weakref.WeakKeyDictionary()
_DESCRIBED_LOCK = threading.Lock()


def _described(texts: list[str], embed) -> np.ndarray:  # type: ignore[no-untyped-def]
    """`embed(texts)` of the descriptions, remembered per vector space in this process when the
    embedder names one (`vector_space`: the local model, loaded once per process), so a store
    opened after another with the same registry embeds none of them again."""
    space = getattr(getattr(embed, "__self__", None), "vector_space", None)
    if space is None:
        return embed(texts)
    key = tuple(texts)
    with _DESCRIBED_LOCK:
        known = _DESCRIBED.get(space, {}).get(key)
    if known is None:
        known = np.asarray(embed(texts), dtype=np.float32)
        known.flags.writeable = False
        with _DESCRIBED_LOCK:
            remembered = _DESCRIBED.setdefault(space, {})
            if len(remembered) >= 32:  # registries edited over and over: forget the oldest
                remembered.pop(next(iter(remembered)))
            remembered[key] = known
    return known
