"""The user and their partner said together: "My wife and I are separating", "We got engaged",
"I'm engaged to Sarah", "I'm married to Sarah Jones" (spouse:Sarah Jones, the name as said). A
couple's subject ("my wife and I", "me and my husband") is the user's "we", one clause, not a
statement about the wife and one about "I are"."""

from __future__ import annotations

import re

from .frames_family import person_named
from .lexicon import Draft

IC = re.IGNORECASE
_PARTNER = r"(?:wife|husband|partner|spouse|fianc[eé]e?|boyfriend|girlfriend|other half|better half)"
COUPLE = re.compile(rf"^(?:(?:my|our) (?!late )(?:\w+ )?{_PARTNER} (?:and|&) i|me (?:and|&) my (?:\w+ )?{_PARTNER})\b(?!')", IC)
"""A sentence whose subject is the user and their partner: read as "we"."""

_TOGETHER = re.compile(
    r"^(?:(?:so|and|but|well|actually|then|later|eventually|finally|after that),?\s+)*(?:we|we're|we've)"
    r"(?:\s+(?:are|were|have|had|got|just|recently|finally|officially|now|both|been|also))*\s+(?P<v>separating|separated|divorced|married|engaged)\b"
    r"(?<!engaged(?=\s(?:in|with)\b))(?<!married(?=\sto\s(?:our|my|the|their|his|her|work)\b))"
    r"|\bi(?:'m| am)? (?:(?:now|currently|officially|just)\s+)?(?P<w>separating|separated|splitting up|split up) "
    r"(?:from|with) my (?:husband|wife|spouse|partner)\b", IC)
_NOT_NOW = re.compile(r"\b(?:were|had|once|used to|back then|got separated|late)\b", IC)
""""We were engaged once", "We got separated in the crowd", "My late husband and I": no status now."""
_TO = re.compile(r"\bi(?:'m| am| got| just got| recently got|'ve been|'ve just been| was just)?\s+(?:now |happily |recently |"
                 r"just |newly |officially )?(?P<v>engaged|married) to (?:(?:dr|mr|mrs|ms|miss|prof|professor)\.?\s+)?"
                 r"(?P<n>(?-i:[A-Z])[a-z]+(?:[ -](?!I\b)(?-i:[A-Z])(?:[\w\-]|'(?!s\b))*[a-z]){0,3})\b(?!'|\.\w)", IC)
"""A partner named ("I'm married to Sarah Jones", "to Dr. Sarah Jones": Sarah Jones); not one said as someone else's
("married to Sarah Jones' brother": whose name is not said)."""
_STATUS = {"separating": "separated", "split up": "separated", "splitting up": "separated"}
_RELATION = {"engaged": "fiance", "married": "spouse"}


def couple_frame(n: str) -> list[Draft]:
    """A marital status said of "we" ("we got engaged"), a separation ("I'm separating from my
    husband"), and a partner named with it ("I'm engaged to Sarah": fiance:Sarah)."""
    if re.search(r"\b(?:not|never|no longer|isn't|aren't|weren't|didn't)\b|n't\b", n, IC):
        return []
    out = []
    if (m := _TOGETHER.search(n)) and not _NOT_NOW.search(n[:m.end()] + n[m.end():m.end() + 12]):
        said = (m.group("v") or m.group("w")).lower()
        out.append(Draft("user.marital_status", _STATUS.get(said, said)))
    if (m := _TO.search(n)) and (name := person_named(m.group("n"), n[m.end():])):  # "I'm married to Sarah Jones": her full name
        out.append(Draft("user.family", f"{_RELATION[m.group('v').lower()]}:{name}"))
    return out
