"""Entity registry: known entity keys with a description, cardinality and aliases.

Extraction and disambiguation see only the entries relevant to one fact (a
similarity filter plus a cap), never the whole table.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .errors import InvalidPolicy
from .models import validate_entity
from .policy import CARDINALITIES, specificity


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
        if isinstance(self.examples, str) or not all(isinstance(x, str) and x.strip() for x in self.examples):
            raise InvalidPolicy("examples must be a sequence of non-empty strings", value=self.examples)
        validate_entity(self.key[:-2] if self.key.endswith(".*") else self.key)
        for alias in self.aliases:
            validate_entity(alias)
        if self.cardinality not in CARDINALITIES:
            raise InvalidPolicy(f"cardinality must be one of {list(CARDINALITIES)}", value=self.cardinality)


@dataclass
class EntityRegistry:
    """A set of entries; `relevant(vector, ...)` filters by similarity and caps."""

    entries: dict[str, RegistryEntry] = field(default_factory=dict)
    _vectors: np.ndarray | None = field(default=None, repr=False)
    _keys: list[str] = field(default_factory=list, repr=False)

    @classmethod
    def builtin(cls) -> EntityRegistry:
        from .builtin_entities import BUILTIN_ENTRIES

        return cls({e.key: e for e in BUILTIN_ENTRIES})

    def add(self, entry: RegistryEntry) -> None:
        self.entries[entry.key] = entry
        self._vectors = None

    def __contains__(self, key: str) -> bool:
        return self.lookup(key) is not None

    def __len__(self) -> int:
        return len(self.entries)

    def lookup(self, key: str) -> RegistryEntry | None:
        """The entry for `key`: exact, via an alias, or via a `prefix.*` entry (which, as
        everywhere patterns are used, also matches `prefix` itself)."""
        if key in self.entries:
            return self.entries[key]
        for entry in self.entries.values():
            if key in entry.aliases:
                return entry
        for entry in self.entries.values():
            if entry.key.endswith(".*") and specificity(entry.key, key) is not None:
                return entry
        return None

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
            self._vectors = embed(self.description_texts())
        scores = self._vectors @ np.asarray(vector, dtype=np.float32)
        order = np.argsort(-scores)[:k]
        return [self.entries[self._keys[i]] for i in order if scores[i] >= min_similarity]

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
