"""A one-valued fact the turn says twice, the later said as how things are now: "I started a
new job at Apple. Now I work at Google", "I live in Austin, no wait, I live in Dallas". The
later value is the user's; the earlier one, said before it in the same turn, is dropped."""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from ..models import Fact

_NOW = re.compile(
    r"^(?:(?:but|and|so|well|oh|ok|okay|though)\b,?\s+)*(?:right now|now|nowadays|these days|currently|at the moment|"
    r"as of (?:now|today)|wait,?\s+no|no,?\s+wait|sorry|oops|whoops|actually|i mean|correction|scratch that)\b"
    r"|\b(?:i|i'm|we|we're|i am|we are)\s+(?:now|currently)\b|\b(?:now|currently|these days|nowadays)\s*[.!]*$",
    re.IGNORECASE)


_CUE = re.compile(r"\b(?:wait,?\s+no|no,?\s+wait|sorry|oops|whoops|scratch that|correction|i mean|actually)\W*$", re.IGNORECASE)


_MORE = re.compile(r"\b(?:also|as well|too|in addition|besides|staying|visiting|traveling|travelling|"
                   r"on (?:a )?(?:trip|vacation|holiday|business))\b", re.IGNORECASE)
"""An addition or a stay, not a replacement: "Now I'm also a coach", "I'm currently staying in Denver"."""


def says_now(clause: str, before: str = "") -> bool:
    """Whether a clause says its statement as how things are now, after something said before it
    (`before`: the words of its sentence before it, "I live in Austin, no wait, ..."); a value
    said as an addition or a stay ("Now I'm also a coach") replaces none."""
    return not _MORE.search(clause) and bool(_NOW.search(clause.strip()) or _CUE.search(before))


def later_wins(facts: Sequence[Fact], now: Collection[int], many: Collection[str]) -> list[Fact]:
    """`facts` without the values of a one-valued entity said before a value said as now (`now`:
    the ids of the facts said so)."""
    dropped: set[int] = set()
    for i, f in enumerate(facts):
        if id(f) not in now or f.entity in many or (f.value or "").startswith("not:"):
            continue
        dropped |= {j for j, e in enumerate(facts[:i]) if e.entity == f.entity and e.value != f.value
                    and not (e.value or "").startswith("not:")}
    return [f for j, f in enumerate(facts) if j not in dropped]
