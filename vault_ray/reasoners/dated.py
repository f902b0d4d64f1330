"""Values a turn says with the year each came about: "I separated from my husband in 2019, we
divorced in 2021". Of the values of a one-valued entity said so, the one of the latest year is
how things are now; the earlier ones, whichever order they are said in, are dropped. A value
said without a year is left alone; one said after "then" ("..., then we divorced") is the later
(`then`, read with `later`'s "now")."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from datetime import date

from ..models import Fact
from .lexicon import number_word

_YEAR = re.compile(r"\b(?:in|since|by|as of|during|back in|in (?:early|late|mid-?)|(?:early|late|mid-?))\s+"
                   r"(?P<y>(?:19|20)\d\d)\b(?!\s*[-/]\s*\d)", re.IGNORECASE)


_AGO = re.compile(r"\b(?:(?P<n>a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d{1,2}) years? ago|"
                  r"(?P<last>last|this) year)\b", re.IGNORECASE)
"""A year said from now ("two years ago", "last year"): of two values a turn dates so, or by a year and so, the later
("I moved to Berlin two years ago but moved back to Ohio last year": Ohio)."""


_THEN = re.compile(r"^(?:and\s+|but\s+)?(?:then|later|eventually|finally|after that|afterwards|since then)\b,?\s*(?!again\b)",
                   re.IGNORECASE)


def then(clause: str) -> bool:
    """Whether a clause says what came after the one before it ("..., then we divorced"): its value is the later one."""
    return bool(_THEN.match(clause.strip()))


def year_of(clause: str, value: str = "") -> int | None:
    """The year a clause dates its statement by ("we divorced in 2021"); of a clause with two,
    the first said after `value` ("We divorced in 2021, after I separated in 2019": 2019 for
    separated). None for none, or two and no value placed before one."""
    said = [(m.start(), int(m.group("y"))) for m in _YEAR.finditer(clause)]
    this_year = date.today().year
    said += [(m.start(), this_year - (number_word(m.group("n")) or 0 if m.group("n") else m.group("last").lower() == "last"))
             for m in _AGO.finditer(clause)]
    said.sort()
    if len({y for _, y in said}) == 1:
        return said[0][1]
    at = clause.lower().find(value.lower()) if value else -1
    after = [y for start, y in said if at >= 0 and start > at]
    return after[0] if after else None


def note(years: dict[int, int], clause: str, facts: Sequence[Fact]) -> None:
    """Remember the year `clause` dates each of its `facts` by, if it says one."""
    for f in facts:
        if (year := year_of(clause, f.value or "")) is not None:
            years[id(f)] = year


def latest(facts: Sequence[Fact], years: Mapping[int, int], many: Collection[str]) -> list[Fact]:
    """`facts` without a dated value of a one-valued entity when another of its values is dated
    later (`years`: the year of each dated fact, by id)."""
    last: dict[str, int] = {}
    for f in facts:
        if id(f) in years and f.entity not in many and not (f.value or "").startswith("not:"):
            last[f.entity] = max(last.get(f.entity, 0), years[id(f)])
    return [f for f in facts if not (id(f) in years and f.entity in last and years[id(f)] < last[f.entity]
                                      and not (f.value or "").startswith("not:"))]
