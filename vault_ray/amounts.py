"""Amounts: the comparison form of a budget, price, salary or rent ('$5k a month' ->
'5000 USD/month'). price-parser reads the number and the currency, word2number the numbers
said in words; `amount_words` reads what scales, bounds or changes an amount."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from . import amount_words, currencies, gazetteer
from .number_words import hundreds

DEFAULT_CURRENCY = "USD"  # an amount said without a currency is in the locale's (en_US)
_NUMBER = re.compile(r"(?P<sign>-\s*)?(?P<num>\d{1,3}(?:[,. \u00a0\u202f']\d{3})+(?:[.,]\d+)?|\d+(?:[.,]\d+)?|[.,]\d+)"
                     r"\s*(?P<mult>k|m|mm|bn|b|thousand|million|billion|grand)?\b", re.IGNORECASE)
"""A number as written in English or European style ('5,000.50', '5.000,50', '5 000', '1,5k'):
its separators are read by price-parser's `parse_number`."""
_MINUS = re.compile(r"^\s*(?:[-−]|minus\s)\s*(?:[A-Za-z]{0,3}[$€£¥₹₩])?\s*$", re.IGNORECASE)
_MULTIPLIERS = {"k": 1_000, "thousand": 1_000, "grand": 1_000, "m": 1_000_000, "mm": 1_000_000,
                "million": 1_000_000, "b": 1_000_000_000, "bn": 1_000_000_000, "billion": 1_000_000_000}
_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_NUMBER_WORDS = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty", "thirty", "forty",
    "fifty", "sixty", "seventy", "eighty", "ninety", "hundred", "thousand", "million", "billion", "point", "and", "a",
)
_SPELLED = re.compile(r"\b(?:" + "|".join(_NUMBER_WORDS) + r")(?:[\s-]+(?:" + "|".join(_NUMBER_WORDS) + r"))*\b",
                      re.IGNORECASE)

def parse_amount(text: str) -> tuple[Decimal, str] | None:
    """('$5k' | 'up to 5,000 USD' | 'five thousand dollars') -> (5000, 'USD'), or None.

    price-parser reads the number and the currency; a multiplier word or suffix
    (k, thousand, million) scales it; spelled-out numbers go through word2number."""
    from price_parser import Price

    text = amount_words.spoken_scales(text) or text  # "half a million", "5 cents", "5 lakh"
    price = Price.fromstring(text)
    dollar = _DOLLARS.search(text)  # "C$500" is Canadian: price-parser reads its currency as "$"
    currency = (_DOLLAR_CODES[dollar.group(1).upper()] if dollar else None) or gazetteer.find_currency(price.currency) \
        or _currency_word(text)
    amount = _digits_amount(text) if any(ch.isdigit() for ch in text) else _spelled_amount(text)
    if amount is None and price.amount is not None:
        amount = Decimal(price.amount)
    if amount is None:
        return None
    return amount, currency or DEFAULT_CURRENCY


_DOLLAR_CODES = {"C": "CAD", "CA": "CAD", "CAN": "CAD", "A": "AUD", "AU": "AUD", "NZ": "NZD", "HK": "HKD", "S": "SGD",
                 "SG": "SGD", "US": "USD", "U.S.": "USD", "MX": "MXN", "R": "BRL"}
_DOLLARS = re.compile(r"(?<![\w$])(C|CA|CAN|A|AU|NZ|HK|S|SG|US|U\.S\.|MX|R)\$", re.IGNORECASE)
_PERIODS = {"hour": "hour", "hr": "hour", "hourly": "hour", "day": "day", "daily": "day", "week": "week", "wk": "week",
            "weekly": "week", "fortnight": "fortnight", "fortnightly": "fortnight", "month": "month", "mo": "month",
            "monthly": "month", "quarter": "quarter", "quarterly": "quarter", "year": "year", "yr": "year",
            "annum": "year", "annual": "year", "annually": "year", "yearly": "year", "night": "night", "nightly": "night"}
PERIOD = re.compile(r"(?:\b(?:per|a|an|each|every)\s+|/\s*)(?P<unit>hour|hr|day|night|week|wk|fortnight|month|mo|quarter|year"
                    r"|yr|annum)\b|\b(?P<adj>hourly|daily|nightly|weekly|fortnightly|monthly|quarterly|yearly|annually|annual)\b",
                    re.IGNORECASE)
_RANGE = re.compile(r"\bbetween\s+(?P<a>.*?\w.*?)\s+and\s+(?P<b>.*\w.*)$"
                    r"|^(?P<c>\D*\d[^-–—]*?)\s*(?:-|–|—|\bto\b)\s*(?P<d>\D*\d.*)$", re.IGNORECASE)


_SPELLED_RANGE = re.compile(r"^(?:from\s+)?(?P<e>" + _SPELLED.pattern + r")\s*(?:\bto\b|\bthrough\b|–|—)\s*(?P<f>"
                            + _SPELLED.pattern + r".*)$", re.IGNORECASE)
"""'three to five thousand dollars', 'from two to three hundred euros': both ends spelled out
(not a hyphen: 'twenty-five thousand' is one number)."""


def amount_form(text: str, *, ceiling_is_amount: bool = True) -> str | None:
    """The comparison form of an amount with what qualifies it, or None if no amount or one
    not read with confidence (`amount_words`: "not $5k", "$120k net"): '$5000 per month' ->
    '5000 USD/month'; 'between $3k and $5k' -> '3000-5000 USD'; 'at least 5000 dollars', '$5k
    or more' -> '>=5000 USD'. An upper bound ('up to', 'under', 'not over') reads as the
    amount when `ceiling_is_amount` (a budget is a ceiling), else as '<=5000 USD' (an income
    "under $100k" is not one of $100k)."""
    spoken = amount_words.spoken_scales(text)
    if spoken is None:
        return None
    period = PERIOD.search(spoken)
    per = f"/{_PERIODS[(period.group('unit') or period.group('adj')).lower()]}" if period else ""
    plain = PERIOD.sub(" ", spoken) if period else spoken
    side, unbound = amount_words.bound(plain)
    if side == "both" or amount_words.unknown_words(unbound):
        return None
    ends = _range(plain)
    if ends is not None:
        (low, currency), (high, _) = ends
        return f"{_number(low)}-{_number(high)} {currency}{per}" if side is None else None
    amount = parse_amount(unbound)
    if amount is None or len(_NUMBER.findall(unbound)) > 1:  # "$5 and 0.5 dollars": two numbers are no one amount
        return None
    bound = {"floor": ">=", "ceiling": "" if ceiling_is_amount else "<="}.get(side or "", "")
    return bound + format_amount(*amount) + per


def _range(text: str) -> tuple[tuple[Decimal, str], tuple[Decimal, str]] | None:
    """Both ends of 'between $3k and $5k', '$3k-$5k' or '3 to 5 thousand euros' (a bare
    first end takes the second's multiplier and currency), low end first."""
    m = _RANGE.search(text.strip()) or _SPELLED_RANGE.search(text.strip())
    if not m:
        return None
    first, second = next((m.group(a), m.group(b)) for a, b in ("ab", "cd", "ef") if m.groupdict().get(a))
    high = parse_amount(second)
    low = parse_amount(first)
    if low is None or high is None:
        return None
    currency = high[1] if low[1] == DEFAULT_CURRENCY and not _currency_word(first) and "$" not in first else low[1]
    scale, low_amount = _multiplier(second), low[0]
    if scale > 1 and _multiplier(first) == 1 and low_amount * scale <= high[0]:
        low_amount *= scale
    if currency != high[1] or low_amount >= high[0]:
        return None
    return (low_amount, currency), (high[0], currency)


def _multiplier(text: str) -> int:
    """The scale word of an amount's number ('5k', 'five thousand', 'three hundred'), else 1."""
    digits = _NUMBER.search(text)
    if digits:
        return _MULTIPLIERS.get((digits.group("mult") or "").lower(), 1)
    spelled = _SPELLED.search(text)
    words = re.findall(r"[a-z]+", spelled.group(0).lower()) if spelled else []
    return next((_SCALES[w] for w in reversed(words) if w in _SCALES), 1)


def _number(amount: Decimal) -> str:
    return f"{amount.normalize():f}"


def _digits_amount(text: str) -> Decimal | None:
    from price_parser.parser import parse_number

    m = _NUMBER.search(text)
    if not m:
        return None
    try:
        number = parse_number(re.sub(r"[\s\u00a0\u202f']", "", m.group("num")))
    except (InvalidOperation, ValueError):
        return None
    if number is None:
        return None
    sign = -1 if m.group("sign") and not re.search(r"\w\s*-\s*$", text[:m.end("sign")]) else 1
    if _MINUS.match(text[:m.start()]):  # "-$5", "minus 5 dollars"
        sign = -1
    return sign * Decimal(number) * _MULTIPLIERS.get((m.group("mult") or "").lower(), 1)


def _spelled_amount(text: str) -> Decimal | None:
    from word2number import w2n

    text = hundreds(re.sub(r"\ba couple(?: of)?\b", "two", text, flags=re.IGNORECASE))  # "a couple thousand"
    for m in _SPELLED.finditer(text):
        words = m.group(0).strip()
        if words.lower() in ("a", "and", "point", "a and"):
            continue
        try:
            number = Decimal(w2n.word_to_num(re.sub(r"^(?:a|and)\s+", "", words, flags=re.I)))
        except ValueError:
            continue
        scale = re.match(r"\s*(grand|k)\b", text[m.end():], re.IGNORECASE)  # "two grand"
        return number * _MULTIPLIERS[scale.group(1).lower()] if scale else number
    return None


def _currency_word(text: str) -> str | None:
    return currencies.currency_in(text)


def format_amount(amount: Decimal, currency: str) -> str:
    return f"{_number(amount)} {currency}"
