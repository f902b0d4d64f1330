"""A name said as an introduction ("Hi, I'm Daniel Okafor", "I'm Anna, nice to meet you",
"I'm Sofia, 27"): "I'm <Capitalized>" is a name only where it cannot be a state, a people,
a place or a language ("I'm Fine", "I'm Canadian", "I'm French"), nor a word `traits` knows
as what a person is ("I'm Deaf", "I'm Hispanic", "I'm Widowed")."""

from __future__ import annotations

import re

from .. import gazetteer
from .lexicon import DIETS, OCCUPATIONS
from .traits import trait

_INTRO = re.compile(r"^(?P<hi>(?:hi|hey|hello|hiya)[,!.]*\s+)?i'm\s+(?P<v>(?-i:(?:Dr\.? |Mr\.? |Ms\.? )?[A-Z][a-z']+"
                    r"(?:-[A-Z][a-z']+)?)(?P<last>\s+(?-i:[A-Z][a-z']+))?)\s*(?:$|[.!]|,\s*(?P<more>\d{1,3}\b|nice to meet|"
                    r"pleased to meet)|,)", re.IGNORECASE)
_NOT_NAMES = frozenset(("fine", "good", "great", "okay", "ok", "sorry", "back", "here", "home", "tired", "busy", "happy", "sad",
                        "ready", "done", "sure", "single", "married", "divorced", "retired", "pregnant", "sick", "free", "new",
                        "late", "early", "in", "at", "on", "from", "not", "also", "still", "just", "so", "out", "off", "up",
                        # a faith or a belief ("I'm Catholic, actually lapsed"); "Christian" is a name too: see _BELIEFS
                        "catholic", "protestant", "jewish", "muslim", "moslem", "buddhist", "hindu", "sikh", "jain",
                        "mormon", "atheist", "agnostic", "orthodox", "evangelical", "baptist", "methodist", "lutheran",
                        "presbyterian", "anglican", "episcopalian", "pagan", "wiccan", "quaker", "amish", "lapsed",
                        "religious", "spiritual", "secular", "shinto", "taoist", "zoroastrian", "adventist", "pentecostal",
                        "gay", "straight", "bi", "bisexual", "queer", "trans", "nonbinary", "lesbian", "asexual"))
_BELIEFS = frozenset(("christian", "bahai", "unitarian", "calvinist", "mennonite"))
"""A belief that is also a first name ("Christian"): a name only when said as an introduction ("Hi, I'm Christian")."""


_TITLE_WORDS = frozenset(("senior", "junior", "lead", "head", "chief", "principal", "staff", "sous", "executive", "assistant",
                          "associate", "deputy", "general", "managing", "software", "data", "product", "project", "vice",
                          "regional", "store", "branch", "account", "sales", "marketing", "medical", "registered",
                          "certified", "licensed", "pastry", "graphic", "web", "civil", "research", "teaching", "master",
                          "apprentice", "trainee", "student", "police", "district", "team", "creative", "art", "finance"))
"""Words that start a job title said capitalized ("I'm Head Chef"), not a first name."""


def introduced(n: str) -> str | None:
    """The name a clause introduces the user by, or None."""
    intro = _INTRO.match(n)
    if not intro:
        return None
    first = intro.group("v").split()[-1].lower()
    sure = intro.group("hi") or intro.group("last") or intro.group("more")  # said as an introduction
    given = re.sub(r"^(?:Dr|Mr|Ms)\.?\s+", "", intro.group("v")).split()[0]
    # a people, a condition, a marital state ("I'm Hispanic", "I'm Deaf", "I'm Widowed"): never a name, however said
    # with a surname the first name alone is no trait ("Hi, I'm Rich Evans", "Young Kim"), unless both words are
    # a surname that is also a trade ("John Baker", "Mary Cook") is a name; a title is not ("Head Chef")
    trade = OCCUPATIONS.fullmatch(first) and not (intro.group("last") and given.lower() not in _TITLE_WORDS)
    word = first in _NOT_NAMES or DIETS.get(first) or trade or (
        trait(given) and (not intro.group("last") or trait(first)) or trait(intro.group("v")))
    # alone, not a word that names a place, a language or a people ("I'm Canadian", "I'm French"); a place's other
    # name only is no place said ("Sam" is one of Damascus's)
    plain = not (re.search(r"(?:ian|ese|ish|ican|ean|ch)$", first) or first in _BELIEFS
                 or gazetteer.find_place(first) == gazetteer.fold(first) or gazetteer.find_language(first))
    return intro.group("v") if not word and (sure or plain) else None
