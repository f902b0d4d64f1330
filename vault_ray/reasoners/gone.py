"""A death or loss said of a name alone ("Biscuit passed away this morning"): the turn does not say
whether Biscuit is a pet or a person, so the rules report it (`GONE`) and store nothing. When the
store already holds a pet of that name (`user.pets` = "dog:Biscuit"), the vault reads it as that
pet's end (`not:dog:Biscuit`, as "Our dog Biscuit died" says), retracting that pet only."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ..models import Fact
from ..values import split_stance
from .base import Extraction
from .clauses import third_person

NAMED_GONE = re.compile(r"^(?:(?:sad news|sadly|so|well|unfortunately|update|oh|and|but|today|yesterday|this morning|"
                        r"last night)[,:!.]?\s+)*(?!(?:it|he|she|they|this|that|everything|nothing|someone|everyone)\b)"
                        r"(?P<name>(?-i:[A-Z])[\w'-]+) (?:just |sadly |finally )?(?:died|passed away|passed|ran away|"
                        r"was put down|was put to sleep)\b", re.IGNORECASE)
GONE = "a death or loss of someone named, not said to be the user's pet: which pet (or person) is not said, nothing stored"


def known_pets(found: Extraction, on_record: Callable[[], Sequence[str]]) -> Extraction:
    """`found` with each named death (`GONE`) whose name is one pet's on record (`on_record()`, the
    current `user.pets` values, asked only when there is such a death) read as that pet's end."""
    gone = [(u, m) for u in found.unextracted if u.reason == GONE and (m := NAMED_GONE.match(u.text))]
    if not gone:
        return found
    pets: dict[str, set[str]] = {}
    for value in on_record():
        stance, item = split_stance(value)
        kind, sep, name = item.partition(":")
        if stance is None and sep and name.strip():
            pets.setdefault(name.strip().casefold(), set()).add(kind.strip())
    facts, kept = list(found.facts), []
    for u in found.unextracted:
        m = next((m for g, m in gone if g is u), None)
        kinds = pets.get(m.group("name").casefold(), set()) if m else set()
        if len(kinds) == 1:  # one pet of that name: its end ("dog" and "cat" both named Max: which is not said)
            facts.append(Fact("user.pets", third_person(u.text), value=f"not:{kinds.pop()}:{m.group('name')}"))
        else:
            kept.append(u)
    return Extraction(tuple(facts), tuple(kept))
