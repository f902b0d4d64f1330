"""The time zone frame: zone names in a clause as said, and the user's zone (or a zone
the clause denies: `not:`)."""

from __future__ import annotations

import re

from .. import gazetteer
from .lexicon import ANYMORE, CLOCK_BEFORE, FROM_TO, NEGATED_BEFORE, NOT_BEFORE, Draft, cut

IC = re.IGNORECASE

_ZONE_PHRASE = re.compile(r"\b((?:[A-Za-z]+[\s/]){0,3}?[A-Za-z]+)\s+(?:standard\s+|daylight\s+|summer\s+)?time(?:\s*zone)?\b", IC)
_ZONE_ABBR = re.compile(r"(?<![\w&-])([A-Z]{2,5})(?![\w&-])")  # not "AT" of "AT&T"
_ZONE_LOWER = re.compile(r"^(?:i'm|i’m|im|i am) (?:now |currently |usually )?(?:in|on|at) (?:the )?([a-z]{2,4})"
                         r"(?: time(?: ?zone)?)?(?: (?:now|these days|nowadays|currently|at the moment|for now))?[.!]*$", IC)
"""A zone said in lower case, alone in the clause ("i'm on est now"): only then, "est" being a word too."""
_OFFSET = re.compile(r"\b(?:utc|gmt)\s*[+\-−]\s*\d{1,2}(?::?\d\d)?\b", IC)
_ZONE_KEYWORD = re.compile(r"\b(?:time ?zone|tz)\b(?:\s+(?:is|=|:|to|will be|should be|is now|has changed to|changed to))?"
                           r"\s+(?P<v>.+)$", IC)
_NOT_ZONE_WORDS = {"full", "part", "free", "some", "this", "that", "last", "next", "first", "same", "long", "short",
                   "dinner", "lunch", "bed", "quality", "screen", "real", "good", "hard", "my", "on", "in", "any", "no", "the"}


def zone_mentions(clause: str) -> list[str]:
    """Zone names in a clause as said: 'UTC-5', 'PST', 'Pacific Standard Time', 'Berlin time'.

    A zone right after a clock time ('3pm EST') describes that time, not the user."""
    text = FROM_TO.sub("", clause)
    found: list[tuple[int, str]] = []
    m = _ZONE_KEYWORD.search(text)
    if m and gazetteer.find_zone(cut(m.group("v")), cities=True):
        return [cut(m.group("v"))]
    for m in _OFFSET.finditer(text):
        found.append((m.start(), m.group(0)))
    for m in _ZONE_PHRASE.finditer(text):
        words = m.group(1).split()
        for i in range(len(words)):
            phrase = " ".join(words[i:])
            if words[i].lower() in _NOT_ZONE_WORDS:
                continue
            if gazetteer.find_zone(phrase + " time"):
                skipped = len(" ".join(words[:i]))
                found.append((m.start(1) + skipped + (1 if i else 0), m.group(0)[skipped:].strip()))
                break
    for m in _ZONE_ABBR.finditer(text):
        if gazetteer.find_zone(m.group(1)) and not any(m.start() >= s and m.start() < s + len(v) for s, v in found):
            found.append((m.start(), m.group(1)))
    lower = _ZONE_LOWER.match(text.strip())
    if not found and lower and gazetteer.find_zone(lower.group(1)):
        found.append((0, lower.group(1).upper()))
    return [v for s, v in sorted(found) if not CLOCK_BEFORE.search(text[:s])]


def zone_frame(n: str) -> list[Draft]:
    found = zone_mentions(n)
    if not found:
        return []
    # "from PST to EST" is cut above; a last mention is the newest, unless set aside ("PST, not EST")
    value = ([v for v in found if not NOT_BEFORE.search(n[:n.rfind(v)])] or found)[-1]
    if NEGATED_BEFORE.search(n[:n.rfind(value)]) or (re.search(r"\b(?:no longer|not)\b.*\b(?:on|in)\b", n, IC)
                                                     and ANYMORE.search(n)):
        value = f"not:{value}"
    return [Draft("user.timezone", value)]
