"""A change said as "from X to Y": the user's diet, job or employer is Y now, never X.
A routine moved to another time ("I switched my gym sessions to 7pm": `frames.schedule_frame`
reads it) and a food the user started eating again (the diets it ends) are changes too.

"I went from vegetarian to vegan" (vegan), "I went from being a teacher to a nurse" (nurse),
"I changed jobs from Amazon to Apple" (Apple). A move between places is read by the location
frame ("I moved from Chicago to Austin"); a trip ("I drove from Boston to New York") is no move.
"""

from __future__ import annotations

import re

from .. import gazetteer
from .lexicon import DIET_RE, DIETS, OCCUPATIONS, Draft, cut, is_capitalized

IC = re.IGNORECASE
CHANGE = re.compile(
    r"\b(?:i|we)(?:'ve| have)?(?:\s+(?:just|recently|finally|also|then|eventually|since))*\s+"
    r"(?P<verb>went|gone|switched|changed|moved|transitioned|converted|shifted|turned|jumped|transferred)"
    r"(?:\s+(?P<what>jobs|companies|employers|careers|diets|over|back))?\s+"
    r"from\s+(?:being\s+)?(?:an?\s+|the\s+|my\s+)?(?P<a>.+?)\s+to\s+(?:being\s+)?(?:an?\s+|the\s+)?(?P<b>.+)$", IC)
_WORK = re.compile(r"\b(?:jobs?|work(?:ing)?|compan(?:y|ies)|employers?|careers?|firms?)\b", IC)
_DIET_AT = re.compile(rf"^(?P<v>{DIET_RE})(?:\s+diet)?$", IC)


def change_frame(n: str) -> list[Draft]:
    """What the user changed to, when the clause says a change "from X to Y" of a diet, a job, or
    (with a word about work: "changed jobs", "switched companies") an employer."""
    m = CHANGE.search(n)
    if not m:
        return []
    new, old = cut(m.group("b")), cut(m.group("a"))
    if (d := _DIET_AT.match(new)) and _DIET_AT.match(old):
        return [Draft("user.diet", DIETS[d.group("v").lower()])]
    if not is_capitalized(new) and OCCUPATIONS.search(new) and OCCUPATIONS.search(old) and len(new.split()) <= 3:
        return [Draft("user.job", new)]
    if _WORK.search(n) or _WORK.search(m.group("what") or ""):  # "switched over from Chase to Ally" says no job
        return [Draft("user.employer", org)] if (org := employer_to(n)) else []
    return []


def employer_to(n: str) -> str | None:
    """The employer a "switched from Google to Meta" clause names as the new one (capitalized on
    both sides, no place), or None."""
    m = CHANGE.search(n)
    if not m or m.group("verb").lower() not in ("switched", "changed", "moved", "jumped", "went", "transferred"):
        return None
    new, old = cut(m.group("b")), cut(m.group("a"))
    new = re.split(r"\s+(?:in|as|for|with|after|because|and)\b|\s*[,;]", new, maxsplit=1, flags=IC)[0].strip()
    if not (is_capitalized(new) and is_capitalized(old)) or len(new.split()) > 4:
        return None
    return None if gazetteer.find_place(new) or gazetteer.find_place(old) else new


_DAYS = r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?|weekends?|weekdays?"
SCHEDULE_MOVED = re.compile(r"\bi (?:(?:just|recently|finally|now)\s+)?(?:switched|moved|changed|pushed|shifted|bumped|"
                             r"rescheduled)\s+(?:my|our|the) (?:weekly |daily |regular |usual )?(?P<thing>[a-z ]+?)\s+"
                             r"(?:back |up |forward )?to\s+(?P<when>(?:(?:at|around) )?(?:\d{1,2}(?::\d\d)?\s*(?:am|pm|a\.m\.|"
                             rf"p\.m\.)|\d{{1,2}}:\d\d|noon|midnight)(?![\w:])[^,;]*|(?:on )?(?:{_DAYS})\b[^,;]*)", IC)
"""A routine moved to another time ("I switched my gym sessions to 7pm"): its time now."""


_EATS_AGAIN = re.compile(r"\bi(?:'ve| have)?(?: (?:just|recently|finally|now|also))* (?:started|began|went back to|'m back to|"
                         r"am back to|started back) eating (?:some |a little |a bit of )?(?P<v>fish|seafood|salmon|tuna|shrimp|"
                         r"sushi|dairy|eggs|cheese|milk|honey|butter|yogurt|chicken|beef|pork|turkey|bacon|steak)\b", IC)
_EATING_ENDS = {"fish": ("vegan", "vegetarian"), "dairy": ("vegan",), "chicken": ("vegan", "vegetarian", "pescatarian")}
_FOOD_KIND = {"seafood": "fish", "salmon": "fish", "tuna": "fish", "shrimp": "fish", "sushi": "fish", "eggs": "dairy",
              "cheese": "dairy", "milk": "dairy", "honey": "dairy", "butter": "dairy", "yogurt": "dairy", "beef": "chicken",
              "pork": "chicken", "turkey": "chicken", "bacon": "chicken", "steak": "chicken"}
"""A food the user started eating, and the diets it ends ("I started eating fish again": not vegan, not vegetarian)."""


def eats_again(n: str) -> list[Draft]:
    """`not:` each diet a food the user started eating ends ("I started eating fish again": not vegan, not vegetarian;
    "dairy": not vegan); none when the clause denies it ("I never started eating fish")."""
    m = _EATS_AGAIN.search(n)
    if not m or re.search(r"\b(?:no|not|never|don't|stopped)\b", n[:m.start()], IC):
        return []
    food = m.group("v").lower()
    return [Draft("user.diet", f"not:{d}") for d in _EATING_ENDS[_FOOD_KIND.get(food, food)]]
