"""A value said as how things are now, its slot left to the past statement said just before it
(or just after it: "I'm at Meta now, I used to work at Google"): "I worked at Google, now I'm at
Meta", "I used to live in Austin, now Denver", "I was at Google until May. These days I'm with
Meta", "I left Google, now I'm at Meta". The now part names no slot
of its own ("I'm at Meta" alone may be a visit); the past statement does once said in the present
("I worked at" is "I work at"). The now part is read as that statement in the present with its
value in place ("now I work at Meta"), so it is the user's value and replaces the one before it.

Only a value of the slot's kind is taken (`amends.same_kind`, `amends.fits`): "I worked at
Google, now I'm at the airport" or "..., now I'm at home" is no employer, and "I used to live in
Austin, now I'm at the office" names no place to live. A now part that reads by itself ("now I
live in Denver") is left as said.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from . import amends, framing, names
from . import clauses as cl
from .unnamed_job import OLD, UNNAMED, left_now

IC = re.IGNORECASE
MAX_WORDS = 4
ValueIn = Callable[[str], "tuple[str, str] | None"]

_NOW = r"(?:right now|now|nowadays|these days|currently|at present|at the moment)"
"""How things are now, set against the past statement: "right now" and "at the moment" too ("I was at Google until
May. Right now I'm at Starbucks": the past statement says a job, so the now part does). Alone, "I'm at Starbucks right
now" names no slot and stays a visit; "today" is a day's ("Today I'm at Meta"), no now part."""
_BE = r"(?:i'm|i am|im|it's|it is|its)"
_CONJ = r"(?:(?:but|and|so|though|whereas)\s+)?"
_NOW_PART = re.compile(rf"^{_CONJ}(?:{_NOW}\b[,\s]+(?:{_BE}\s+)?|{_BE}\s+(?:now|currently)\s+)(?P<rest>.+?)[\s.!]*$"
                       rf"|^{_CONJ}{_BE}\s+(?P<later>.+?)\s+(?:right now|now|these days|nowadays|at the moment)[\s.!]*$", IC)
_SPLIT = re.compile(rf"(?:\s*[,;]|\s+[-–—]+)\s*(?={_CONJ}{_NOW}\b)", IC)
"""Where a past statement and a now part said without a subject meet: "I used to work at Google, now Meta"."""

_PAST = re.compile(r"^(?:[\w',]+\s+){0,3}?(?P<subj>i|we)\s+(?:(?:previously|formerly|once|also|still|just)\s+)?"
                   r"(?P<verb>used to be|used to|was working|were working|was living|were living|was employed|"
                   r"were employed|was|were|had|worked|lived|spoke|stayed|studied)\b(?P<rest>.*)$", IC)
_PRESENT = {"used to be": "am", "used to": "", "was working": "work", "were working": "work", "was living": "live",
            "were living": "live", "was employed": "am employed", "were employed": "are employed", "was": "am",
            "were": "are", "had": "have", "worked": "work", "lived": "live", "spoke": "speak", "stayed": "stay",
            "studied": "study"}
_OLD = re.compile(r"^(?P<my>my|our)\s+(?:old|previous|former|last)\s+(?P<what>[\w ]+?)\s+(?:was|used to be)\b(?P<rest>.*)$", IC)
_WHEN = re.compile(r"\s+(?:until|till|up until|through|since|between|back in|in (?:19|20)\d\d|from (?:19|20)\d\d|"
                   r"for (?:\d+|a few|a couple of|many|several|some|two|three|four|five|ten|years|months|ages|a decade|"
                   r"a long time)\b)\b.*$", IC)
"""When a past statement held, no part of its value ("until 2023", "for 5 years")."""
_JOB_SAID = re.compile(r"\b(?:work|worked|working|works|job|jobs|employ\w*|company|firm|gig|career|quit|resigned|left|"
                       r"laid off|fired|let go)\b", IC)
_HOME_SAID = re.compile(r"\b(?:live|lived|living|lives|resided|home|moved)\b", IC)
_SAID_SLOT = {"user.employer": _JOB_SAID, "user.location": _HOME_SAID}
"""The words a past statement says its slot with: "I was at Google earlier" or "I was in Boston" is no job or
home said ("now I'm at Starbucks", "now Chicago" may be a visit); "I worked at Google", "I used to live in
Boston" are, and so is a stay said with its months or years (`_tenured`)."""
_MONTH = (r"(?:january|february|march|april|may|june|july|august|september|sept|october|november|december|spring|summer|"
          r"fall|autumn|winter|christmas)")
_TENURE = re.compile(rf"\b(?:until|till|up until|through)\s+(?:(?:early|late|mid|last|this)[\s-]+)?(?:{_MONTH}|(?:19|20)\d\d|"
                     r"(?:last|this) (?:year|month))\b"
                     r"|\bfor\s+(?:\d+|a few|a couple of|a couple|many|several|two|three|four|five|six|seven|eight|nine|ten|"
                     r"fifteen|twenty)\s+(?:years|months)\b|\bfor (?:a year|a decade|years|ages|a long time)\b"
                     r"|\bfrom (?:19|20)\d\d\b|\bbetween (?:19|20)\d\d\b", IC)
"""A past stay said with its months or years ("until May", "for 5 years", "from 2019 to 2023"): a job or a home, not
a visit ("until 3pm", "until Friday", "last week")."""
_SCHOOL = re.compile(r"\b(?:university|college|school|academy|institute|(?-i:MIT|Harvard|Stanford|Yale|Princeton|Oxford|"
                     r"Berkeley|UCLA|NYU|Columbia|Cornell))\b", IC)
"""A school's name: "I was at MIT until 2020" may be a student's years, no job."""
_AT_NAME = re.compile(r"^(?P<lead>(?:[\w',]+\s+){0,3}?(?:i|we)\s+(?:(?:previously|formerly|once|also)\s+)?)"
                      r"(?:was|were|used to be)\s+(?P<prep>at|with|in)\s+(?P<rest>(?-i:[A-Z]).*)$", IC)


def _tenured(past: str) -> str:
    """A past stay at or in a name said with its months or years, as the job or the home it says: "I was at Google
    until May" -> "I worked at Google until May"; "I was in Boston for 5 years" -> "I lived in Boston for 5 years".
    Any other past statement as said."""
    m = _AT_NAME.match(past.strip(" ,;"))
    if m is None or not _TENURE.search(m.group("rest")) or _SCHOOL.search(m.group("rest")):
        return past
    verb = "lived in" if m.group("prep").lower() == "in" else f"worked {m.group('prep').lower()}"
    return f"{m.group('lead')}{verb} {m.group('rest')}"


_STAY = re.compile(r"\b(?:until|till|through|for (?:a|the|an|this|two|three|\d+) \w+|this (?:week|weekend|month)|tonight|"
                   r"today|tomorrow|for now|hopefully|soon|probably|maybe|perhaps|eventually|someday)\b", IC)
"""A now part said with an end, an occasion or a hope: "now I'm in Paris until Friday", "now at Meta hopefully soon"."""
_DOING = re.compile(r"^(?:just\s+|still\s+)?(?!(?:thing|nothing|something|anything|everything|king|spring|string|sing|"
                    r"ring|wing|morning|evening|during|according|loving|enjoying|liking|hating)\b)[a-z]{2,}ing\b", IC)
"""What the user is doing said after a now part ("..., waiting for a friend", "..., working on my resume"): where the
user is at the moment, no job."""
_VENUE = re.compile(r"\s(?:airport|park|stadium|arena|square|beach|mall|hotel|inn|museum|zoo|station|terminal|resort|pier|"
                    r"plaza|cafe|café|gym|bar|pub|theater|theatre|cinema)$|^(?:heathrow|gatwick|o'hare|jfk|lax|sfo|dulles|"
                    r"changi|schiphol|disneyland|disney world|disneyworld|walt disney world|epcot|universal studios)$", IC)
"""A place people visit ("now I'm at Heathrow", "right now I'm at Central Park"): where the user is, no employer."""
_STUDIED = re.compile(r"\b(?:studied|studying|student|school|college|university|grad|majored|enrolled)\b", IC)
_THERE = re.compile(r"^(?:(?:and|but|so)\s+)?(?:(?:now|currently|right now|today|at the moment),?\s+)?(?:i'm|i am|im)\s+"
                    r"(?:(?:now|currently|still)\s+)?(?:at|with)\s"
                    r"|^(?:(?:and|but|so)\s+)?(?:now\s+)?(?:i study|i'm studying|i'm a student)\b", IC)


def only_there(clause: str) -> bool:
    """Whether a clause says only where or with whom the user is ("I'm at Meta for a conference",
    "now I'm at Meta") or where the user studies ("now I study at Stanford"): no job said, whatever
    a model finds near it (a past job statement before it is `carried`'s)."""
    return bool(_THERE.match(clause.strip()))


_SAID_AS = {"user.employer": "I work at ", "user.location": "I live in "}
_TOOK = re.compile(r"^(?:[\w',]+\s+){0,2}?(?:i|we)\s+(?:(?:just|recently|finally)\s+)?(?:left|quit|resigned from|"
                   r"(?:was|got) (?:laid off|fired|let go) from|moved (?:out of|away from|from))\s+(?P<v>.+)$", IC)
"""The statement of a value the past part takes away ("I left Google", "I moved out of Austin")."""
_NOT_NOW = re.compile(r"^(?:(?:[\w',]+\s+){0,2}?(?:i|we)(?:'m|'re| am| are|m)?\s+)?(?:(?P<gone>no longer)|not|don't|do not)\s+"
                      r"(?:(?P<job>work|working|employed)\s+|(?P<home>live|living|based|reside|residing)\s+)?"
                      r"(?P<prep>at|with|for|in|(?<=employed )by)\s+(?P<v>.+?)(?P<any>\s+(?:anymore|any more|any longer))?$", IC)
"""A value said as no longer so ("I'm no longer at Google", "I don't work at Google anymore", "I no longer live in
Leeds"; "No longer at Google", its "I'm" left out): the slot by its verb, else by its preposition (in: a home;
at, with, for: a job); a lasting state ended, so the now part after it ("..., I'm at Meta now") is that slot's
new value, as after "I left Google"."""
_WORK = {"job", "work", "workplace", "employer", "company", "firm", "gig", "day job"}
_PREPS = {"at", "with", "for", "in", "on", "to", "from", "by", "near"}
_FOR_WORK = {"at", "with", "for"}
_ARTICLES = {"a", "an", "the"}


def carried(text: str, value_in: ValueIn) -> str:
    """`text` with each now part that names no slot read as the past statement next to it, in the
    present, with the now part's value: "I worked at Google, now I'm at Meta" -> "I worked at
    Google, now I work at Meta"."""
    parts = [p for s in cl.sentences(text) for c in cl.clauses(s) for p in _parts(c)]
    cursor = 0
    for i, (said_on, inside) in enumerate(parts):
        part, *tail = re.split(r"\s*[,;]\s*", said_on, maxsplit=1)  # "now I'm at Meta, sorry for the delay": the part to it
        at = text.find(part, cursor)
        if at < 0:
            continue
        cursor = at + len(part)
        # the past statement before it, else the one after it ("I'm at Meta now, I used to work at Google")
        pasts = [parts[j][0] for j in (i - 1, i + 1) if 0 <= j < len(parts)]
        doing = bool(tail and _DOING.match(tail[0]))  # "now I'm at Starbucks, waiting for a friend": a visit
        said = next((s for p in pasts if (s := _said_now(p, part, value_in, alone=not inside, doing=doing)) is not None),
                    None)
        if said is not None:
            text = text[:at] + said + text[cursor:]
            cursor = at + len(said)
    return text


def _parts(clause: str) -> list[tuple[str, bool]]:
    """A clause, or its past statement and its now part when no subject starts the now part
    (then the now part is said inside the clause: True)."""
    m = _SPLIT.search(clause)
    if m and m.start() > 0 and framing.framed(clause[:m.start()])[1] == framing.PAST:
        return [(clause[:m.start()], False), (clause[m.end():], True)]
    return [(clause, False)]


def _said_now(past: str, part: str, value_in: ValueIn, *, alone: bool, doing: bool = False) -> str | None:
    """The now part `part` as the statement it makes after `past`, or None. A now part that is a
    clause of its own and reads by itself ("now I live in Denver") is left as said; one followed by
    what the user is doing there (`doing`) names no employer."""
    m = _NOW_PART.match(part.strip())
    if m is None:
        return None
    rest = (m.group("rest") or m.group("later")).strip(" ,")
    conj = re.match(_CONJ, part.strip(), IC)
    if _STUDIED.search(past) and framing.framed(past.strip(" ,;"))[1] == framing.PAST and re.match(r"(?:at|in)\s", rest, IC):
        return f"{conj.group(0) if conj else ''}now I study {rest}"  # "I studied at MIT, now at Stanford": a school
    if alone and value_in(cl.unhedged(part)) is not None:
        return None
    past = _tenured(past)  # "I was at Google until May": a job
    reading = _reading(past, value_in)
    if reading is None:
        return None
    entity, old, head = reading
    if (entity in _SAID_SLOT and not _SAID_SLOT[entity].search(past) and not _no_longer(past)) or _STAY.search(rest):
        return None  # "I was in Boston, now Chicago": a trip; "now I'm in Paris until Friday": a stay
    fix = _value(rest, old, head)
    if fix is None or len(fix.split()) > MAX_WORDS or amends.said_of(fix.split()) or cl.about_user(fix) \
            or (old[:1].isupper() and not fix[:1].isupper()) \
            or not amends.same_kind(entity, old, fix) or not amends.fits(entity, old, fix) \
            or (entity == "user.employer" and (doing or names.person(fix) or _VENUE.search(fix))):
        return None  # "..., now I'm at the gym": no name where a name was; "now I'm with Sarah": a person
    statement = head + amends.shaped(entity, old, fix)
    found = value_in(statement)
    if found is None or found[0] != entity or fix.lower() not in found[1].lower():
        return None
    return f"{conj.group(0) if conj else ''}now {statement}"


def _reading(past: str, value_in: ValueIn) -> tuple[str, str, str] | None:
    """(entity, value, the statement in the present up to its value) of a past statement."""
    said = past.strip(" ,;")
    if framing.framed(said)[1] == framing.PAST and (now := _present(said)) is not None:
        found = value_in(now)
        at = now.lower().rfind(found[1].lower()) if found and not found[1].startswith("not:") else -1
        if found and at >= 0:
            return found[0], found[1], now[:at]
        return None
    if (left := UNNAMED.match(said)) and not OLD.search(said) and left_now(left.group("rest")):
        return "user.employer", "", _SAID_AS["user.employer"]  # "I quit my job, now I'm at Meta": the job, no name said
    if (no := _no_longer(said)) is not None:  # "I'm no longer at Google": the value taken away
        found = value_in(no[1] + no[0].group("v"))
        if found and found[0] == next(e for e, h in _SAID_AS.items() if h == no[1]) \
                and found[1].lower() in no[0].group("v").lower():
            return found[0], found[1], no[1]
        return None
    took = _TOOK.match(said)  # "I left Google", "I moved out of Austin": the value taken away
    for entity, head in _SAID_AS.items() if took else ():
        found = value_in(head + took.group("v"))
        if found and found[0] == entity and found[1].lower() in took.group("v").lower():
            return found[0], found[1], head
    return None


def _no_longer(said: str) -> tuple[re.Match[str], str] | None:
    """A value said as no longer so (`_NOT_NOW`, with "no longer" or "anymore"), with the present statement of its
    slot ("I work at ", "I live in ")."""
    m = _NOT_NOW.match(said.strip(" ,;"))
    if m is None or not (m.group("gone") or m.group("any")):
        return None
    home = m.group("home") or (not m.group("job") and m.group("prep").lower() == "in")
    if home and m.group("prep").lower() != "in":
        return None  # "I no longer live with my parents": no place
    return m, _SAID_AS["user.location" if home else "user.employer"]


def _present(past: str) -> str | None:
    """A past statement said in the present ("I used to work at Google" -> "I work at Google")."""
    if m := _OLD.match(past):  # "My old job was at Apple": I work at Apple; "my old number was ...": my number is ...
        if m.group("what").lower() in _WORK:
            rest = m.group("rest")
            return "I work" + (rest if re.match(r"\s+(?:at|for|with)\b", rest, IC) else " at" + rest)
        return f"{m.group('my')} {m.group('what')} is{m.group('rest')}"
    m = _PAST.match(past)
    if m is None:
        return None
    verb = _PRESENT[m.group("verb").lower()]
    rest = _WHEN.sub("", m.group("rest"))  # "I worked at Google until 2023": I work at Google
    return re.sub(r"\s+", " ", f"{m.group('subj')} {verb}{rest}").strip()


def _value(rest: str, old: str, head: str) -> str | None:
    """The value a now part says, with the preposition the slot takes ("at Meta" after "I work at")."""
    if re.match(r"(?:at|on|in|every|by|from|around)\s", old, IC):
        return amends.with_lead(old, rest)  # "at 9am" ... "now 9:30": at 9:30
    words = rest.split()
    before = head.split()[-1].lower() if head.split() else ""
    if len(words) > 1 and words[0].lower() in _ARTICLES and before in _ARTICLES:
        words = words[1:]  # "I was a nurse, now a nurse practitioner": the article is said once
    if words and words[0].lower() in _PREPS:
        same = words[0].lower() == before or {words[0].lower(), before} <= _FOR_WORK
        if not same or len(words) == 1:
            return None
        words = words[1:]
    return " ".join(words) or None
