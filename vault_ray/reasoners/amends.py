"""A value the user amends later in the same turn, softly: "My birthday is March 12...
actually March 21", "I'm vegetarian. Well, technically pescatarian", "I'm a doctor — well,
a med student really". The amended value takes the place of the one it amends, as
`restated.corrected` does for "wait no" and "I meant". A cue with no new value ("I'm
vegetarian, actually") or a new statement of its own ("..., actually I moved to Denver")
changes nothing, nor does a cue before an intensifier or a place near the value ("allergic to
peanuts, actually quite badly"; "I live in Paris, actually near the Louvre").

And a statement the user takes back in the same sentence ("I told him I'm vegan but I'm
actually not", "..., just kidding") is no statement: `taken_back` tells it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .. import gazetteer, places
from ..values import PERIOD, value_kind
from . import clauses as cl
from . import names
from .orgs import COMPANIES

IC = re.IGNORECASE
MAX_WORDS = 4

_SEP = re.compile(r"(?:\.{2,}|…|[,;:]|\.(?=\s)|\s[-–—]+)\s*")
_TAIL = re.compile(r"(?:(?P<well>well|ok|okay|um+|erm|hmm+),?\s+)?"
                   r"(?:(?P<cue>actually|technically|or rather|i mean|more like|more precisely|to be (?:exact|precise)|"
                   r"(?:(?:no|oh|er+m?|uh+),?\s+)?(?:sorry|oops|whoops|my bad)(?:\s+again)?(?:,?\s+i mean)?|no,?\s+wait|"
                   r"wait,?\s+no|no(?=,)|"
                   r"scratch that|correction)\b,?\s+)?"
                   r"(?P<fix>(?:[^.!?;,\n…]|\.(?=\w))+?(?:,\s*(?!(?:thanks|thank|thx|cheers)\b)(?-i:[A-Z])[a-z]+(?:\s+(?-i:[A-Z])[a-z]+)?(?=\s*(?:$|[.!?;\n…])))?)"
                   r"(?P<really>,?\s+(?:really|actually|technically|to be honest|tbh))?"
                   r"(?:,?\s+(?:thanks|thank you|thx|ty|cheers|lol|haha)\b!*)?"  # "..., actually Boulder, thanks"
                   r"\s*(?=$|[!?;\n…]|\.(?!\w))", IC)  # a dot inside a value ("b@x.com", "9.30") is no end
_NOT_A_VALUE = re.compile(r"^(?:quite|very|pretty|so|super|really|extremely|a bit|a little|kind of|sort of|mostly|only|just|"
                          r"not|no|since|because|but|and|or|in|at|near|on|around|outside|by|for|from|with|to|that|it|this|about|if|"
                          r"though|too|also|still|now|yes|yeah|sometimes|usually|always|often|never|maybe|probably|"
                          r"i|i'm|he|she|they|we|you|my|our|his|her|their)\b", IC)
_ARTICLES = ("a", "an", "the")
_MORE = re.compile(r"\b(?:too|also|as well|and|plus)\b", IC)
"""An addition, not an amendment: "I'm allergic to peanuts, actually cats too" keeps the peanuts."""


_CHAIN_CUE = r"(?:sorry(?:\s+again)?|no,?\s+wait|wait,?\s+no|no(?=\s*,)|actually|i mean|oops|scratch that)\b"
_CHAIN = re.compile(rf"[,;]\s*{_CHAIN_CUE}[,:]?\s+(?:[^.!?;,\n]+?)(?=\s*(?:[,;]|\.(?=\s))\s*{_CHAIN_CUE}"
                    r"(?![,:]?\s+(?:for|about|that|to|i|i'm|my|if|but)\b))", IC)  # not "..., sorry for the delay"
"""A correction corrected again ("Boston, no, Brooklyn. No wait, Boston"): the one in the middle is taken out."""


def last_said(text: str) -> str:
    """`text` with each correction that is corrected again taken out, so the last one said stands:
    "Google, sorry, Microsoft, sorry, Google" -> "Google, sorry, Google"."""
    while (chained := _CHAIN.sub("", text)) != text:
        text = chained
    return text


DOUBTFUL = ("a place amended to a name that is no place near it (\"I live in Boston, actually Alice\"): which place "
            "the user lives in is not said")


def amended(text: str, value_in: Callable[[str], tuple[str, str] | None],
            doubts: list[tuple[str, str]] | None = None) -> str:
    """`text` with each softly amended value replaced by its amendment. A place amended to a
    name that is no plausible place is taken out of `text` whole, and said in `doubts`."""
    start = 0
    while m := _SEP.search(text, start):
        start = m.end()
        tail = _TAIL.match(text, m.end())
        if not tail or not (tail.group("cue") or (tail.group("well") and tail.group("really"))):
            continue
        head, fix = text[:m.start()], tail.group("fix").strip(" ,")
        sentences = cl.sentences(head)
        found = value_in(cl.clauses(sentences[-1])[-1]) if head.strip() and sentences else None
        at = head.lower().rfind(found[1].lower()) if found else -1
        if at < 0:
            continue
        before = head[:at].rstrip().lower().split()
        words = fix.split()
        # "I'm a doctor — well, a med student": the words said before the value are not said twice
        while words and before and (words[0].lower() == before[-1] or
                                    (words[0].lower() in _ARTICLES and before[-1] in _ARTICLES)):
            words = words[1:]
        words = words[2:] if [w.lower() for w in words[:2]] == ["more", "like"] else words  # "actually more like $600"
        fix = _with_comma(" ".join(words)) if kind_of(found[1]) == "place" else " ".join(words)  # "Paris Texas"
        words = fix.split()
        other = _other_value(sentences[-1], head, fix, value_in) if doubtful(found[1], fix, words, found[0]) else None
        if other:  # "I work at Google and live in Austin. Sorry, Meta": the employer is amended, not the place
            found, at = other
        elif doubts is not None and doubtful(found[1], fix, words, found[0]):
            said = cl.clauses(sentences[-1])[-1]
            begin = _start_of(head, said, sentences[-1])
            doubts.append((text[begin:tail.end()].strip(), DOUBTFUL))
            text, start = head[:begin] + text[tail.end():], begin
            continue
        if not fix or len(words) > MAX_WORDS or _NOT_A_VALUE.match(fix) or cl.about_user(fix) or \
                (len(words) == 1 and fix.islower() and fix.endswith("ly")) or \
                not same_kind(found[0], found[1], fix) or \
                not fits(found[0], found[1], fix):  # "Jackson, actually Jack": a name; "Acme. Sorry, typo": no value
            continue  # "..., actually fluently"; "I live in Austin, actually downtown" (a place for a place)
        fix = shaped(found[0], found[1], fix)  # "at 9am, sorry, 9:30": at 9:30
        amended_clause = cl.clauses(cl.sentences(head[:at] + fix)[-1])[-1]
        now = value_in(amended_clause)
        if not now or now[0] != found[0] or now[1].lower() not in (fix.lower(), _with_state(fix).lower()) \
                or _MORE.search(fix) or said_of(words):
            continue  # the amendment reads as something else, more than a value, or adds one: the value stands as said
        text = head[:at] + fix + head[at + len(found[1]):] + text[tail.end():]
        start = at + len(fix)
    return text


_LEAD = re.compile(r"^(?:at|on|in|every|by|from|around)\s+", IC)


def with_lead(value: str, fix: str) -> str:
    """"at 9am ... sorry, 9:30": the word the value was said with goes with its correction ("at 9:30")."""
    lead = _LEAD.match(value)
    return fix if not lead or _LEAD.match(fix) else lead.group(0) + fix


def shaped(entity: str, value: str, fix: str) -> str:
    """`fix` said as `value` was: with its preposition ("at 9am, sorry, 9:30": at 9:30), for a
    zone its "time" ("Pacific time, no, Mountain": Mountain time), for an amount its period
    ("$80k a year, sorry, $90k": $90k a year)."""
    fix = with_lead(value, fix)
    period = PERIOD.search(value) if value_kind(entity) == "amount" else None
    if period and re.search(r"\d", fix) and not PERIOD.search(fix):
        return f"{fix} {period.group(0).strip()}"
    zone_tail = re.search(r"\s+(?:standard\s+)?time(?:\s*zone)?$", value, IC)
    if entity == "user.timezone" and zone_tail and not re.search(r"\btime\b", fix, IC) and not fix.isupper():
        return fix + zone_tail.group(0)
    return fix


_ZONE_SAID = re.compile(r"\btime\b|\bzone\b|(?-i:^[A-Z]{2,5}$)|^(?:UTC|GMT)\s?[+-]", IC)
"""A zone said as one ("Pacific time", "PST", "UTC+2"), not a name the zone list also has ("Amazon")."""


def same_kind(entity: str, value: str, fix: str) -> bool:
    """Whether `fix` is a value of the kind the slot holds, so that it may replace `value`: a zone
    for the zone ("EST, no, Central": Central is a town too); for an employer any name but a
    notable place or a zone said as one ("Google, sorry, Amazon" is a company, "sorry, Denver" or
    "sorry, PST" is no employer); a name for a name; else a value of `value`'s kind (a place for a
    place, "Austin, actually downtown" is none)."""
    if entity == "user.timezone":
        return bool(gazetteer.find_zone(fix))
    if entity == "user.employer":
        kind = kind_of(fix)
        return kind == "other" or (kind == "zone" and not _ZONE_SAID.search(fix.strip()))
    return entity == "user.name" or kind_of(_with_state(fix)) == kind_of(value)


_ASIDE = re.compile(r"\b(?:questions?|typos?|autocorrect(?:ed|s)?|spelling|thing|things|here|day|english|mistake|"
                    r"follow[- ]?up|newbie|noob|rambling|again|wrong|wait|never ?mind|nvm|ignore|keyboard|phone)\b", IC)
_MONTHS = re.compile(r"\d|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\b", IC)
_EXCEPT = re.compile(r"\b(?:on|at|during|over|for)\s+(?:the\s+)?(?:weekends?|weekdays?|"
                     r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?|"
                     r"holidays?|vacation)\b|\b(?:when|if|unless|except)\b", IC)
_PLACED = ("user.location", "user.hometown")
_NAMED = ("user.employer", "user.name", "user.first_name", "user.last_name", "user.nickname", "user.school")


def fits(entity: str, value: str, fix: str) -> bool:
    """Whether `fix` is a value of the kind of the one it amends: a name (capitalized, or in lower case
    where the user writes names so, `names.lower_name`) for an employer or a name, a date for a date; no
    aside ("Sorry, quick question", "Oops, typo")."""
    if _ASIDE.search(fix) or (_EXCEPT.search(fix) and not _EXCEPT.search(value)):
        return False  # "at 9am, sorry, 9:30 on weekends": an exception to the value, not its correction
    if entity in _NAMED and (names.not_a_name(fix) or (entity == "user.employer" and names.person(fix))):
        return False  # "Google, sorry, Monday", "Sam, sorry, Dad", "Google, sorry, Sarah": no company's or person's name
    if entity in _PLACED and _region(fix) and not _region(value):
        return False  # "Portland, sorry, Oregon": the state the city is in, not another place
    if entity in _NAMED and not all(w[:1].isupper() or w[:1].isdigit() or w.lower() in _LINKS or w == "&"
                                    for w in fix.split()[:1 if entity == "user.employer" else None]) \
            and not (entity == "user.employer" and fix.lower() in COMPANIES) \
            and not (value == value.lower() and names.lower_name(fix)):  # "i work at google, sorry, meta"
        return False
    return not (re.search(r"\d", value) and not _MONTHS.search(fix))


def _other_value(sentence: str, head: str, fix: str,
                 value_in: Callable[[str], tuple[str, str] | None]) -> tuple[tuple[str, str], int] | None:
    """The employer said earlier in the sentence a name that is no place amends, and where it is in `head`."""
    if kind_of(fix) != "other":  # "..., actually Alice": a name that is also a place is no employer's
        return None
    for clause in reversed(cl.clauses(sentence)[:-1]):
        found = value_in(clause)
        if found and found[0] == "user.employer" and fits(found[0], found[1], fix):
            at = head.lower().rfind(found[1].lower())
            return (found, at) if at >= 0 else None
    return None


def _start_of(head: str, said: str, sentence: str) -> int:
    """Where the clause `said` starts in `head` ("live in Boston" of "I work at Google and live in Boston")."""
    for words in (said, re.sub(r"^(?:i|i'm|we|we're)\s+", "", said, flags=IC)):
        if words and head.rfind(words) >= 0:
            return head.rfind(words)
    return len(head) - len(sentence)


def _with_comma(fix: str) -> str:
    """"Paris Texas": a place said with its state or country, without the comma ("Paris, Texas")."""
    words = fix.split()
    if "," in fix or not 2 <= len(words) <= 4:
        return fix
    states, countries = gazetteer.regions()
    for cut in range(1, len(words)):
        first, region = " ".join(words[:cut]), gazetteer.fold(" ".join(words[cut:]))
        if (region in states or region in countries) and gazetteer.find_place(first):
            return f"{first}, {' '.join(words[cut:])}"
    return fix


def doubtful(value: str, fix: str, words: list[str], entity: str = "user.location") -> bool:
    """A place amended to a name (one to three capitalized words) that is no place the user
    may mean: not a country, a state or a notable city, nor a town of the first place's state
    or country ("I live in Denver, actually Golden" is one). Only a place's entity: a name amended
    ("My name is Jackson, actually Jack") is a name, whatever places share it."""
    if entity not in ("user.location", "user.hometown") or kind_of(value) != "place" or not 0 < len(words) <= 3 \
            or not all(w[:1].isupper() for w in words) \
            or _NOT_A_VALUE.match(fix) or cl.about_user(fix):
        return False
    # "Alice, Texas": a place said with its state or country is the place meant
    fix = fix if kind_of(fix) == "place" else _with_state(fix)  # "Cambridge, Mass": the state said short
    return not (kind_of(fix) == "place" and ("," in fix or places.notable(fix) or places.same_region(value, fix)))


_STATES_SHORT = re.compile(r",\s*(?:(?-i:[A-Z]{2})|mass|calif|cali|penn|fla|tex|colo|wash|ariz|mich|minn|wis|wisc|conn|ore|"
                           r"ill|ind|tenn|ky|la|md|va|ga|ala|okla|kans|neb|nev|ont|que)\.?$", IC)


def _with_state(fix: str) -> str:
    """A place said with its state short ("Cambridge, Mass", "Boulder, CO"): the place; any other value as said."""
    return _STATES_SHORT.sub("", fix)


def _region(value: str) -> bool:
    """Whether `value` is a US state or a country ("Oregon", "France")."""
    states, countries = gazetteer.regions()
    return gazetteer.fold(value) in states or gazetteer.fold(value) in countries


_LINKS = {"of", "de", "la", "le", "du", "da", "del", "van", "von", "the", "and", "y"}


def said_of(words: list[str]) -> bool:
    """A name followed by lower-case words ("Microsoft pays more"): a sentence about the value, not the value."""
    return bool(words) and words[0][:1].isupper() and any(w.isalpha() and w.islower() and w not in _LINKS for w in words[1:])


def kind_of(value: str) -> str:
    """"zone", "place" or "other": an amendment or a correction replaces a value of its kind."""
    if gazetteer.find_zone(value) and (value.isupper() or not gazetteer.find_place(value)):
        return "zone"
    return "place" if gazetteer.find_place(value) else "other"


_TAKEN_BACK = re.compile(r"^(?:but |though |although |and |well,? )?(?:(?:i'm|i am|im|that's|that is|it's|it is|which is|"
                         r"i|i've)\s+(?:actually |really |honestly |in fact |totally |just )?"
                         r"(?:not|isn't|lied|was lying|was joking|was kidding|never been|lying|joking|kidding)|(?:just )?kidding|"
                         r"jk|not really|(?:lol|haha|ha|lmao),? no(?:pe)?|(?:ha,? )?i wish|not)"
                         r"(?:\s+(?:really|actually|at all|true|anymore|any more|one|lol|haha|tbh))*\s*[.!]*$", IC)


_KIDDING = re.compile(r"[,;]\s*(?:(?:just|only) )?(?:kidding|joking)(?:,? lol| haha)?\s*[.!]*$|[,;]?\s+(?:jk|j/k)\s*[.!]*$"
                      r"|(?:[,;]\s*|\s+)(?:not really|just kidding|(?:lol|haha|lmao|ha)[,\s]+(?:no(?:pe)?|not really|"
                      r"(?:just )?kidding))(?:,? lol| haha)?\s*[.!]*$"  # "im vegan not really", "im vegan haha no"
                      r"|(?:[,;]\s*|\s+)but (?:that's|that is|it's|it is|that was|it was) (?:not|n't|a lie|a joke)"
                      r"(?: true| really true)?\s*[.!]*$", IC)


def taken_back(clause: str) -> bool:
    """Whether a clause takes back what the user said before it: "(but) I'm actually not",
    "that's not true", "just kidding"."""
    return bool(_TAKEN_BACK.match(clause.strip()))


_KIDDING_ON = re.compile(r"^(?:(?:just|only) )?(?:kidding|joking)|^(?:jk|j/k)\b|^(?:lol|haha|ha),? (?:just )?kidding", IC)


def taken_back_at(sentence: str) -> int | None:
    """Where the take-back of the sentence before ends, when this sentence is one (None if not): the
    sentence's end ("Not really."), or, after "just kidding", where the rest starts ("Just kidding, still
    Boston": what the rest says is read as said)."""
    said = sentence.strip()
    if _TAKEN_BACK.match(said):
        return len(sentence)
    m = _KIDDING_ON.match(said)
    rest = re.match(r"\s*[,;:.!-]+\s*", said[m.end():]) if m else None
    return sentence.find(said) + m.end() + rest.end() if m and rest else None


_HEARSAY_SAID = (r"(?:(?:or )?so\s+)?(?:(?:my|our)\s+(?:\w+\s+)?[\w-]+|he|she|they|people|everyone|(?-i:[A-Z])[a-z]+)\s+"
                 r"(?:says|said|thinks|thought|claims|claimed|tells me|told me|insists|reckons)"
                 r"|(?:according to|says|per)\s+(?:my|our|his|her|their|the)\s+[\w\s-]+?"
                 r"|(?:(?:or )?so )?(?:i'm|i am|i was|i've been) told")
_HOPED_SAID = (r"(?:(?:hopefully|fingers crossed|soon|eventually|someday|one day|if all goes well|god willing|"
               r"i hope|probably|maybe|perhaps|with luck|touch wood|knock on wood)\b[\s,]*)+")
_HEARSAY = re.compile(rf"^(?:{_HEARSAY_SAID})\s*[.!]*$", IC)
_HOPED = re.compile(rf"^(?:{_HOPED_SAID})\s*[.!]*$", IC)
_NOT_SO_TAIL = re.compile(rf"(?:\s*[,;]\s*|\s+)(?P<h>{_HEARSAY_SAID})\s*[.!]*$|\s*[,;]\s*(?:{_HOPED_SAID})\s*[.!]*$", IC)
HEARSAY = "what someone else says of the user (\"..., my wife says\"), not the user's own statement"
HOPED = "said as a hope or a guess (\"..., hopefully soon\"), not a current fact"


def not_so(clause: str) -> str | None:
    """Why a clause said right after a statement makes it no fact of the user's: reported speech
    ("my wife says", "according to my wife", "or so I'm told") or a hope ("hopefully soon")."""
    said = clause.strip(" ,;")
    return HEARSAY if _HEARSAY.match(said) else HOPED if _HOPED.match(said) else None


def not_so_after(clause: str) -> str | None:
    """Why a clause is no fact of the user's by what it ends with: "I live in Chicago, according to my
    wife", "now at Meta, hopefully soon" (as `not_so`, said inside the clause)."""
    m = _NOT_SO_TAIL.search(clause.strip())
    return None if m is None else HEARSAY if m.group("h") else HOPED


def kidding(clause: str) -> bool:
    """Whether a clause takes itself back: "I'm vegan, just kidding", "I said I'm vegan, but that's not true"."""
    return bool(_KIDDING.search(clause.strip()))
