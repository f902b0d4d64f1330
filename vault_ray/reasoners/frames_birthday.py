"""The slot pattern for the user's birthday (kept apart from `frames`, which is full).

A birthday is a date of the year. Said relative to the day it is said ("My birthday is tomorrow",
"next Friday", "in two weeks", "on Saturday") it names no date a claim can keep: the words would read
"tomorrow" forever after, so `relative` tells it and the clause is reported (`asides.RELATIVE_DAY`),
never stored as the words. A date said after such words is the value ("next Friday, March 13" ->
March 13). A filler before the value ("actually March 13", "um, June 5") is no part of it.
"""

from __future__ import annotations

import re

from .lexicon import Draft, cut

IC = re.IGNORECASE
_BIRTHDAY = re.compile(r"\b(?:my (?:birthday|bday|b-day)(?: is|'s|\s*:| falls on)|i was born on)\s+(?P<v>.+)$"
                       r"|\bi was born\s+(?P<w>(?:(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?|\d).+)$", IC)
_FILLER = re.compile(r"^(?:(?:actually|really|truly|um+|uh+|er+|erm|well|like|in fact|technically|honestly|on)\b[\s,]*)+", IC)
"""Words before the value that are no part of it: "my birthday is actually March 13", "is, um, on June 5"."""
_DAY = r"(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?"
_COUNT = r"(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a few|a couple(?: of)?|couple of|\d+)"
_RELATIVE = re.compile(
    rf"^(?:(?:this|next|last|coming|this coming|the coming|upcoming)\s+)?(?:{_DAY}|week|weekend|month|year)\b"
    rf"|^(?:today|tonight|tomorrow|tmrw|tmr|yesterday|(?:the\s+)?day\s+(?:after\s+tomorrow|before\s+yesterday)|soon|"
    rf"in\s+{_COUNT}\s+(?:days?|weeks?|months?)|{_COUNT}\s+(?:days?|weeks?|months?)\s+(?:from\s+(?:now|today)|away|ago))\b", IC)
_DATE = re.compile(r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|\b\d{1,4}[/.-]\d{1,2}\b", IC)
"""A date of the year after relative words ("next Friday, March 13", "Friday 3/13"); "Friday the 13th" names no month."""


def _said(n: str) -> str | None:
    """What follows "my birthday is" / "I was born on", without the filler before it and the place after it."""
    m = _BIRTHDAY.search(n)
    if m is None:
        return None
    said = _FILLER.sub("", (m.group("v") or m.group("w")).strip())
    return re.split(r"\s+(?:in|at|near)\s+[A-Z]", said, maxsplit=1)[0]


def _relative_part(said: str) -> re.Match[str] | None:
    return _RELATIVE.match(said.strip(" ,.;:!?\"'"))


def relative(n: str) -> bool:
    """Whether the clause says the user's birthday only relative to the day it is said ("My birthday is
    tomorrow", "next Friday", "in 3 days", "on Saturday"): no date to keep."""
    said = _said(n)
    found = _relative_part(said) if said else None
    return bool(found) and not _DATE.search(said.strip(" ,.;:!?\"'")[found.end():])


def birthday_frame(n: str) -> list[Draft]:
    """"My birthday is March 5th", "I was born on 5 March 1990", "born July 4 1990 in Cleveland"; a day said
    relative to today ("tomorrow") keeps its words, for `asides` to report."""
    said = _said(n)
    if not said:
        return []
    found = _relative_part(said)
    if found is not None:
        rest = said.strip(" ,.;:!?\"'")[found.end():]
        if not _DATE.search(rest):  # "tomorrow", "next Friday": reported, never kept as the words
            return [Draft("user.birthday", said.strip(" ,.;:!?\"'"))]
        said = _FILLER.sub("", rest.strip(" ,;:-–—"))  # "next Friday, March 13": March 13
    said = cut(said)
    return [Draft("user.birthday", said)] if said else []
