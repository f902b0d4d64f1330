"""Spending limits: what a money amount is a limit for.

A limit for one purchase or purpose ("Don't spend more than $40 on my birthday present", "My
budget for my mom's birthday gift is $100") is keyed by its purpose, `user.budget.birthday_present`,
as "my budget for the kitchen remodel" is; a cap per unit or per item ("nothing over $200 a
night", "don't buy anything over $50") is no budget of the user's at all, and a purpose no key
can be made of is reported: neither is ever stored as the user's overall budget (`user.budget`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .. import currencies, values
from .lexicon import Draft, cut

IC = re.IGNORECASE
AMOUNT = r"(?:[$€£¥]\s*)?\d[\d,.]*\s*(?:k|m|thousand|million|grand)?(?:\s*(?:[A-Za-z]{3}\b|dollars|bucks|euros|pounds))?"
_LIMIT = re.compile(
    r"\b(?:don't|do not|never|can't|cannot|can not|won't|shouldn't|mustn't|not)\s+"
    r"(?:(?:want|need|plan|going|able|allowed) to\s+)?(?:spend|pay|go|book|buy|get|order)\s+"
    r"(?P<any>anything\s+|something\s+)?(?:more than|over|above|past|beyond|in excess of|(?:that |which )?costs? more than)\s+"
    rf"(?P<v>{AMOUNT})(?P<rest>.*)$", IC)
_PER_UNIT = re.compile(r"^\s*(?:(?:a|per|each|every|/)\s*(?:night|person|head|item|ticket|piece|meal|plate|bottle|unit|"
                       r"seat|room|guest|kid|child|pair|gift|hour)\b|each\b|apiece\b|a pop\b)", IC)
_DETERMINERS = r"(?:the|my|our|a|an|this|that|these|those|his|her|their|your|one|some|new|[\w-]+'s)"
_PURPOSE = re.compile(rf"^\s*,?\s*(?:on|for)\s+(?P<p>(?:{_DETERMINERS}\s+)+[a-z][\w' -]*|[a-z][\w' -]*)", IC)
_NOT_PURPOSES = frozenset({"everything", "all", "it", "that", "this", "them", "now", "me", "us", "total", "the total",
                           "everything together", "the whole thing", "the month", "the year", "the week", "a month",
                           "a year", "a week", "the trip overall"})
_SLUG_DROP = frozenset({"the", "my", "our", "a", "an", "this", "that", "these", "those", "his", "her", "their", "your",
                        "one", "some", "new", "little", "big", "small", "whole", "entire", "total", "overall", "s", "rough",
                        "tight", "approximate", "estimated", "realistic", "real", "actual", "own", "personal"})
_STOP = re.compile(r"\s+(?:and|but|or|so|because|since|if|when|please|this|next|last|from|with|at|in|by|before|after|"
                   r"this month|per|a|each|every)\b.*$", IC)
_FOR = re.compile(r"\bbudget for\s+(?P<t>.+?)\s+(?:is|was|will be|of|=|:|'s)\s*(?:now\s+|about\s+|around\s+)?$", IC)
PER_UNIT = "a cap per night, item or person (\"nothing over $200 a night\"), not the user's overall budget"
HABIT = "what the user spends (\"I spend $20 at Starbucks every day\"), not a budget or limit of the user's"
_SPENDS = re.compile(r"\b(?:i|we)\s+(?:(?:usually|normally|typically|often|always|generally|probably|also|still|just|"
                     r"already)\s+)*(?:spend|spent|pay|paid|drop|blow)\s+"
                     r"(?:(?:about|around|roughly|like|almost|nearly|over|at least)\s+)?$", IC)
"""An amount said as spent, no modal nor limit ("I spend $20 at Starbucks every day"; not "I can spend $500")."""
_UNIT = re.compile(r"^\s*\d[\d,.]*\s*(?:k\s+)?(?:minutes?|mins?|hours?|hrs?|seconds?|secs?|days?|weeks?|months?|years?|words?|"
                   r"pages?|characters?|chars?|lines?|slides?|paragraphs?|sentences?|miles?|mi|km|kilomet(?:er|re)s?|"
                   r"met(?:er|re)s?|feet|foot|ft|inch(?:es)?|degrees?|calories?|kcal|grams?|kgs?|kilos?|lbs?|ounces?|oz|"
                   r"people|guests?|persons?|items?|steps?|reps?|percent|%|mph|kph|stars?)(?!\w)", IC)


def not_money(said: str) -> bool:
    """Whether a cap is said of something else than money ("Keep it under 5 minutes", "... 200 words", "Stay within
    3 miles"): no budget, though a bare number would read as dollars."""
    return bool(_UNIT.match(said))


_LEAD_BOUND = re.compile(r"\b(?P<b>up to|under|below|within|less than|at most|no more than|capped at|max(?:imum)?(?: of)?|"
                         r"a max(?:imum)? of|at least|a minimum of|minimum of|over|above|more than)\s*$", IC)
_NOT_KEPT = re.compile(r"\b(?:not|never|no longer|don't|do not|can't|cannot|won't|shouldn't|mustn't|doesn't|didn't)\b|n't\b"
                       r"|\b(?:anything|something|nothing|everything|whatever)\s+(?:that\s+)?(?:costs?\s+)?$", IC)


def with_bound(before: str, value: str) -> str:
    """An amount with the bound said right before it kept in its text ("Keep it under £200" -> "under £200", "I can
    spend at least $2,000" -> "at least $2,000"), as "My budget is under £200" keeps it; a bound after a denial ("I
    don't want to spend more than $50": a ceiling said as a denied floor) or said of anything ("nothing over $100": a
    cap per item) is left out, the amount alone being a ceiling."""
    m = _LEAD_BOUND.search(before)
    if not m or _NOT_KEPT.search(before[:m.start()]):
        return value
    return f"{' '.join(m.group('b').lower().split())} {value}"


ONE_PURCHASE = "a limit for one purchase (\"on this gift\"), not the user's overall budget"


def purpose(rest: str) -> str | None:
    """The key a limit's purpose makes ("on my birthday present" -> "birthday_present",
    "for my mom's birthday gift" -> "birthday_gift"), None when it says none, "" when it says
    one no key can be made of."""
    m = _PURPOSE.match(rest)
    if not m:
        return None
    said = _STOP.sub("", cut(m.group("p"))).strip().lower()
    if said in _NOT_PURPOSES:
        return None
    words = [w for w in re.findall(r"[a-z0-9]+(?:'s)?", said) if not w.endswith("'s") and w not in _SLUG_DROP]
    return "_".join(words[:3])[:40] if words and len(words) <= 3 else ""


def slug(topic: str) -> str:
    """A budget's purpose as a key, without its owner or its determiners ("my mom's birthday
    gift" -> "birthday_gift", "birthday party" -> "birthday_party"; "" for none: "my rough budget")."""
    words = [w for w in re.findall(r"[a-z0-9]+(?:'s)?", topic.lower()) if not w.endswith("'s") and w not in _SLUG_DROP]
    return "_".join(words)[:40]


def limit_frame(n: str) -> list[Draft]:
    """"Don't spend more than $40 on my birthday present" -> user.budget.birthday_present;
    "don't go over 3000 dollars" -> user.budget; a cap per unit or per item is left to `caveat`."""
    m = _LIMIT.search(n)
    if not m or values.parse_amount(amount(m.group("v"))) is None:
        return []
    topic = purpose(m.group("rest"))
    return [Draft(f"user.budget.{topic}" if topic else "user.budget", amount(m.group("v")))]


def amount(said: str) -> str:
    """An amount as said, without a three-letter word after it that is no currency ("$300 for")."""
    said = said.strip()
    last = said.split()[-1] if len(said.split()) > 1 else ""
    if re.fullmatch(r"[A-Za-z]{3}", last) and not currencies.currency_in(last):
        said = said[: -len(last)].strip()
    return said


def _after(clause: str, value: str) -> tuple[str, str] | None:
    said = values.split_stance(value)[1]
    at = clause.find(said)
    return (clause[:at], clause[at + len(said):]) if said and at >= 0 else None


def keyed(clause: str, drafts: Sequence[Draft]) -> list[Draft]:
    """The overall budgets read in `clause` keyed by the purpose said after their amount ("I can
    spend $500 on the new couch": user.budget.couch), and every plan's key in the singular ("Keep the
    flights under $800" and "My flight budget is $800": user.budget.flight)."""
    out = []
    for d in drafts:
        around = _after(clause, d.value) if d.entity == "user.budget" else None
        said = _FOR.search(around[0]) if around else None  # "my budget for my mom's birthday gift is $100"
        topic = (purpose(f" for {said.group('t')}") if said else purpose(around[1])) if around else None
        d = Draft(f"user.budget.{topic}", d.value, d.kind, d.text) if topic else d
        plan = d.entity.removeprefix("user.budget.") if d.entity.startswith("user.budget.") else ""
        out.append(Draft(f"user.budget.{one_plan(plan)}", d.value, d.kind, d.text) if plan else d)
    return out


_PLURAL_ONLY = frozenset({
    "clothes", "glasses", "sunglasses", "eyeglasses", "pants", "jeans", "shorts", "trousers", "leggings", "tights",
    "pajamas", "pyjamas", "goods", "supplies", "essentials", "toiletries", "headphones", "earphones", "scissors",
    "binoculars", "savings", "earnings", "belongings", "furnishings", "premises", "series", "species", "means", "news",
    "sweets", "spirits", "dues", "outdoors", "christmas", "vegas", "arts"})
"""Words a plan is said by in the plural only ("my clothes budget", "keep the glasses under $300"): kept as said."""
_IE = frozenset({"movies", "cookies", "hoodies", "smoothies", "brownies", "pies", "ties", "veggies", "beanies", "selfies",
                 "calories", "zombies", "freebies", "goodies"})
_OE = frozenset({"shoes", "toes", "canoes", "oboes", "hoes"})


def one_plan(key: str) -> str:
    """A budget's key with its last word in the singular, as "my flight budget" says it ("flights" -> "flight",
    "groceries" -> "grocery", "birthday_presents" -> "birthday_present", "dresses" -> "dress"); a word said in the
    plural only ("clothes", "glasses", "supplies") or no plural ("gas", "tennis", "electronics") is kept."""
    head, _, word = key.rpartition("_")
    if len(word) <= 3 or word in _PLURAL_ONLY or not word.endswith("s") or word.endswith(
            ("ss", "us", "is", "ics", "ous", "as", "ves", "'s")):
        return key
    if word in _IE or word in _OE:
        one = word[:-1]
    elif word.endswith("ies"):
        one = word[:-3] + "y"  # "groceries": grocery; "activities": activity
    elif word.endswith(("ches", "shes", "xes", "sses", "zes", "oes")):
        one = word[:-2]  # "lunches", "dishes", "taxes", "dresses", "potatoes"
    else:
        one = word[:-1]  # "flights", "hotels", "gifts", "courses", "toys"
    return f"{head}_{one}" if head else one


def caveat(clause: str, drafts: Sequence[Draft]) -> str | None:
    """Why an overall budget read in `clause` is no budget of the user's: an amount the user spends,
    a cap per unit or per item, or a limit for one purchase whose purpose no key can be made of."""
    for d in drafts:
        around = _after(clause, d.value) if d.entity == "user.budget" else None
        if not around:
            continue
        if _SPENDS.search(around[0]):
            return HABIT
        if _PER_UNIT.match(around[1]) or re.search(r"\b(?:anything|something|nothing)\s+(?:that costs? )?(?:over|above|"
                                                   r"more than|pricier than)\s*$", around[0], IC):
            return PER_UNIT
        if purpose(around[1]) == "" or (said := _FOR.search(around[0])) and purpose(f" for {said.group('t')}") == "":
            return ONE_PURCHASE
    return None
