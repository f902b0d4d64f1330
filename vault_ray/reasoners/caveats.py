"""More statements a slot pattern reads that are not the user's lasting fact (as `asides`):
a statement the user moves to someone else ("I live in Denver, or rather my parents do") or into
the past ("..., or rather I was as a kid"),
a fictional or joking place ("I live in Hogwarts haha"), a budget for someone else's plan
("Budget: 2.5k CAD for my brother's trip"), a fact said for a condition or an occasion ("I
wake up at 7am when I'm on vacation") and employers said as one value ("I've worked at
Google and Meta"). Each is reported in `unextracted` with its reason.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .. import gazetteer
from ..values import split_stance
from .lexicon import Draft

IC = re.IGNORECASE

MOVED = "said of the user, then moved to someone else (\"or rather my son is\"): not the user's fact"
FICTION = "a fictional or joking place, not where the user lives"
THEIR_PLAN = "a budget for someone else (\"for my brother's trip\"), not the user's own"
CONDITIONAL = "said for a condition or an occasion (\"when I'm on vacation\"), not the user's usual fact"
JOINED = "two or more employers said as one value: which one the user works at now is not said"

_PERSON = (r"(?:wife|husband|partner|spouse|son|daughter|kids?|children|child|mom|mum|mother|dad|father|parents?|"
           r"brother|sister|siblings?|friends?|colleagues?|co-?workers?|boss|manager|cousins?|uncle|aunt|niece|nephew|"
           r"girlfriend|boyfriend|fianc[eé]e?|roommates?|flatmates?|grandma|grandpa|grandmother|grandfather|"
           r"grandparents?|in-laws|baby|boys|girls|stepson|stepdaughter|ex)")
_THEIRS = r"(?:company|firm|employer|office|team|school|landlord)"
"""Not a person, but what a statement may be moved to as well: "I moved to Berlin, or rather my company did"."""
_MOVED = re.compile(
    r"(?:^|[,;:]\s*|\s+[-–—]+\s*|\s+)(?:(?:or rather|rather|actually|i mean|well|sorry|wait|no wait|correction|oops)\b[,:]?\s+)+"
    rf"(?:it's\s+|it is\s+)?(?:(?:my|our)\s+(?:\w+\s+)?(?:{_PERSON}|{_THEIRS})(?:'s|s')?|he|she|they)"
    r"(?:\s+(?:do|does|did|is|are|was|were|has|have|lives?\s+there|works?\s+there))?(?=\s*(?:$|[.!,;]))", IC)


_WAS = re.compile(r"(?:^|[,;:]\s*|\s+[-–—]+\s*|\s+)(?:(?:or rather|rather|actually|well|sorry|wait)\b[,:]?\s+)+"
                  r"i\s+(?:was|used to be|used to)\b(?!\s+(?:born|raised|\w+ed)\b)[^.!?;]*", IC)
PAST = "said of the user, then put in the past (\"or rather I was as a kid\"): not how things are now"


def moved_off(sentence: str) -> tuple[re.Match[str], str] | None:
    """Where a sentence moves what it said to someone else (", or rather my son is", "-
    actually my parents do"; not ", actually my son is too": the user still is) or into the
    past (", or rather I was as a kid"), and why."""
    if m := _MOVED.search(sentence):
        return m, MOVED
    return (m, PAST) if (m := _WAS.search(sentence)) else None


_FICTIONAL = frozenset((
    "hogwarts", "hogsmeade", "narnia", "middle-earth", "middle earth", "mordor", "the shire", "shire", "rivendell", "gondor",
    "westeros", "winterfell", "king's landing", "gotham", "gotham city", "metropolis", "smallville", "wakanda", "asgard",
    "atlantis", "neverland", "never land", "wonderland", "oz", "the land of oz", "emerald city", "bikini bottom",
    "tatooine", "coruscant", "hyrule", "azeroth", "camelot", "el dorado", "shangri-la", "shangri la", "candyland",
    "la la land", "lala land", "bedrock", "duckburg", "hill valley", "the upside down", "the matrix", "jurassic park",
    "sesame street", "mars", "the moon", "the north pole", "hell", "heaven", "nowhere", "utopia", "valhalla", "olympus",
    "mount olympus", "pandora", "springfield usa", "vice city", "los santos", "liberty city", "zootopia", "arrakis",
    "panem", "district 12", "the capitol", "whoville", "agrabah", "arendelle", "quahog", "pawnee", "stars hollow",
    "my car", "a van", "my van", "a cave", "under a rock", "a box", "a cardboard box", "my mom's basement",
))
_JOKING = re.compile(r"\b(?:haha+|hehe+|ha ha|lol+|lmao|lmfao|rofl|jk|j/k|kidding|joking)\b|[😂🤣😜😉😆😅🙃]"
                     r"|:\)|;\)|:p\b|xd\b", IC)
_PLACED = ("user.location", "user.hometown")


def _fictional(clause: str, value: str) -> bool:
    place = split_stance(value)[1].strip().lower()
    return place in _FICTIONAL or f"the {place}" in _FICTIONAL or (
        bool(_JOKING.search(clause)) and not gazetteer.find_place(value))


_FOR_THEM = re.compile(rf"\b(?:for|on) (?:my|our|the) (?:\w+ )?{_PERSON}(?:'s?(?=\s)|s'|(?=\s*(?:$|[.,;!?)])))", IC)
_CONDITION = re.compile(
    r"\b(?:when|whenever|if|unless|while|only when)\s+(?:i|we)(?:'m|'re|\s+am|\s+are)?\s+(?!(?:was|were|got|had|did|went|"
    r"came|moved|married|retired|started|left|turned|became|joined|graduated|first|used|still|born)\b)"
    r"|\b(?:on|during)\s+(?:(?:a|my|the|our)\s+)?(?:vacations?|holidays?|trips?|business trips?|days? off|travel|breaks?|"
    r"time off|leave)\b|\bwhen (?:traveling|travelling|on vacation|on holiday|on the road|abroad|away|sick)\b", IC)
_ROUTINE_IF = re.compile(r"\b(?:if|unless|whenever)\b", IC)
"""A routine said with any condition: "I wake up at 5am if the baby cries"."""
_CONDITIONED = ("user.schedule", "user.diet", "user.timezone", "user.location")
_JOINED = re.compile(r"(?:\s+(?:and|plus|then)\s+|,\s*(?:and\s+)?)(?!(?:co|company|sons|daughters|partners|associates|"
                     r"brothers|inc|llc|ltd|corp|gmbh|plc|sa|ag)\b)(?-i:[A-Z])", IC)


_LIST_AFTER = re.compile(r"\s*,\s*(?-i:[A-Z])[\w&'.-]*(?:\s+(?-i:[A-Z])[\w&'.-]*)*,?\s+(?:and|or|&)\s+(?-i:[A-Z])")


def _joined(clause: str, employer: str) -> bool:
    """An employer value that joins two ("Google and Meta"), or the first of a list the clause
    goes on with ("Google, Meta and Amazon")."""
    at = clause.find(employer)
    return bool(_JOINED.search(employer)) or (at >= 0 and bool(_LIST_AFTER.match(clause, at + len(employer))))


def caveat(clause: str, drafts: Sequence[Draft]) -> str | None:
    """Why the values a pattern or a typed finder read in `clause` are not the user's lasting
    fact, or None."""
    entities = {d.entity for d in drafts}
    if any(d.entity in _PLACED and _fictional(clause, d.value) for d in drafts):
        return FICTION  # "I live in Hogwarts haha" (not "I live in Denver lol")
    if any(e.startswith("user.budget") for e in entities) and _FOR_THEM.search(clause):
        return THEIR_PLAN  # "Budget: 2.5k CAD for my brother's trip"
    if any(e.startswith(_CONDITIONED) for e in entities) and _CONDITION.search(clause) or (
            any(e.startswith("user.schedule") for e in entities) and _ROUTINE_IF.search(clause)):
        return CONDITIONAL  # "I wake up at 7am when I'm on vacation", "I'm vegan when I'm at home"
    if any(d.entity == "user.employer" and _joined(clause, split_stance(d.value)[1]) for d in drafts):
        return JOINED  # "Google and Meta" is two employers (not "Procter & Gamble", "Smith and Sons")
    return None
