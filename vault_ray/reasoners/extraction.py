"""Rule-based extraction of first-person statements into facts (no network).

Each clause of the latest user turn is matched against a small set of patterns
for common user entities; whatever matches becomes a `Fact` with a normalized
`value` and a third-person `text` ("I'm in PST" -> "The user is in PST").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ..models import Fact

TIMEZONES = {
    "pst", "pdt", "pt", "mst", "mdt", "mt", "cst", "cdt", "ct", "est", "edt", "et", "akst", "hst", "utc", "gmt",
    "bst", "cet", "cest", "eet", "eest", "wet", "ist", "jst", "kst", "aest", "aedt", "acst", "awst", "nzst", "sgt",
    "hkt", "msk", "brt", "art",
}
DIETS = {
    "vegetarian", "vegan", "pescatarian", "omnivore", "carnivore", "keto", "paleo", "halal", "kosher",
    "gluten-free", "gluten free", "lactose intolerant", "flexitarian",
}
FOOD_WORDS = {
    "food", "cuisine", "pizza", "sushi", "pasta", "ramen", "curry", "tacos", "burgers", "burger", "steak", "salad",
    "italian", "japanese", "chinese", "mexican", "indian", "thai", "french", "korean", "vietnamese", "greek",
    "spicy", "coffee", "tea", "chocolate", "cheese", "seafood", "fish", "meat", "chicken", "beef", "pork", "tofu",
    "noodles", "rice", "bread", "dessert", "desserts", "cake", "ice", "fruit", "vegetables", "wine", "beer",
    "eggs", "dairy", "milk", "mushrooms", "olives", "peanuts", "cilantro", "garlic", "onions", "dumplings",
}
LIKE = r"(?:really\s+|absolutely\s+)?(?:love|like|enjoy|adore|am\s+into|prefer)"
DISLIKE = (
    r"(?:really\s+)?(?:hate|dislike|detest|can't\s+stand|cannot\s+stand|don't\s+like|do\s+not\s+like"
    r"|don't\s+eat|do\s+not\s+eat|avoid)"
)
_CLAUSE_SPLIT = re.compile(
    r"[.!?;]+\s*|,\s*(?:and\s+|but\s+)?(?=(?:i|i'm|my|the user)\b)|\s+(?:and|but)\s+(?=(?:i|i'm|my)\b)",
    re.IGNORECASE,
)
_SUBJECT_FIXES = [
    (re.compile(r"\bi am\b", re.I), "i'm"),
    (re.compile(r"\bi['’]m\b", re.I), "i'm"),
    (re.compile(r"\bim\b", re.I), "i'm"),
    (re.compile(r"^(?:the )?user is\b", re.I), "i'm"),
    (re.compile(r"^(?:the )?user's\b", re.I), "my"),
    (re.compile(r"^(?:the )?user\b", re.I), "i"),
    (re.compile(r"\bdo not\b", re.I), "don't"),
]
_VERB_S = {"have": "has", "do": "does", "go": "goes", "'m": "is"}
_ADVERBS = {"never", "always", "usually", "only", "also", "really", "absolutely", "often", "sometimes", "now", "still"}
_NO_S = {"is", "was", "has", "does", "can", "will", "would", "should", "could", "might", "must", "did", "don't",
         "doesn't"}


@dataclass(frozen=True)
class Rule:
    pattern: re.Pattern[str]
    build: Callable[[re.Match[str], str], Fact | None]


def split_clauses(text: str) -> list[str]:
    return [c.strip(" ,") for c in _CLAUSE_SPLIT.split(text) if c and c.strip(" ,")]


def normalize_subject(clause: str) -> str:
    out = first_person_verb(clause.strip())
    for pattern, repl in _SUBJECT_FIXES:
        out = pattern.sub(repl, out)
    return out


_THIRD_PERSON = re.compile(r"^(?:the )?user\s+((?:[a-z]+ly\s+|never\s+|always\s+|only\s+|also\s+|now\s+|still\s+)*)"
                           r"(?P<verb>[a-z']+)\b", re.IGNORECASE)
_FIRST_FORMS = {"has": "have", "does": "do", "goes": "go", "doesn't": "don't"}


def first_person_verb(clause: str) -> str:
    """'The user works at Acme' -> 'The user work at Acme': the verb of a third-person
    statement (what `third_person` writes) in the form the first-person rules read."""
    m = _THIRD_PERSON.match(clause)
    if m is None:
        return clause
    verb = m.group("verb")
    low = verb.lower()
    if low in _FIRST_FORMS:
        first = _FIRST_FORMS[low]
    elif low in _NO_S or not low.endswith("s") or low.endswith("ss"):
        return clause
    elif re.search(r"(ch|sh|ss|x|o)es$", low):
        first = verb[:-2]
    elif re.search(r"[^aeiou]ies$", low):
        first = verb[:-3] + "y"
    else:
        first = verb[:-1]
    return clause[:m.start("verb")] + first + clause[m.end("verb"):]


def third_person(clause: str) -> str:
    """'I'm in PST' -> 'The user is in PST'; 'I love sushi' -> 'The user loves sushi'."""
    words = normalize_subject(clause).split()
    out: list[str] = []
    i = 0
    while i < len(words):
        w, lw = words[i], words[i].lower()
        if lw == "i'm":
            out += ["the", "user", "is"]
        elif lw == "i":
            out += ["the", "user"]
            while i + 1 < len(words) and words[i + 1].lower() in _ADVERBS:
                out.append(words[i + 1])
                i += 1
            if i + 1 < len(words):
                nxt = words[i + 1].lower()
                if nxt == "don't":
                    out.append("doesn't")
                    i += 1
                elif nxt not in _NO_S and re.fullmatch(r"[a-z]+", nxt):
                    out.append(_VERB_S.get(nxt, nxt + ("es" if re.search(r"(s|sh|ch|x|o)$", nxt) else "s")))
                    i += 1
        elif lw == "my":
            out.append("the user's")
        elif lw in ("me", "myself"):
            out.append("the user")
        elif lw == "i've":
            out += ["the", "user", "has"]
        elif lw == "i'll":
            out += ["the", "user", "will"]
        else:
            out.append(w)
        i += 1
    text = " ".join(out).strip()
    return text[:1].upper() + text[1:] if text else text


def _clean(obj: str) -> str:
    obj = re.sub(r"^(?:the|a|an|some)\s+", "", obj.strip().lower())
    return re.sub(r"[^a-z0-9+\-: ']+", "", obj).strip()


def _food_object(obj: str) -> str:
    obj = _clean(obj)
    return re.sub(r"\s+(?:food|cuisine|dishes)$", "", obj).strip() or obj


def _is_food(obj: str) -> bool:
    return any(w in FOOD_WORDS for w in re.findall(r"[a-z]+", obj.lower()))


def _fact(entity: str, clause: str, value: str, kind: str = "semantic") -> Fact:
    return Fact(entity=entity, text=third_person(clause), value=value, kind=kind)


def _timezone(m: re.Match[str], clause: str) -> Fact | None:
    tz = m.group("v").lower()
    if tz in TIMEZONES or re.fullmatch(r"(?:utc|gmt)[+-]\d{1,2}(?::\d\d)?", tz):
        return _fact("user.timezone", clause, tz.upper())
    return None


def _in_place(m: re.Match[str], clause: str) -> Fact | None:
    place = _clean(m.group("v"))
    if place.split(" ")[0] in TIMEZONES or re.match(r"(?:utc|gmt)[+-]", place):
        return _fact("user.timezone", clause, place.split(" ")[0].upper())
    if not place or place.split(" ")[0] in {"a", "an", "love", "charge", "the"}:
        return None
    return _fact("user.location", clause, place)


def _diet(m: re.Match[str], clause: str) -> Fact | None:
    return _fact("user.diet", clause, m.group("v").lower().replace("gluten free", "gluten-free"))


def _preference(polarity: str) -> Callable[[re.Match[str], str], Fact | None]:
    def build(m: re.Match[str], clause: str) -> Fact | None:
        raw = m.group("v")
        obj = _food_object(raw) if _is_food(raw) else _clean(raw)
        if not obj:
            return None
        entity = "user.food_preferences" if _is_food(raw) else "user.likes"
        return _fact(entity, clause, f"{polarity}:{obj}")

    return build


def _only_eat(m: re.Match[str], clause: str) -> Fact | None:
    return _fact("user.food_preferences", clause, f"likes:{_food_object(m.group('v'))}")


def _simple(entity: str, *, prefix: str = "") -> Callable[[re.Match[str], str], Fact | None]:
    def build(m: re.Match[str], clause: str) -> Fact | None:
        value = _clean(m.group("v"))
        return _fact(entity, clause, f"{prefix}{value}") if value else None

    return build


def _job(m: re.Match[str], clause: str) -> Fact | None:
    value = _clean(m.group("v"))
    if not value or value in DIETS or value.split(" ")[0] in {"in", "from", "at", "allergic", "based", "called"}:
        return None
    return _fact("user.job", clause, value)


def _schedule(m: re.Match[str], clause: str) -> Fact | None:
    thing = re.sub(r"[^a-z0-9]+", "_", _clean(m.group("thing"))).strip("_")
    when = _clean(m.group("when"))
    if not thing or not when:
        return None
    return _fact(f"user.schedule.{thing}", clause, when, kind="procedural")


def _generic(m: re.Match[str], clause: str) -> Fact | None:
    attr = re.sub(r"[^a-z0-9]+", "_", _clean(m.group("attr"))).strip("_")
    value = _clean(m.group("v"))
    if not attr or not value or len(attr) > 40:
        return None
    entity = {"timezone": "user.timezone", "time_zone": "user.timezone", "name": "user.name"}.get(attr, f"user.{attr}")
    if entity == "user.timezone":
        value = value.upper()
    return _fact(entity, clause, value)


def _r(pattern: str, build: Callable[[re.Match[str], str], Fact | None]) -> Rule:
    return Rule(re.compile(pattern, re.IGNORECASE), build)


RULES: tuple[Rule, ...] = (
    _r(r"^my time ?zone is (?P<v>[a-z]+(?:[+-]\d{1,2}(?::\d\d)?)?)\b", _timezone),
    _r(r"^i'm (?:in|on) (?:the )?(?P<v>[a-z]{2,5}(?:[+-]\d{1,2}(?::\d\d)?)?)(?: time(?: ?zone)?)?$", _timezone),
    _r(r"^i(?:'m| live| moved| relocated)? (?:in|to|based in|living in) (?P<v>[a-z][a-z .'\-]+)$", _in_place),
    _r(r"^i live in (?P<v>[a-z][a-z .'\-]+)$", _in_place),
    _r(r"^i'm (?:a |an |now |strictly |fully )?(?P<v>" + "|".join(sorted(DIETS, key=len, reverse=True)) + r")\b", _diet),
    _r(r"^i (?:don't|never) eat (?:any )?meat\b", lambda m, c: _fact("user.diet", c, "vegetarian")),
    _r(r"^i only eat (?P<v>.+)$", _only_eat),
    _r(r"^i " + DISLIKE + r" (?P<v>.+)$", _preference("dislikes")),
    _r(r"^i " + LIKE + r" (?P<v>.+)$", _preference("likes")),
    _r(r"^i speak (?P<v>[a-z ]+)$", _simple("user.language")),
    _r(r"^my (?:native |first |preferred )?language is (?P<v>[a-z ]+)$", _simple("user.language")),
    _r(r"^(?:my name is|i'm called|call me) (?P<v>[a-z][a-z .'\-]*)$", _simple("user.name")),
    _r(r"^i'm allergic to (?P<v>.+)$", _simple("user.allergies")),
    _r(r"^i have (?:a|an|two|three|\d+) (?P<v>dogs?|cats?|parrots?|fish|hamsters?|rabbits?|birds?)\b", _simple("user.pets")),
    _r(r"^my birthday is (?:on )?(?P<v>.+)$", _simple("user.birthday")),
    _r(
        r"^(?:i (?:always )?pay|please charge|charge) (?:with|by|using|via|it to|to)?\s*(?:my )?(?P<v>.+)$",
        _simple("user.payment.method"),
    ),
    _r(r"^my (?:preferred )?payment method is (?P<v>.+)$", _simple("user.payment.method")),
    _r(r"^i work (?:at|for) (?P<v>.+)$", _simple("user.employer")),
    _r(r"^(?:i work as|my job is|i'm working as) (?:a |an )?(?P<v>.+)$", _job),
    _r(r"^i (?:go to|do|have|attend) (?:the |my )?(?P<thing>[a-z ]+?) (?P<when>(?:on|at|every|each|in the) .+)$", _schedule),
    _r(r"^my (?P<thing>[a-z ]+?) (?:is|are) (?P<when>(?:on|at|every|each) .+)$", _schedule),
    _r(r"^i'm (?:a |an )(?P<v>[a-z ]+)$", _job),
    _r(r"^my (?P<attr>[a-z ]+?) is (?P<v>.+)$", _generic),
)


def extract_clause(clause: str) -> Fact | None:
    norm = normalize_subject(clause)
    for rule in RULES:
        m = rule.pattern.search(norm)
        if m:
            fact = rule.build(m, clause)
            if fact is not None:
                return fact
    return None


def extract_text(text: str) -> list[Fact]:
    facts = []
    for clause in split_clauses(text):
        fact = extract_clause(clause)
        if fact is not None:
            facts.append(fact)
    return facts
