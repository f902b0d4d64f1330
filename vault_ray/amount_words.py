"""What an amount's words say besides its number and currency (`amounts.amount_form`).

- Spoken scales are written in digits before the number is read: "half a million" is
  500000, "two and a half thousand" 2500, "one point two thousand" 1200, "5 lakh" 500000
  and "1 crore" 10000000 (rupees unless another currency is said), "5 cents" 0.05 and
  "50 pence" 0.50 pounds. word2number reads none of these right ("half a million" read as a
  million agreed with "$1M").
- A bound is read with its negation: "at least", "or more", "and up", "$5k+", "not under"
  are a floor; "up to", "or less", "not over", "never above", "won't go above" a ceiling
  (a budget is a ceiling: it reads as the amount). "not over $5k" was read as "over $5k".
- "gross" and "before tax" say what an amount of pay means anyway. Any other word is one
  this reading does not know ("not $5k", "was $5k", "$120k net",
  "$5k each", "$5k per person"): the amount is not read with confidence, and compares as its
  words, never equal to the plain amount.
"""

from __future__ import annotations

import re
from decimal import Decimal
from functools import cache

from . import currencies, gazetteer

_UNITS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_SMALL = {w: i for i, w in enumerate(_UNITS)} | {
    "a": 1, "an": 1, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30, "forty": 40,
    "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100}
_SCALE = r"(?P<scale>thousand|million|billion|grand|k|m|bn)"
_COUNT = r"(?P<n>\d+(?:\.\d+)?|" + "|".join(sorted(_SMALL, key=len, reverse=True)) + r")"
_HALF = re.compile(rf"\b(?:{_COUNT}\s+and\s+)?(?P<frac>a\s+half|a\s+quarter|three\s+quarters|half|a\s+third)"
                   rf"(?:\s+of)?(?:\s+an?|\s+one)?\s+{_SCALE}\b(?:\s+and\s+a\s+half)?"
                   rf"|\b{_COUNT.replace('?P<n>', '?P<m>')}\s+{_SCALE.replace('?P<scale>', '?P<s2>')}\s+and\s+a\s+half\b",
                   re.IGNORECASE)
_FRACTIONS = {"a half": Decimal("0.5"), "half": Decimal("0.5"), "a quarter": Decimal("0.25"),
              "three quarters": Decimal("0.75"), "a third": None}
_POINT = re.compile(rf"\b{_COUNT}\s+point\s+(?P<dec>(?:{'|'.join(_UNITS)})(?:\s+(?:{'|'.join(_UNITS)}))*)\s+{_SCALE}\b",
                    re.IGNORECASE)
_INDIAN = re.compile(rf"\b(?P<num>\d+(?:[.,]\d+)?|{'|'.join(sorted(_SMALL, key=len, reverse=True))})\s*"
                     r"(?P<unit>lakhs?|lacs?|crores?|cr)\b", re.IGNORECASE)
_INDIAN_SCALE = {"lakh": 100_000, "lac": 100_000, "crore": 10_000_000, "cr": 10_000_000}
_CENTS = re.compile(r"(?<![\d.,$€£])\b(?P<num>\d+(?:\.\d+)?|" + "|".join(sorted(_SMALL, key=len, reverse=True))
                    + r")\s*(?:(?P<euro>euro)\s+)?(?P<unit>cents?|¢|pence|penny|p)(?![\w$€£])", re.IGNORECASE)


def _count(word: str | None) -> Decimal:
    if not word:
        return Decimal(0)
    word = word.lower()
    return Decimal(word) if word[0].isdigit() else Decimal(_SMALL[word])


def _digits(amount: Decimal) -> str:
    return f"{amount.normalize():f}"


def spoken_scales(text: str) -> str | None:
    """`text` with the scales people say written in digits, or None when a scale is said that
    no digits can carry ("a third of a million": no exact amount)."""
    unsure = False

    def half(m: re.Match[str]) -> str:
        nonlocal unsure
        if m.group("s2"):  # "a million and a half", "2 thousand and a half"
            return f"{_digits(_count(m.group('m')) + Decimal('0.5'))} {m.group('s2')}"
        frac = _FRACTIONS[" ".join(m.group("frac").lower().split())]
        if frac is None or (m.group("n") and m.group(0).lower().rstrip().endswith("and a half")):
            unsure = True
            return m.group(0)
        return f"{_digits(_count(m.group('n')) + frac)} {m.group('scale')}"

    def point(m: re.Match[str]) -> str:
        decimals = "".join(str(_UNITS.index(w.lower())) for w in m.group("dec").split())
        return f"{_digits(_count(m.group('n')))}.{decimals} {m.group('scale')}"

    def indian(m: re.Match[str]) -> str:
        unit = m.group("unit").lower().rstrip("s")
        number = m.group("num").replace(",", ".")
        return _digits(_count(number) * _INDIAN_SCALE[unit])

    def cents(m: re.Match[str]) -> str:
        unit = m.group("unit").lower()
        pounds = unit in ("pence", "penny", "p")
        if unit == "p" and not m.group("num")[0].isdigit():
            return m.group(0)
        word = "pounds" if pounds else "euros" if m.group("euro") else "dollars"
        return f"{_digits(_count(m.group('num')) / 100)} {word}"

    out = _POINT.sub(point, _HALF.sub(half, text))
    indian_said = _INDIAN.search(out) is not None
    out = _CENTS.sub(cents, _INDIAN.sub(indian, out))
    if indian_said and currencies.currency_in(out) is None and not re.search(r"[$€£¥₹]", out):
        out += " INR"  # "5 lakh", "1 crore": the Indian numbering system's own currency
    return None if unsure else out


_FLOOR = (r"at least|more than|over|above|exceed(?:s|ing)?|minimum(?: of)?|min|starting (?:at|from)|upwards of|north of"
          r"|or more|or above|or higher|or over|and up(?:wards)?|and above|and over|and higher|plus|\+")
_CEILING = (r"up to|under|below|less than|at most|max(?:imum)?(?: of)?|tops|or less|or under|or below|or lower"
            r"|capped at|no higher than|not to exceed|within")
_NEGATION = r"(?:not|never|no|n't|cannot|can ?not)(?:\s+(?:go|going|be|ever|to|spend|pay|be)){0,2}\s+"
_MODAL = r"(?:(?:should|must|will|would|can|could|wo|ca|do|does|did|shall|may|is|are|was)\s*)?"
_BOUND = re.compile(rf"(?P<neg>\b{_MODAL}{_NEGATION})?(?:\b|(?<=\d))(?P<word>{_FLOOR}|{_CEILING})(?:\b|(?=\s|$))",
                    re.IGNORECASE)
_FLOOR_WORD = re.compile(rf"^(?:{_FLOOR})$", re.IGNORECASE)


def bound(text: str) -> tuple[str | None, str]:
    """('floor' | 'ceiling' | None, `text` without the bound's words): "not over $5k" is a
    ceiling, "not under $5k" and "$5k or more" a floor, "no more than $5k" a ceiling."""
    text, kinds = text.replace("n't", " n't"), []  # "won't go above": "wo n't go above"
    for m in _BOUND.finditer(text):
        floor = bool(_FLOOR_WORD.match(" ".join(m.group("word").lower().split())))
        kinds.append("floor" if floor != bool(m.group("neg")) else "ceiling")
    rest = _BOUND.sub(" ", text)
    if len(set(kinds)) > 1:
        return "both", rest
    return (kinds[0] if kinds else None), rest


_NEUTRAL = frozenset({"about", "around", "approximately", "approx", "roughly", "circa", "ca", "like", "ish", "some", "is",
                      "of", "a", "an",
                      "the", "my", "our", "budget", "total", "in", "overall", "all", "usd", "and", "to", "from", "between",
                      "through", "k", "m", "mm", "b", "bn", "thousand", "million", "billion", "hundred", "grand", "point",
                      "plus", "it", "s", "be", "just", "only", "exactly", "per", "minus", "up"})


@cache
def _currency_words() -> frozenset[str]:
    words = set()
    for key in gazetteer.currency_table():
        if " " in key or not (len(key) == 3 and key.isalpha()):  # a three-letter code counts written as one (USD)
            words.update(re.findall(r"[a-z]+", key))
    return frozenset(words)


_GROSS = re.compile(r"\b(?:before[\s-]tax(?:es)?|pre[\s-]tax|gross)\b", re.IGNORECASE)
"""Pay is said before tax unless said otherwise: "$120k gross" is "$120k", "$120k net" is not."""
_TOKENS = re.compile(r"[^\W\d_]+")
_DOLLAR_PREFIX = re.compile(r"(?<![\w$])[A-Za-z.]{1,4}\$")  # "C$500", "US$5k": the dollar's country


def unknown_words(text: str) -> list[str]:
    """The words of an amount this reading does not know: none in "$5k", "about 5000 euros",
    "five thousand dollars"; "net" in "$120k net", "not" in "not $5k", "each" in "$5k each"."""
    out = []
    text = _GROSS.sub(" ", _DOLLAR_PREFIX.sub("$", text))
    for word in _TOKENS.findall(text):
        low = word.lower()
        if low in _NEUTRAL or low in _SMALL or low in _UNITS or low in _SPOKEN or low in _currency_words():
            continue
        if currencies.currency_in(f"1 {word}") is not None and (len(word) != 3 or word.isupper() or low in _LOWER_CODES):
            continue
        out.append(low)
    return out


_SPOKEN = frozenset({"thirteen", "fourteen", "sixteen", "seventeen", "eighteen", "nineteen", "dollars", "bucks", "couple"})
_LOWER_CODES = frozenset({"usd", "eur", "gbp", "inr", "cad", "aud", "jpy", "chf"})
