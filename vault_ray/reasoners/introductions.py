"""A name said as an introduction ("Hi, I'm Daniel Okafor", "I'm Anna, nice to meet you",
"I'm Sofia, 27"): "I'm <Capitalized>" is a name only where it cannot be a state, a people,
a place or a language ("I'm Fine", "I'm Canadian", "I'm French"), nor a word `traits` knows
as what a person is ("I'm Deaf", "I'm Hispanic", "I'm Widowed")."""

from __future__ import annotations

import re
from functools import cache

from .. import gazetteer
from .lexicon import DIETS, OCCUPATIONS
from .names import first_name
from .traits import trait

_INTRO = re.compile(r"^(?P<hi>(?:hi|hey|hello|hiya)[,!.]*\s+)?i'm\s+(?P<v>(?-i:(?:Dr\.? |Mr\.? |Ms\.? )?[A-Z][a-z']+"
                    r"(?:-[A-Z][a-z']+)?)(?P<last>\s+(?-i:[A-Z][a-z']+))?)(?:\s+(?:btw|by the way|lol|haha|fyi))?\s*"
                    r"(?:$|[.!]|\s+from\b|,\s*(?P<more>\d{1,3}\b|nice to meet|"
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
_GIVEN = frozenset((
    "brian", "ian", "julian", "adrian", "vivian", "lillian", "lilian", "gillian", "jillian", "marian", "damian", "fabian",
    "sebastian", "cristian", "kristian", "dorian", "florian", "maximilian", "lucian", "killian", "kilian", "cian", "kian",
    "rian", "rhian", "octavian", "cassian", "tristian", "emilian", "dean", "sean", "jean", "reese", "therese", "hamish",
    "anish", "manish", "ashish", "harish", "girish", "satish", "trish", "zach", "mitch", "butch", "enoch", "baruch",
    "heinrich", "ulrich", "dietrich", "friedrich", "erich", "aldrich", "emmerich",
))
"""Given names ending as a people's name does ("Brian", "Sean", "Zach"): a name even said alone ("I'm Brian")."""
"""A belief that is also a first name ("Christian"): a name only when said as an introduction ("Hi, I'm Christian")."""


_TITLE_WORDS = frozenset(("senior", "junior", "lead", "head", "chief", "principal", "staff", "sous", "executive", "assistant",
                          "associate", "deputy", "general", "managing", "software", "data", "product", "project", "vice",
                          "regional", "store", "branch", "account", "sales", "marketing", "medical", "registered",
                          "certified", "licensed", "pastry", "graphic", "web", "civil", "research", "teaching", "master",
                          "apprentice", "trainee", "student", "police", "district", "team", "creative", "art", "finance"))
"""Words that start a job title said capitalized ("I'm Head Chef"), not a first name."""


@cache
def _big_places() -> frozenset[str]:
    """Countries, US states and cities of 300,000 people or more (folded), but for the given names among them."""
    states, countries = gazetteer.regions()
    big = {gazetteer.fold(c["name"]) for c in gazetteer.cities().values() if int(c["population"]) >= 300_000}
    return frozenset(set(states) | set(countries) | big) - _GIVEN_PLACES


_GIVEN_PLACES = frozenset((
    "jordan", "georgia", "chad", "india", "israel", "kenya", "paris", "sofia", "phoenix", "dallas", "houston", "victoria",
    "virginia", "montana", "adelaide", "sydney", "brooklyn", "santiago", "alexandria", "salvador", "milan", "vienna",
    "austin", "charlotte", "madison", "florence", "lincoln", "eugene", "orlando", "regina", "savannah", "aurora",
    "kennedy", "kira", "preston", "raleigh", "salem", "soledad", "valencia", "vladimir", "hamilton", "kingston", "brent",
    "guadalupe", "washington", "van", "luan", "jian",
))
"""Places that are given names too ("I'm Jordan", "I'm Sofia"): a name said alone."""


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
    # a language alone is a people, however said ("Hi, I'm French")
    word = first in _NOT_NAMES or DIETS.get(first) or trade or (
        trait(given) and (not intro.group("last") or trait(first)) or trait(intro.group("v"))) or (
        not intro.group("last") and first not in _GIVEN and gazetteer.find_language(first))
    # alone, not a word that names a people, a language or a country, US state or great city ("I'm Canadian",
    # "I'm French", "I'm Texas"); a town's name is no place said ("I'm David", "I'm Mary": both are towns too)
    plain = not (re.search(r"(?:ian|ese|ish|ican|ean|ch)$", first) and first not in _GIVEN or first in _BELIEFS
                 or first in _big_places() or gazetteer.find_language(first))
    return intro.group("v") if not word and (sure or plain) else None


_GREETED = re.compile(
    r"(?:^|(?<=[.!?]\s))(?P<hi>(?:hi|hey|hello|hiya|howdy)(?: there| all| everyone| folks| guys)?[,!.]*\s+)?"
    r"(?P<say>i(?:'m| am)|im|this is|(?:the )?name(?:'s| is))\s+(?P<v>(?:[a-z][a-z']+(?:-(?-i:[A-Z])[a-z']+)?)"
    r"(?:\s+(?-i:[A-Z])[a-z']+)?)(?=\s*(?:$|[.!,;]|\s(?:and|but|from|btw|by the way|lol|haha|fyi)\b))", re.IGNORECASE)
_WORDS_TOO = frozenset(("will", "max", "rich", "pat", "sue", "bill", "rob", "mark", "ray", "sandy", "rose", "jack", "chuck",
                        "al", "ed", "jo", "vic", "stan", "gus", "kat", "dee", "val", "russ", "ken", "lou", "ben", "sally",
                        "may", "june", "art", "drew", "frank", "grant", "hope", "joy", "faith", "jay", "kim", "summer"))
"""First names that are words too, lower case ("hi, i'm frank with you"): no name unless capitalized."""


def greeted(text: str) -> str:
    """`text` with an introduction said as "my name is": one that is one only after a greeting ("Hi, I'm Jordan": a
    name, where "I'm Jordan" alone could be a place said wrongly; "hi im jordan", a common first name in lower
    case; "Hi, this is Ana"), and "Name's Mike" (no "my"); a clause is read without its greeting."""
    def said(m: re.Match[str]) -> str:
        name, hi, say = m["v"], m["hi"] or "", m["say"].lower()
        if say.endswith(("name's", "name is")):
            return f"{hi}my name is {name}" if not name.islower() or first_name(name) else m[0]
        if not hi:
            return m[0]
        if name.islower():
            word = name.split()[0]
            named = first_name(word) and word not in _WORDS_TOO and " " not in name
            return f"{hi}my name is {word.capitalize()}" if named else m[0]
        alone = introduced(f"i'm {name}")  # "Hi, this is Ana": as "Hi, I'm Ana" is a name
        return f"{hi}my name is {name}" if (say == "this is" or not alone) and introduced(f"hi, i'm {name}") else m[0]
    return _NAME_FROM.sub(lambda m: f"{m['who']}, {m['from']}" if m["my"] or introduced(f"hi, i'm {m['v']}") else m[0],
                          _GREETED.sub(said, text))


_NAME_FROM = re.compile(r"(?P<who>\b(?:(?P<my>my name is)|i'm|i am)\s+(?P<v>(?-i:[A-Z])[a-z']+(?:\s+(?-i:[A-Z])[a-z']+)?))"
                        r"\s+(?P<from>from\s+(?-i:[A-Z]))", re.IGNORECASE)
"""A name, then where the user is from ("I'm Daniel from Ohio"): said apart ("I'm Daniel, from Ohio"), each read."""
