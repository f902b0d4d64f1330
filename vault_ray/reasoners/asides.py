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

from .. import gazetteer
from ..values import split_stance
from .frames_birthday import relative

IC = re.IGNORECASE

OTHER = "about someone else (the user's family, friends or colleagues)"
THING = "about the user's workplace, trip or another thing of theirs, not where the user is"
PASSING = "a passing arrangement (this week, for a challenge...), not the user's lasting fact"
SIDE = "a side job, not the user's main work"
BELIEF = "what someone else thinks or says of the user, not the user's own statement"
JOKE = "a joke (no one is allergic to a weekday, their job or people), not an allergy"
LANDMARK = "a landmark the user lives near, not a place the user lives in"
ONE_OFF = "a one-off event (on one day, or at one place), not a routine"
RELATIVE_DAY = ("a day said relative to today (\"tomorrow\", \"next Friday\"), not a date the birthday can keep: "
                "say the date (\"My birthday is March 13\")")

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


_BELIEF = re.compile(r"^(?:(?:every|any|some|no)(?:one|body)|people|(?:a lot of|most|some) people|they|he|she|you|folks)"
                     r"(?: \w+)? (?:thinks?|thought|assumes?|assumed|believes?|believed|says|said|figures?|figured|"
                     r"guess(?:es|ed)?)"
                     r"(?: that)? (?:i|i'm|i've|my)\b", IC)
_DAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_JOKE = re.compile(rf"\ballergic to (?:my (?:job|boss|work|ex|life|commute|manager|in-laws|mother-in-law|coworkers?|"
                   rf"colleagues?|neighbou?rs?)|{_DAY}s?|mornings?|work|working|my job|jobs?|people|humans|life|adulting|"
                   r"school|homework|exercise|cardio|effort|responsibilit(?:y|ies)|meetings?|deadlines?|emails?|taxes|bills|"
                   r"nonsense|drama|stupidity|you|everyone|everybody|kids|children|commitment|small talk|waking up|getting up|"
                   r"mondays?|adults|socializing|math|running)\b", IC)
_NEAR = re.compile(r"\b(?:near|by|close to|next to|opposite|across from|around the corner from) (?:the )?"
                   r"(?P<v>(?-i:[A-Z][\w'.-]*(?: [A-Z][\w'.-]*)*))", IC)
_ONE_DAY = re.compile(rf"\b(?:on|this|next) {_DAY}\b(?!s)|\b(?:today|tonight|tomorrow|next (?:week|month)|"
                      r"this (?:afternoon|evening)|on (?:the )?\d{1,2}(?:st|nd|rd|th)?\b|"
                      r"on (?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d)"
                      r"|\b(?:meeting|appointment|interview|flight|conference|dinner|lunch|event) (?:in|at) (?-i:[A-Z])", IC)
_ROUTINE = re.compile(rf"\b(?:every|each|weekly|daily|monthly|nightly|usually|always|normally|often|regular(?:ly)?|routine|"
                      rf"{_DAY}s|mornings|evenings|nights|weekends|starting|from now on|{_DAY},? (?:and |& |or )?{_DAY})\b", IC)
"""A routine, not one day: "every", plural days, two days named ("on Monday and Thursday"), a start ("starting today")."""
_NAMES = re.compile(r"(?-i:[A-Z][\w'.-]*(?: [A-Z][\w'.-]*)*)")


def aside(clause: str, entities: set[str]) -> str | None:
    """Why a clause whose patterns read `entities` is no lasting fact about the user, or None."""
    norm = clause.strip()
    if _CEO.match(norm):  # a pronoun after a name: `value_of_someone_else`, per value
        return OTHER
    if _BELIEF.match(norm):  # "Everyone thinks I'm from Texas (but I'm from Ohio)"
        return BELIEF
    if "user.birthday" in entities and relative(norm):  # "My birthday is tomorrow": never stored as "tomorrow"
        return RELATIVE_DAY
    if "user.allergies" in entities and _JOKE.search(norm):  # "I'm allergic to Mondays haha"
        return JOKE
    near = _NEAR.search(norm) if "user.location" in entities else None
    if near and not gazetteer.find_place(near.group("v").strip(" .")) and not any(  # "I live near the Eiffel Tower"
            gazetteer.find_place(n) for n in _NAMES.findall(norm[:near.start()]) if n != "I"):  # not "in Paris near the Louvre"
        return LANDMARK
    if any(e.startswith("user.schedule") for e in entities) and _ONE_DAY.search(norm) and not _ROUTINE.search(norm):
        return ONE_OFF  # "I have a meeting in Chicago on Monday" (not "My weekly team meeting is on Wednesday")
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
