"""More statements a slot pattern reads that are not the user's lasting fact (as `asides`):
a statement the user moves to someone else ("I live in Denver, or rather my parents do") or into
the past ("..., or rather I was as a kid"),
a fictional or joking place ("I live in Hogwarts haha"), a budget for someone else's plan
("Budget: 2.5k CAD for my brother's trip"), a fact said for a condition or an occasion ("I
wake up at 7am when I'm on vacation") and employers said as one value ("I've worked at
Google and Meta"), a fact kept for part of the time only ("I live in Miami during the winter").
Each is reported in `unextracted` with its reason.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .. import gazetteer
from ..values import split_stance
from . import orgs, spending
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
    r"(?:\s+(?:do|does|did|is|are|was|were|has|have|lives?\s+there|works?\s+there))?(?=\s*(?:$|[.!,;]))"
    # any other owner of the statement, with its verb: "or rather my clients are", "our servers are", "or rather Sam is"
    r"|(?:^|[,;:]\s*|\s+[-–—]+\s*|\s+)(?:(?:or rather|rather|actually|i mean|well|sorry|wait|no wait|correction)\b[,:]?\s+)+"
    r"(?:(?:my|our)\s+(?!(?:\w+\s+)?(?:family|household|home)\b)(?:\w+\s+)?[\w-]+(?:'s|s')?|(?-i:[A-Z][a-z]+))"
    r"\s+(?:do|does|did|is|are|was|were|has|have)(?=\s*(?:$|[.!,;]))", IC)


_WAS = re.compile(r"(?:^|[,;:]\s*|\s+[-–—]+\s*|\s+)(?:(?:or rather|rather|actually|well|sorry|wait)\b[,:]?\s+)+"
                  r"i\s+(?:was|did|used to(?:\s+be)?|had|(?:worked|lived) (?:there|here))"
                  r"(?:\s+(?:as a (?:kid|child|teen|teenager)|growing up|in (?:college|school|high school)|before|once|then|"
                  r"back then|years ago|for (?:a while|years)|until (?:recently|last year)|in the past|at (?:one|some) point))?"
                  r"(?=\s*(?:$|[.!?;,]))", IC)
"""The statement itself moved into the past, with nothing new said: ", or rather I was as a kid", ", or rather I did"
(not ", well I was at Meta before" nor ", sorry I was unclear": the statement before still stands)."""
PAST = "said of the user, then put in the past (\"or rather I was as a kid\"): not how things are now"


_MEANING = re.compile(
    r"(?:[,;:]\s*|\s+[-–—]+\s*)(?:(?:by\s+)?(?:our|my|we|us)\s+i\s+mean|(?:our|my|we|us)\s+meaning|i\s+mean)\s+"
    rf"(?:(?:my|our)\s+(?:\w+\s+)?{_PERSON}(?:'s|s'|')?|(?-i:[A-Z][a-z]+)(?:'s|')?)(?=\s*(?:$|[.!,;]))", IC)
"""A statement the user says was someone else's: "Our rent went up to $2,100 — our meaning my parents'"."""
_MOVED_OUT = re.compile(
    r"(?:[,;:]\s*|\s+[-–—]+\s*|\s+)(?:(?:but|and|though|although)\s+)?(?:i|we)(?:'ve|\s+have)?\s+(?:(?:since|just|already|"
    r"recently|finally|then)\s+)*(?:moved out|moved away|left (?:the|that) (?:place|apartment|flat|house))"
    r"(?:\s+(?:of (?:there|it|that place)|since|last \w+|in \d{4}|a \w+ ago))*(?=\s*(?:$|[.!,;]))", IC)
"""A rent or home the user has since left: "My rent went up to $2,100 last year but I moved out"."""
LEFT = "said of a home the user has since left (\"but I moved out\"): not how things are now"


def moved_off(sentence: str) -> tuple[re.Match[str], str] | None:
    """Where a sentence moves what it said to someone else (", or rather my son is", "-
    actually my parents do"; not ", actually my son is too": the user still is) or into the
    past (", or rather I was as a kid"), and why."""
    if m := _MOVED.search(sentence) or _MEANING.search(sentence):
        return m, MOVED
    if m := _MOVED_OUT.search(sentence):
        return m, LEFT
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
_JEST = re.compile(r"\bin (?:my|your) (?:dreams|wildest dreams)\b|\byeah,? right\b|\bas if\b|\bi wish\b"
                   r"|^\W*sure,?\s+and\b|\b(?:kidding|joking|jk|j/k)\b|[😜😉]|;\)|:p\b", IC)
"""Sarcasm, a daydream or a joke said as one: "Yeah right, ...", "Sure, and I pay $10 rent", "in my dreams", "jk"."""
_LAVISH = re.compile(r"\b(?:millions?|billions?|trillions?|gazillion|bazillion|bajillion|zillion)\b"
                     r"|\d\s*(?:m|mm|mil|bn|b)\b|\d{1,3}(?:,\d{3}){2,}", IC)
"""An amount in the millions: with a laugh ("I make $1 million a year lol"), a boast said in jest."""


def joking(clause: str) -> bool:
    """Whether a clause is said in jest or as a daydream ("Sure, and I pay $10 rent, haha", "I make
    $80k a year in my dreams", "Yeah right, I make $1 million a year, lol"): an amount said so is no
    fact about the user's money. A laugh alone is no joke ("I pay $2,500 rent lol": the rent, said
    with a sigh), save after an amount in the millions ("I make $2 million a year haha")."""
    return bool(_JEST.search(clause) or (_JOKING.search(clause) and _LAVISH.search(clause)))


def _fictional(clause: str, value: str) -> bool:
    place = split_stance(value)[1].strip().lower()
    return place in _FICTIONAL or f"the {place}" in _FICTIONAL or (
        bool(_JOKING.search(clause)) and not gazetteer.find_place(value))


_FOR_THEM = re.compile(rf"\b(?:for|on) (?:my|our|the) (?:\w+ )?{_PERSON}(?:'s?(?=\s)|s'|(?=\s*(?:$|[.,;:!?)])))", IC)
_MY_MONEY = re.compile(r"\b(?:my|our)\s+(?:[\w-]+\s+)?budget\b|\b(?:i|we)(?:'ve|'m|'re|\s+have|\s+can|\s+will|\s+plan)\b", IC)
"""Said as the user's own money, whatever it is for: "My budget is $300 for my husband's birthday present", "I have $50
for my mom's gift" (a bare "Budget: X for my brother's trip" is one someone else spends)."""
_CONDITION = re.compile(
    r"\b(?:when|whenever|if|while|only when)\s+(?:i|we)(?:'m|'re|\s+am|\s+are)?\s+(?!(?:was|were|got|had|did|went|"
    r"came|moved|married|retired|started|left|turned|became|joined|graduated|first|used|still|born|not)\b)"
    r"|\b(?:on|during)\s+(?:(?:a|my|the|our)\s+)?(?:vacations?|holidays?|trips?|business trips?|days? off|travel|breaks?|"
    r"time off|leave)\b|\bwhen (?:traveling|travelling|on vacation|on holiday|on the road|abroad|away|sick)\b"
    r"|\b(?:when|if|where|whenever) (?:possible|i can)\b", IC)
_SOME_DAYS = re.compile(r"\bonly on\b|\bon (?:the )?(?:weekdays|weekends?)\b|\bat home\b", IC)
"""A diet kept only some days or places ("dairy free only on weekdays", "vegan at home"; a routine "on weekdays" is the
user's)."""
_DAYS = r"(?:mon|tues|wednes|thurs|fri|satur|sun)days"
_PART_TIME = re.compile(
    r"\b(?:during\s+(?:the\s+|my\s+)?|(?:in|over|through(?:out)?)\s+(?:the\s+|my\s+|(?!(?-i:[A-Z]))))(?:(?:winter|summer|spring|fall|autumn|cold|warm|hot|"
    r"rainy|dry|off|holiday|tourist|ski)\s+)?(?:winters?|summers?|springs?|falls?|autumns?|seasons?|semesters?|terms?|"
    r"(?:school|academic) years?)\b(?!\s+(?:of\s+)?(?:\d{4}|\d{2}\b))"
    r"|\bfor (?:the|a) (?:winter|summer|spring|fall|autumn|season|semester|term|school year)\b"
    r"|\b(?:winters|summers|every (?:winter|summer|spring|fall|autumn|year from)|half (?:of )?the (?:year|time|week)|"
    r"part of the (?:year|week|time)|(?:some|most|a few|\w+) months (?:a|of the|each|every) year|seasonally|"
    r"part[- ]time|snowbird|(?:winter|summer|weekend|weekday)s? only)\b"
    r"|\b(?:during|for|over|in|through(?:out)?) (?:the )?(?:lent|ramadan|passover|advent|yom kippur|holy week|"
    rf"the holidays|the week|weeknights)\b|\b(?:on|every|most|some)\s+(?:other\s+)?{_DAYS}\b|\bon\s+(?:the\s+)?"
    r"(?:weekdays|weekends?|workdays|work days|weeknights)\b|\b(?:some|most|certain|other) days\b", IC)
"""A fact kept for part of the time only: "I live in Miami during the winter", "I'm vegetarian during Lent", "vegan on
Fridays" (not "the winter of 2019": a date; nor "for a year", "for months": how long, not part of the time; nor "in
Winter Park", "in Spring, Texas": a capitalised name is a place, not a season)."""
_SETTLING = re.compile(r"\b(?:moved|relocated|moving|settled|since|started|became|went|turned|switched|converted|"
                       r"been|ago)\b", IC)
"""A change said with the time it happened ("I moved to Miami in the winter", "I went vegan in the summer"): not part time."""
PART_TIME = "said for part of the time only (\"during the winter\", \"on Fridays\"), not the user's usual fact"
_ROUTINE_IF = re.compile(r"\b(?:if|whenever)\b(?!\s+not\b)", IC)
"""A routine said with any condition: "I wake up at 5am if the baby cries" (not "at 6am, if not earlier")."""
_NOT_A_CONDITION = re.compile(r"\b(?:even|except|not even|unless)\s+$", IC)
"""What makes a condition an exception to a fact the user states anyway: "I'm vegan, even when I travel"."""
_NEXT = re.compile(r"\s+(?:and|but|though|although|yet)\s|,\s*(?!(?:(?:even|except|only|unless)\s+)?"
                   r"(?:when|whenever|if|while|on|during)\b)(?!\s*(?:winter|summer|weekend|weekday)s? only\b)", IC)
"""Where the part a value is said in ends: a condition after it is of another statement ("I live in Denver and go to
Aspen on vacation", "I wake up at 6, but at 8 on vacation")."""


def _conditional(clause: str, drafts: Sequence[Draft], pattern: re.Pattern[str]) -> bool:
    """Whether a condition restricts the part of `clause` a value of `drafts` is said in."""
    for d in drafts:
        value = split_stance(d.value)[1].lower()
        low = clause.lower()
        said = next((v for v in (value, value.replace("-", " "), value.split(" ")[-1]) if v and v in low), "")
        # where the part the value is said in ends: "at 10pm, or 11 if there's a game" goes on past the value's comma
        end = m.start() if (m := _NEXT.search(clause, low.find(said) + len(said) if said else 1)) else len(clause)
        if any(not _NOT_A_CONDITION.search(clause, 0, c.start()) for c in pattern.finditer(clause, 0, end)):
            return True
    return False


_CONDITIONED = ("user.schedule", "user.diet", "user.timezone", "user.location")
_JOINED = re.compile(r"(?:\s+(?:and|plus|then)\s+|,\s*(?:and\s+)?|\s*[&/+]\s*)"
                     r"(?!(?:co|company|sons|daughters|partners|associates|brothers|inc|llc|ltd|corp|gmbh|plc|sa|ag)\b)"
                     r"(?-i:[A-Z])", IC)


_LIST_AFTER = re.compile(r"\s*,\s*(?-i:[A-Z])[\w&'.-]*(?:\s+(?-i:[A-Z])[\w&'.-]*)*,?\s+(?:and|or|&)\s+(?-i:[A-Z])")


_ONE_NAMES = frozenset((
    "johnson and johnson", "marks and spencer", "barnes and noble", "procter and gamble", "crate and barrel",
    "smith and wesson", "ernst and young", "stop and shop", "ben and jerry", "bausch and lomb", "sullivan and cromwell",
    "william and mary", "lewis and clark", "black and decker", "dolce and gabbana", "abercrombie and fitch",
    "bed bath and beyond", "arm and hammer", "simon and schuster", "lord and taylor", "bath and body works",
    "dun and bradstreet", "standard and poor", "tate and lyle", "marsh and mclennan", "baker and mckenzie",
    "kirkland and ellis", "latham and watkins", "allen and overy", "fortnum and mason", "holland and barrett",
    "church and dwight", "booz allen and hamilton", "harley and davidson", "at and t", "h and m", "b and q",
    "a and w", "m and t bank", "h and r block", "p and g", "j and j", "m and s", "ey and co", "deloitte and touche",
    "bang and olufsen", "ogilvy and mather", "young and rubicam", "larsen and toubro", "jenner and block",
    "arnold and porter", "debevoise and plimpton", "davis polk and wardwell", "skidmore owings and merrill",
    "mckinsey and company", "bain and company", "tiffany and co", "ben and jerrys", "barnes and noble booksellers",
    "slaughter and may", "pratt and whitney", "black and veatch", "washington and lee", "franklin and marshall",
    "johnson and wales", "ropes and gray", "shearman and sterling", "vinson and elkins", "harland and wolff",
    "holland and knight", "fish and richardson", "gibson dunn and crutcher", "stanley black and decker",
))
"""Well-known names of one company or school with "and" (or "&") in them ("Marks and Spencer", "Procter & Gamble"): one
employer. Any other two names joined by "and", "&", "/" or "+" are reported, not stored as one."""
_ONE_NAME = re.compile(r"^(\w+) and \1\b"  # "Johnson and Johnson"
                       r"|\s(?:college|university|company|co|institute|school|academy|hospital|bank|group|partners|associates|"
                       r"sons|brothers|llp|llc|inc|ltd|corp|corporation|foundation|museum|clinic|laboratories|labs)\.?$", IC)
"""A name one employer by its form: a word said twice, or a tail that names one body ("Lewis and Clark College")."""


_INITIALS = re.compile(r"^(?-i:[A-Z]{1,3})\s?[&/+]\s?(?-i:[A-Z]{1,3})\b")
"""Initials joined ("AT&T", "H&M", "S&P", "AC/DC"): one name by its form."""


def _one_name(employer: str) -> bool:
    if _INITIALS.match(employer.strip()):
        return True
    if orgs.FIRM.fullmatch(employer.strip()):  # "Morgan, Lewis & Bockius"; not "Google, Meta & Amazon"
        return not any(p.strip().lower() in orgs.COMPANIES for p in re.split(r"[,&]", employer))
    name = re.sub(r"\s*&\s*", " and ", employer.lower().strip(" .,")).replace("'s", "").replace("’s", "")
    return name in _ONE_NAMES or bool(_ONE_NAME.search(name))


_BOTH = re.compile(r"\b(?:both|two (?:jobs|employers|companies)|each of)\b", IC)


def _joined(clause: str, employer: str) -> bool:
    """An employer value that joins two ("Google and Meta"), or the first of a list the clause
    goes on with ("Google, Meta and Amazon"); not one name with "and" in it ("Marks and Spencer"). Joined by "&", "/"
    or "+" only, it is two only when a side is an employer known by its name ("Google & Meta") or the user says
    "both" ("both Acme & Initech"): "Pratt & Whitney", "Texas A&M", "Wieden+Kennedy" are one."""
    at = clause.find(employer)
    if _JOINED.search(employer) and not _one_name(employer) and not re.search(r"\s+(?:and|plus|then)\s+|,", employer):
        sides = [p.strip(" .").lower() for p in re.split(r"\s*[&/+]\s*", employer)]
        return any(p in orgs.COMPANIES for p in sides) or bool(_BOTH.search(clause))
    return (bool(_JOINED.search(employer)) and not _one_name(employer)) or (
        at >= 0 and bool(_LIST_AFTER.match(clause, at + len(employer))))


_ENDED = re.compile(
    r"\bbut\s+(?:it\s+|that\s+)?(?:didn't|did not|never|doesn't|does not|wouldn't)\s+(?:stick|last|work(?:\s+out)?|take)\b"
    r"|\bbut\s+(?:i\s+|we\s+)?(?:eventually\s+|soon\s+|later\s+|then\s+|finally\s+)?(?:gave\s+(?:it\s+|that\s+)?up|"
    r"stopped|quit|went back|switched back|caved|fell off)\b(?!\s+(?:eating|drinking|using|buying|smoking|taking)\b)"
    r"|\bfor a (?:while|bit|(?:few|couple(?: of)?) (?:days|weeks|months|years)|day|week|month|year)\s+(?:but|until|before)\b",
    IC)
"""A state the clause says ended: "I went vegan for a month but it didn't stick", "I was keto for a while but gave up"."""
ENDED = "said as a state that ended (\"but it didn't stick\", \"for a while but\"), not how things are now"


_HOPED_IN = re.compile(r"\s(?:hopefully|soon|eventually|someday|probably|maybe|perhaps)\b", IC)
HOPED = "said as a hope or a plan (\"hopefully soon\"), not a current fact"


def caveat(clause: str, drafts: Sequence[Draft]) -> str | None:
    """Why the values a pattern or a typed finder read in `clause` are not the user's lasting
    fact, or None."""
    entities = {d.entity for d in drafts}
    if any(_HOPED_IN.search(split_stance(d.value)[1]) for d in drafts):
        return HOPED  # "I work at Meta hopefully soon": the value is hoped for, with the hope read into it
    if any(d.entity in _PLACED and _fictional(clause, d.value) for d in drafts):
        return FICTION  # "I live in Hogwarts haha" (not "I live in Denver lol")
    if any(e.startswith("user.budget") for e in entities) and _FOR_THEM.search(clause) and not _MY_MONEY.search(clause):
        return THEIR_PLAN  # "Budget: 2.5k CAD for my brother's trip"
    if drafts and _ENDED.search(clause):
        return ENDED  # "I went vegan for a month but it didn't stick"
    if reason := spending.caveat(clause, drafts):
        return reason  # "don't book anything over $200 a night": no budget of the user's
    if _conditional(clause, [d for d in drafts if d.entity.startswith(_CONDITIONED)], _CONDITION) or _conditional(
            clause, [d for d in drafts if d.entity.startswith("user.schedule")], _ROUTINE_IF) or _conditional(
            clause, [d for d in drafts if d.entity == "user.diet"], _SOME_DAYS):
        return CONDITIONAL  # "I wake up at 7am when I'm on vacation", "I'm vegan when I'm at home"
    if not _SETTLING.search(clause) and _conditional(
            clause, [d for d in drafts if d.entity.startswith(("user.diet", "user.location"))], _PART_TIME):
        return PART_TIME  # "I live in Miami during the winter", "I'm vegetarian during Lent"
    if any(d.entity == "user.employer" and _joined(clause, split_stance(d.value)[1]) for d in drafts):
        return JOINED  # "Google and Meta" is two employers (not "Procter & Gamble", "Smith and Sons")
    return None
