"""A time zone switch the user ties to a trip to come: "Switch me to CET, I'll be in Berlin next week", "Change my
timezone to PST, I'm moving to LA next month", "Set me to JST. I fly to Tokyo tomorrow." The zone is the trip's, from
a day to come: a plan, not the zone to schedule in now (said in the other order, "I'll be in Berlin next week, so
switch me to CET", `framing` already reads the whole clause as a plan).

Only a switch asked for ("switch/change/set/move/put/update ... to X", "use X") is set aside, and only when another
clause of the turn is a plan (`framing.PLAN`) of going somewhere (be in, fly, travel, a trip, move, visit...). "Switch
me to CET, I'm in Berlin this week" is a stay now and "My time zone is PST, I'll be in Berlin next week" says the zone
the user is in now: both stay stored.
"""

from __future__ import annotations

import re

from ..models import Unextracted
from . import clauses as cl
from . import framing
from .base import Extraction

IC = re.IGNORECASE
_SWITCH = re.compile(r"^(?:(?:ok(?:ay)?|so|also|and|hey|hi|please|pls|can you|could you|would you|will you|kindly)[\s,]+)*"
                     r"(?:switch|change|set|move|put|update|use|make|adjust|schedule)\b", IC)
"""A clause that asks for a setting ("Switch me to CET", "Please use CET", "Can you set my timezone to JST")."""
_GOING = re.compile(r"\b(?:be (?:in|at|on|over in|out in|back in|visiting)|fly\w*|going|go|head\w*|travel\w*|trip|"
                    r"visit\w*|mov(?:e|ing)|relocat\w*|leav(?:e|ing)|off to|vacation|holiday|conference|land\w*|arriv\w*)\b",
                    IC)
_LATER = re.compile(r"\b(?:tomorrow|tonight|next (?:week|month|year|weekend|\w+day)|on (?:mon|tues|wednes|thurs|fri|satur|"
                    r"sun)days?|in (?:a|an|one|two|three|four|a few|a couple of|\d+) (?:days?|weeks?|months?)|"
                    r"this (?:weekend|coming \w+)|later this (?:week|month)|soon)\b", IC)
"""A time to come said with a going in the present ("I'm heading to New York on Monday")."""
_STAYING = re.compile(r"\b(?:until|till|through|for the (?:rest|next)|from now on|starting (?:now|today)|now|currently|"
                      r"right now|at the moment|this week)\b", IC)
"""A stay now said with it ("I'm in Berlin now and going to Munich next week", "until March"): the zone is for now."""
TRIP = ("a time zone switch for a trip to come (\"switch me to CET, I'll be in Berlin next week\"), not the zone the user "
        "is in now")


def for_a_trip(turn: str, found: Extraction) -> Extraction:
    """`found` without the time zone a switch asked for in `turn` sets, when the turn ties it to a trip to come."""
    if not any(f.entity == "user.timezone" for f in found.facts):
        return found
    said = [c.strip() for s in cl.sentences(framing.set_aside(turn)[0]) for c in cl.clauses(s)]
    asked = [c for c in said if _SWITCH.match(c)]
    if not asked or _STAYING.search(turn) or not any(_GOING.search(c) and (framing.unreal(c) == framing.PLAN or (
            _LATER.search(c) and framing.unreal(c) is None)) for c in said if c not in asked):
        return found
    return Extraction(tuple(f for f in found.facts if f.entity != "user.timezone"),
                      (*found.unextracted, *(Unextracted(c, TRIP) for c in asked)))
