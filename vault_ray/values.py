"""Canonical values: the form two claims are compared in, while the value as said
stays on the claim for display. Pure functions; the name tables come from
`gazetteer` (tzdata, CLDR, GeoNames).

    canonical("user.timezone", "PST") == canonical("user.timezone", "Pacific time")
        == "America/Los_Angeles"
    canonical("user.location", "NYC") == canonical("user.location", "New York") == "new york city"
    canonical("user.budget", "$5k") == canonical("user.budget", "five thousand dollars") == "5000 USD"
    canonical("user.location", "Chicago last month") == "chicago"

A value may carry a stance prefix: `likes:` / `dislikes:` (preferences) or `not:` (a
retraction, "I don't work at Acme anymore"); the prefix is kept and the rest is canonicalized.
What the tables do not know is folded (lowercase ASCII, articles, time words and a plural
`s` dropped), so unknown values still compare sensibly."""

from __future__ import annotations

import re
from functools import lru_cache

from . import gazetteer
from .amounts import DEFAULT_CURRENCY, PERIOD, amount_form, format_amount, parse_amount
from .clock_words import spoken_times
from .gazetteer import fold

STANCES = ("likes", "dislikes", "not")
CONSENT_GIVEN = "given"
CONSENT_WITHDRAWN = "withdrawn"

_ZONE_KEYS = {"timezone", "time_zone", "tz", "zone"}
_PLACE_KEYS = {"location", "city", "home", "country", "hometown", "residence", "address"}
_AMOUNT_KEYS = {"budget", "budget_authority", "spending_limit", "price", "amount", "salary", "income", "limit", "rent",
                "mortgage"}
_LANGUAGE_KEYS = {"language", "languages"}
_PHONE_KEYS = {"phone", "phone_number", "mobile", "cell", "telephone"}
_EMAIL_KEYS = {"email", "email_address", "e_mail"}
_NAME_KEYS = {"name", "first_name", "last_name", "full_name", "nickname", "preferred_name", "surname"}
_ORG_KEYS = {"employer", "company", "workplace", "organization", "organisation", "school", "university"}
_LEGAL_FORM = re.compile(r"(?:,?\s+(?:inc|incorporated|llc|l\.l\.c|ltd|limited|corp|corporation|co|company|gmbh|ag|sa|s\.a|"
                         r"plc|pty|bv|nv|srl|sas|oy|ab|as)\.?)+$", re.IGNORECASE)
_CALLING_2 = frozenset(str(code) for code in (20, 27, 30, 31, 32, 33, 34, 36, 39, 40, 41, 43, 44, 45, 46, 47, 48, 49, 51, 52,
                                               53, 54, 55, 56, 57, 58, 60, 61, 62, 63, 64, 65, 66, 81, 82, 84, 86, 90, 91,
                                               92, 93, 94, 95, 98))
"""The two-digit country calling codes (ITU E.164; 1 and 7 are one digit, every other is three,
and no code begins another: a number's code is read off its first digits)."""


def phone_form(said: str) -> str:
    """A phone number's comparison form: "+CC national-digits" when its country is known,
    else its national digits. "+1 415 555 0100", "1-415-555-0100" and "(415) 555-0100" are
    "+1 4155550100" (ten digits with an area code are North American); "+44 20 7946 0958" and
    "0044 20 7946 0958" are "+44 2079460958", and "+33 20 7946 0958" is another number. A
    national form with a trunk 0 ("020 7946 0958") names no country: "2079460958", which
    does not claim to be the +44 number (two countries' numbers must never read as one)."""
    digits = re.sub(r"\D", "", said)
    if said.strip().startswith("+") or digits.startswith("00"):
        digits = digits[2:] if digits.startswith("00") else digits
        code = 1 if digits[:1] in ("1", "7") else 2 if digits[:2] in _CALLING_2 else 3
        national = digits[code:].removeprefix("0")  # "+44 (0)20 ...": the trunk 0 written in
        return f"+{digits[:code]} {national}" if national else digits
    if len(digits) == 11 and digits.startswith("1") and digits[1] in "23456789":  # the North American trunk 1
        return f"+1 {digits[1:]}"
    if len(digits) == 10 and digits[0] in "23456789" and not said.strip().startswith("0"):
        return f"+1 {digits}"
    return digits[1:] if digits.startswith("0") and len(digits) > 6 else digits


_CONSENT = {
    "given": CONSENT_GIVEN, "granted": CONSENT_GIVEN, "yes": CONSENT_GIVEN, "opt-in": CONSENT_GIVEN,
    "opted in": CONSENT_GIVEN, "true": CONSENT_GIVEN, "agreed": CONSENT_GIVEN, "consent": CONSENT_GIVEN,
    "withdrawn": CONSENT_WITHDRAWN, "revoked": CONSENT_WITHDRAWN, "no": CONSENT_WITHDRAWN,
    "opt-out": CONSENT_WITHDRAWN, "opted out": CONSENT_WITHDRAWN, "false": CONSENT_WITHDRAWN,
    "refused": CONSENT_WITHDRAWN, "denied": CONSENT_WITHDRAWN, "not:given": CONSENT_WITHDRAWN,
}
TIME_WORDS = re.compile(
    r"\b(?:(?:last|this|next|past|previous) (?:week|month|year|weekend|summer|winter|spring|fall|autumn|night|time)"
    r"|(?:a|one|two|three|four|five|six|a few|few|a couple of|couple of|several|\d+) "
    r"(?:days?|weeks?|months?|years?) ago|(?:ago|yesterday|today|tonight|recently|lately|currently|anymore|any more"
    r"|right now|now|these days|nowadays|at the moment|at present|for now|again|already|still|just|since then)"
    r"|(?:since|as of|from|starting|in) (?:(?:19|20)\d\d|january|february|march|april|may|june|july|august"
    r"|september|october|november|december|monday|tuesday|wednesday|thursday|friday|saturday|sunday|today"
    r"|tomorrow|last \w+|next \w+))\b",
    re.IGNORECASE,
)
_ARTICLES = re.compile(r"^(?:the|a|an|some|my|our)\s+")


def value_kind(entity: str) -> str:
    """What a value of `entity` is: 'zone', 'place', 'amount', 'language', 'consent', 'phone',
    'email', 'org', 'name' or 'text'."""
    parts = entity.split(".")
    last = parts[-1]
    if last.startswith("favorite_") and len(parts) > 1:  # a favourite is a value of its kind: `favorite_city` a place
        return value_kind(".".join([*parts[:-1], last.removeprefix("favorite_")]))
    if last in _ZONE_KEYS:
        return "zone"
    if last in _PLACE_KEYS:
        return "place"
    if last in _AMOUNT_KEYS or "budget" in parts:
        return "amount"
    if last in _LANGUAGE_KEYS:
        return "language"
    if "consent" in parts or last.endswith("_consent"):
        return "consent"
    if last in _PHONE_KEYS:
        return "phone"
    if last in _EMAIL_KEYS:
        return "email"
    if last in _ORG_KEYS:
        return "org"
    if last in _NAME_KEYS:
        return "name"
    return "text"


def split_stance(value: str) -> tuple[str | None, str]:
    """'likes:sushi' -> ('likes', 'sushi'); a value without a stance -> (None, value)."""
    head, sep, rest = value.partition(":")
    if sep and head.strip().lower() in STANCES:
        return head.strip().lower(), rest.strip()
    return None, value


def canonical(entity: str, value: str | None) -> str:
    """The comparison form of `value` for `entity` (empty for no value)."""
    if value is None or not value.strip():
        return ""
    return _canonical(entity, value)


@lru_cache(maxsize=65_536)  # pure, and conflict checks compare the same few values again and again
def _canonical(entity: str, value: str) -> str:
    stance, rest = split_stance(value)
    kind = value_kind(entity)
    if kind == "consent":
        found = _CONSENT.get(fold(value)) or _CONSENT.get(fold(rest))
        if found:
            return found if stance != "not" else CONSENT_WITHDRAWN
    if entity.rsplit(".", 1)[-1] == "diet" and len(listed := _LISTED.split(rest)) > 1:
        # "vegan, gluten-free" and "gluten free and vegan": one diet of two parts, in either order
        body = ", ".join(sorted({canonical_of_kind(kind, p) for p in listed if p.strip()}))
    else:  # an income "under $100k" is not one of $100k; a budget "up to $5k" is one of $5k
        body = canonical_of_kind(kind, rest, ceiling_is_amount=bool(_CAPPED.search(entity)))
    return f"{stance}:{body}" if stance else body


_CAPPED = re.compile(r"budget|limit|cap|max|allowance|spend")
"""Amount entities said as a ceiling ('a budget of up to $5k' is a budget of $5k); any other amount
keeps its upper bound ('an income under $100k')."""
_LISTED = re.compile(r"\s*(?:,|\band\b|&|\+)\s*", re.IGNORECASE)
"""Between the parts of a value that lists several (`user.diet`: "vegan, gluten-free", `reasoners/diets.py`)."""


def canonical_of_kind(kind: str, value: str, *, ceiling_is_amount: bool = True) -> str:
    plain = strip_time_words(value)
    if kind == "zone":
        zone = gazetteer.find_zone(plain, cities=True)
        return gazetteer.same_clock(zone) if zone else fold_text(plain)
    if kind == "place":
        return gazetteer.find_place(plain) or fold_text(gazetteer.place_words(plain))
    if kind == "amount":
        return amount_form(plain, ceiling_is_amount=ceiling_is_amount) or fold_text(plain)
    if kind == "language":
        return gazetteer.find_language(plain) or fold_text(plain)
    if kind == "phone":  # "555-1234", "555 1234" and "(555) 1234" are one number, and "+1 555 123 4567" too
        return phone_form(plain) or fold_text(plain)
    if kind == "org":  # "Google" and "Google LLC", "Acme, Inc." and "Acme"
        return fold_text(_LEGAL_FORM.sub("", plain.strip()) or plain)
    if kind == "email":
        return plain.strip().lower()
    if kind == "name":  # spelled as said: "Mary" and "Marie", "Daniel" and "Daniels" are other people
        return " ".join(fold(value).replace("'", "").split())
    return fold_text(plain)


def strip_time_words(text: str) -> str:
    """'Chicago last month' -> 'Chicago'; 'vegan now' -> 'vegan'."""
    return " ".join(TIME_WORDS.sub(" ", text).split()).strip(" ,.;")


_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_MONTH = r"(?P<m{n}>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?" \
         r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
_DAY = r"(?P<d{n}>[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"
_DATE = re.compile(rf"\b(?:{_MONTH.format(n=1)}\s+{_DAY.format(n=1)}|{_DAY.format(n=2)}\s+(?:of\s+)?{_MONTH.format(n=2)})\b",
                   re.IGNORECASE)
_CLOCK = re.compile(r"\b(?P<h>[01]?\d|2[0-3])(?::(?P<min>[0-5]\d))?\s*(?P<half>a\.?m\.?|p\.?m\.?)?(?=\W|$)", re.IGNORECASE)


def _dates_and_times(text: str) -> str:
    """'March 5th' = '5 March' = 'the 5th of March' -> 'march 5'; '7pm' = '7:00 p.m.' = '19:00'
    -> '19:00', 'noon' = '12pm' -> '12:00' (a bare number is left alone: it need not be a time)."""
    def date(m: re.Match[str]) -> str:
        month = (m.group("m1") or m.group("m2")).lower()[:3]
        day = int(m.group("d1") or m.group("d2"))
        return f"{next(x for x in _MONTHS if x.startswith(month))} {day}"

    def clock(m: re.Match[str]) -> str:
        hour, minutes, half = int(m.group("h")), m.group("min"), (m.group("half") or "").lower()[:1]
        if not half and minutes is None:
            return m.group(0)
        if half and not 1 <= hour <= 12:
            return m.group(0)
        hour = hour % 12 + (12 if half == "p" else 0) if half else hour
        return f"{hour:02d}:{minutes or '00'}"

    text = _NUMERIC_DATE.sub(_numeric_date, _ORDINAL.sub(lambda m: f"{_ORDINALS.index(m.group(0).lower()) + 1}th",
                                                         spoken_times(text)))
    return _CLOCK.sub(clock, _DATE.sub(date, _NOON.sub(lambda m: "12:00" if m.group(0).lower() == "noon" else "00:00", text)))


_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh",
             "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth",
             "twentieth", *(f"twenty-{o}" for o in ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
                                                     "ninth")), "thirtieth", "thirty-first")
_ORDINAL = re.compile(r"\b(?:" + "|".join(sorted(_ORDINALS, key=len, reverse=True)) + r")\b(?=\s+of\s)", re.IGNORECASE)
_NUMERIC_DATE = re.compile(r"\b(?:(?P<y>(?:19|20)\d\d)[-/.](?P<m>\d\d?)[-/.](?P<d>\d\d?)|(?P<a>\d\d?)[/.](?P<b>\d\d?)[/.]"
                           r"(?P<z>(?:19|20)\d\d))\b")


def _numeric_date(m: re.Match[str]) -> str:
    """'1990-03-05', '25/12/1990' -> 'March 5 1990', 'December 25 1990'; '03/05/1990' stays (US and EU read it apart)."""
    a, b, year = (int(m.group("m")), int(m.group("d")), int(m.group("y"))) if m.group("y") else \
        (int(m.group("a")), int(m.group("b")), int(m.group("z")))
    if not m.group("y") and (a > 12) == (b > 12):  # only a day past 12 says which is which
        return m.group(0)
    month, day = (b, a) if a > 12 and not m.group("y") else (a, b)
    return f"{_MONTHS[month - 1].title()} {day} {year}" if 1 <= month <= 12 and 1 <= day <= 31 else m.group(0)


_NOON = re.compile(r"\b(?:noon|midnight)\b", re.IGNORECASE)


def fold_text(text: str) -> str:
    """Lowercase ASCII, no leading article, time words or punctuation; dates and clock
    times in one form; the last word without a plural 's' ('Peanuts' -> 'peanut', 'the
    cats' -> 'cat')."""
    words = fold(_dates_and_times(strip_time_words(text))).replace("'", "").split()
    out = _ARTICLES.sub("", " ".join(words)).split()
    if out:
        out[-1] = singular(out[-1])
    return " ".join(out)


def singular(word: str) -> str:
    """A comparison stem, not a spelling: 'movies' = 'movie' -> 'movi', 'cities' = 'city' ->
    'citi', 'peanuts' -> 'peanut', 'dishes' -> 'dish'."""
    if len(word) <= 3 or word.endswith(("ss", "us", "is", "ous")):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-2]
    if word.endswith("ie"):
        return word[:-1]
    if word.endswith("y") and word[-2] not in "aeiou":
        return word[:-1] + "i"
    if word.endswith(("ches", "shes", "xes", "sses", "oes")):
        return word[:-2]
    return word[:-1] if word.endswith("s") else word

__all__ = ["DEFAULT_CURRENCY", "PERIOD", "amount_form", "canonical", "format_amount", "parse_amount"]
