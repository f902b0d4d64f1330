"""Statements a slot pattern reads that are not the user's lasting fact: a value said of
another person named before it ("Book a table for my wife, she's vegan"), of the user's
workplace or a thing of theirs ("My office is on Eastern time", "My flight lands at 5pm
Eastern time"), a request that follows from someone else's fact ("My boss is on Eastern
time, please schedule in ET"), a passing arrangement ("I'm eating vegan this week for a
challenge") and a side job ("I consult for Microsoft on the side"). Each is reported in
`unextracted` with its reason; the user's own statement said the same way ("I'm vegan,
so please book vegan places", "My work email is ...") is read as usual.
"""

from __future__ import annotations

import re

from ..values import split_stance

IC = re.IGNORECASE

OTHER = "about someone else (the user's family, friends or colleagues)"
THING = "about the user's workplace, trip or another thing of theirs, not where the user is"
PASSING = "a passing arrangement (this week, for a challenge...), not the user's lasting fact"
SIDE = "a side job, not the user's main work"

_SUBJECTS = re.compile(r"\b(?P<first>i|i'm|i've|i'd|i'll|im|me|my|we|we're|we've|our)\b"
                       r"|\b(?P<third>he|she|they|he's|she's|they're|hes|shes|his|her|hers|their|theirs)\b", IC)
_THING = re.compile(
    r"^(?:my|our|the) (?:\w+ )?(?:office|offices|headquarters|hq|head office|company|firm|branch|"
    r"store|shop|school|university|factory|warehouse|server|servers|flight|flights|train|bus|meeting|meetings|call|"
    r"webinar|event|conference|hotel|trip|shift|class|classes|appointment)\b(?!'s name)", IC)
_CEO = re.compile(
    r"^(?:my|our|the) (?:\w+ )?(?:ceo|cto|cfo|coo|founder|co-?founder|president|director|vp|lead|supervisor|"
    r"teammates?|doctor|dentist|lawyer|accountant|therapist|coach|teacher|tutor|nanny|guests?|visitors?|"
    r"niece|nephew|grandson|granddaughter|grandchildren|grandkids|stepson|stepdaughter|stepmom|stepdad|"
    r"client|customer|host|driver|contractor|investors?|new hire|hire|intern|assistant)\b(?!'s name)", IC)
_PASSING = re.compile(
    r"\b(?:this (?:week|weekend|month)|for (?:a couple of|a few|two|three|\d+) (?:days|weeks)|"
    r"for (?:a|the|this) (?:challenge|bet|week|weekend|month|few (?:days|weeks)|"
    r"detox|cleanse|fast)|for (?:lent|ramadan|veganuary|dry january|january)|temporarily|for the time being|"
    r"just for (?:now|today|the week|a while)|until (?:the )?(?:end of|next) (?:the )?(?:week|month))\b", IC)
_CHANGED = re.compile(r"\b(?:moved|relocated|switched|started|joined|changed|became|become|new|since|from now on|"
                      r"now|went|got|turned|decided)\b", IC)
_SIDE = re.compile(r"\b(?:on the side|side (?:gig|hustle|job|project|business)|moonlight(?:ing|s)?|"
                   r"(?:a )?(?:few|some) hours a week)\b", IC)


_NAMED_THEN_THEM = re.compile(r"\b(?:my|our) (?:\w+ )?\w+,?\s+(?:he|she|they)(?:'s|'re|\s+(?:is|are|has|have|lives|works|"
                              r"speaks|eats|needs))\b", IC)


def someone_else(clause: str, *, value_found: bool) -> bool:
    """Whether a clause no pattern read is about another person: its subject ("Our CEO is
    ..."), or, with no value of the user's found in it, one named before a pronoun ("for my
    son, he's gluten-free"; "I live in Denver with my wife, she's a nurse" keeps Denver)."""
    return bool(_CEO.match(clause.strip()) or (not value_found and _NAMED_THEN_THEM.search(clause)))


def value_of_someone_else(clause: str, value: str) -> bool:
    """Whether the last subject before the value in the clause is a third person:
    "Book a table for my wife, she's vegan"; not "I told her I'm vegan"."""
    said = split_stance(value)[1].split(":")[0].strip()
    at = clause.lower().find(said.lower()) if said else -1
    if at < 0:
        return False
    last = None
    for m in _SUBJECTS.finditer(clause[:at]):
        last = m
    return bool(last and last.group("third"))


def aside(clause: str, entities: set[str]) -> str | None:
    """Why a clause whose patterns read `entities` is no lasting fact about the user, or None."""
    norm = clause.strip()
    if _CEO.match(norm):  # a pronoun after a name: `value_of_someone_else`, per value
        return OTHER
    if _THING.match(norm) and entities & {"user.timezone", "user.location"}:  # "my office number" is a work phone
        return THING
    if _SIDE.search(norm) and entities & {"user.employer", "user.job"}:
        return SIDE
    # a stay has its own reading (extraction._STAY); a zone "this month" is the one to schedule in now
    lasting = {e for e in entities if not e.startswith(("user.location", "user.timezone", "user.budget", "user.schedule"))}
    if lasting and _PASSING.search(norm) and not _CHANGED.search(norm):
        return PASSING
    return None


def follows_from(clause: str, entities: set[str], others: set[str]) -> bool:
    """Whether a clause is a request that follows from someone else's fact said before it
    in the sentence ("My boss is on Eastern time, please schedule in ET"): it reads only
    entities read there, and has no first-person subject of its own."""
    return bool(entities) and (entities <= others or "*" in others) and not re.search(r"\b(?:i|i'm|i've|me|my)\b", clause, IC)
