"""Where a move went, said after "moved to" (`frames.location_frame`): the new home ends before where the move started
("moved to Seattle from Austin": Seattle), and a later move said in the same breath is the one that counts ("I moved to
Berlin last year and then to Paris", "I moved to Berlin, then Paris", "..., and later on to Lisbon": the latest place is
the home). A later move whose place is not said ("... and then back", "... and then to a new flat") leaves no home: the
first place is no longer it."""

from __future__ import annotations

import re

from .. import gazetteer
from .lexicon import cut

IC = re.IGNORECASE
_FROM = re.compile(r"\s+(?:all the way |originally )?from\s+.*$", IC)
"""Where a move started, said after the new home ("moved to Seattle from Austin"): no part of the new home."""
LATER = re.compile(r"(?:\s*,\s*|\s+)(?:and\s+)?(?:then|later|after that|afterwards|eventually|finally|since then|now)\b,?\s+"
                   r"(?:(?:i|we)\s+)?(?:(?:moved|relocated|went|headed|came|on|over|again)\s+)*"
                   r"(?P<back>back\b\s*)?(?P<to>(?:to|into|in)\s+)?(?P<v>.*)$", IC)
"""A later move after the first one's place: ", then (moved) (on) to Y", " and later Y", " and then back"."""
_PLACE_START = re.compile(r"(?-i:[A-Z])|(?:a|an|the|my|our|another|somewhere)\b", IC)
"""What a later move's words start with after "to" when they say where it went: a name, or a place said with an
article ("then to a new flat"); said without "to", only a place the gazetteer knows ("..., then Paris"), not another
statement ("... and then got a dog", "... and then started at Google", "... and then Tom left")."""


_AGAIN = re.compile(r"\b(?:back|moved|moving|relocat\w*|again)\b", IC)
"""A move after the latest one said some other way ("..., then to Paris, and back to Berlin", "... but moved back"):
where the user lives is left unsaid."""


def later_move(said: str) -> re.Match[str] | None:
    """The last later move said after a first move's place, or None."""
    found = None
    at = 0
    while (m := LATER.search(said, at)) is not None:
        v = m.group("v")
        if not (m.group("back") or (m.group("to") and _PLACE_START.match(v)) or gazetteer.find_place(cut(v))):
            break
        found, at = m, m.start("v")
    return found


def moved_to(said: str) -> str:
    """The words after "moved to" that say the new home: the latest move's, without where it started; "" when a later
    move says no place ("... and then back")."""
    later = later_move(said)
    if later is not None:
        said = "" if _AGAIN.search(later.group("v")) else later.group("v")
    return _FROM.sub("", said)


_BACK = re.compile(r"(?P<move>\b(?:moved|relocated)\s+(?:back\s+|over\s+)?to\s+[^.!?;\n]*?),?\s+(?:but|and)\s+"
                   r"(?:then\s+|later\s+)?(?:(?:i|we)\s+)?(?:(?:just|recently|eventually|finally)\s+)?(?:moved|came)\s+back\b",
                   IC)
"""A move back after a move ("... but moved back", "... and came back"; "went back" may be a visit: "but went back to
visit")."""


def back_again(text: str) -> str:
    """`text` with a move back said after a move as a later move of the same clause ("I moved to Paris but moved back"
    -> "I moved to Paris and then back": no home said; "... but moved back to Ohio": Ohio)."""
    return _BACK.sub(lambda m: f"{m.group('move')} and then back", text)


REMOTE = re.compile(r"\b(?:i|we) (?:still |currently |now |mostly )?work (?:remotely|from home)\s+"
                    r"(?:in|from|out of)\s+(?P<v>.+)$", IC)
"""Where the user lives, said as where they work from: "I work from home in Denver", "I work remotely from Lisbon" (not
"I work remotely for Acme")."""
