"""The slot pattern for the user's birthday (kept apart from `frames`, which is full)."""

from __future__ import annotations

import re

from .lexicon import Draft, cut

IC = re.IGNORECASE
_BIRTHDAY = re.compile(r"\b(?:my birthday is|my birthday's|i was born on)\s+(?:on\s+)?(?P<v>.+)$"
                       r"|\bi was born\s+(?P<w>(?:(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?|\d).+)$", IC)


def birthday_frame(n: str) -> list[Draft]:
    """"My birthday is March 5th", "I was born on 5 March 1990", "born July 4 1990 in Cleveland"."""
    m = _BIRTHDAY.search(n)
    said = cut(re.split(r"\s+(?:in|at|near)\s+[A-Z]", m.group("v") or m.group("w"), maxsplit=1)[0]) if m else ""
    return [Draft("user.birthday", said)] if said else []
