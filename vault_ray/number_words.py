"""Amounts said in hundreds the way people say them: "twenty-five hundred" is 2,500
(word2number reads it as 200), "twenty hundred" 2,000. Rewritten as "two thousand five
hundred" before word2number reads the words (`values._spelled_amount`)."""

from __future__ import annotations

import re

_UNITS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_HUNDREDS = re.compile(rf"\b(?P<t>{'|'.join(_TENS)})(?:[\s-]+(?P<u>{'|'.join(_UNITS)}))?[\s-]+hundred\b", re.IGNORECASE)


def hundreds(text: str) -> str:
    """`text` with "<tens>[-<unit>] hundred" said as thousands and hundreds."""
    def spoken(m: re.Match[str]) -> str:
        n = 10 * (_TENS.index(m.group("t").lower()) + 2) + (_UNITS.index(m.group("u").lower()) + 1 if m.group("u") else 0)
        thousands, rest = divmod(n, 10)
        return f"{_UNITS[thousands - 1]} thousand" + (f" {_UNITS[rest - 1]} hundred" if rest else "")
    return _HUNDREDS.sub(spoken, text)


_TEENS = ("ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")
_SMALL = re.compile(rf"\b(?:(?P<t>{'|'.join(_TENS)})(?:[\s-]+(?P<u>{'|'.join(_UNITS)}))?|(?P<teen>{'|'.join(_TEENS)})"
                    rf"|(?P<one>{'|'.join(_UNITS)}))\b(?![\s-]+(?:hundred|thousand|million)\b)", re.IGNORECASE)


def small_numbers(text: str) -> str:
    """`text` with the numbers below 100 said in words written in digits ("I'm twenty-eight
    years old" -> "I'm 28 years old"): what a frame reading an age sees."""
    def digits(m: re.Match[str]) -> str:
        if m.group("teen"):
            return str(10 + _TEENS.index(m.group("teen").lower()))
        if m.group("one"):
            return str(_UNITS.index(m.group("one").lower()) + 1)
        unit = _UNITS.index(m.group("u").lower()) + 1 if m.group("u") else 0
        return str(10 * (_TENS.index(m.group("t").lower()) + 2) + unit)
    return _SMALL.sub(digits, text)
