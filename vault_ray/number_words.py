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
