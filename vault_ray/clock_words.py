"""Clock times said in words, rewritten in digits before `values` reads clock times:

    "half past six in the morning" -> "6:30 am"     "quarter to seven" -> "6:45"
    "seven thirty pm" -> "7:30 pm"                   "7 in the evening" -> "7 pm"
    "ten past nine at night" -> "9:10 pm"            "19h" / "at 7h30" -> "19:00" / "at 7:30"
    "6.30 am" -> "6:30 am"

So two agents that said one time two ways agree ("6:30am" and "half past six in the
morning" both read 06:30). A bare hour word with nothing that makes it a time ("seven")
is left alone: it need not be one.
"""

from __future__ import annotations

import re

_UNITS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")
_HOURS = {w: n for n, w in enumerate(_UNITS, 1)}
_MINUTES = {"five": 5, "ten": 10, "fifteen": 15, "twenty": 20, "twenty five": 25, "thirty": 30, "thirty five": 35,
            "forty": 40, "forty five": 45, "fifty": 50, "fifty five": 55, "oh five": 5, "o five": 5}
_HOUR = r"(?:" + "|".join(_UNITS[::-1]) + r"|1[0-2]|0?[1-9])"
_MIN = r"(?:" + "|".join(k.replace(" ", r"[\s-]+") for k in sorted(_MINUTES, key=len, reverse=True)) + r")"
_PART = r"(?P<part>in\s+the\s+(?:morning|afternoon|evening)|at\s+night|tonight|a\.?m\.?|p\.?m\.?)"

_RELATIVE = re.compile(rf"(?P<lead>\b(?:at|by|until|till|around|about|from|before|after)\s+)?\b(?P<n>half|(?:a\s+)?quarter|"
                       rf"{_MIN}|\d\d?(?=\s+minutes?))(?P<mins>\s+minutes?)?\s+(?P<dir>past|after|to|before)\s+"
                       rf"(?P<h>{_HOUR})\b(?:\s*{_PART})?", re.IGNORECASE)
""""half past six", "ten to nine", "5 minutes to 10". A number before "to" is as often a
range ("5 to 10 people", "ten to twelve guests"): minutes in words or digits count as a time
before "to" only with "minutes", a day part after, or a word such as "at" before."""
_SPOKEN = re.compile(rf"\b(?P<h>{'|'.join(_UNITS[::-1])})(?:[\s-]+(?P<m>{_MIN}))?\s*(?:o'?clock\s*)?(?=\s*{_PART})",
                     re.IGNORECASE)
_DAY_PART = re.compile(rf"\b(?P<h>1[0-2]|0?[1-9])(?::(?P<m>[0-5]\d))?\s+{_PART}", re.IGNORECASE)
_CONTINENTAL = re.compile(r"\b(?:(?P<h>1[3-9]|2[0-3])h(?P<m>[0-5]\d)?|(?<=\bat )(?P<h2>[01]?\d)h(?P<m2>[0-5]\d)?)\b",
                          re.IGNORECASE)
"""19h, 19h30, "at 7h30" (a bare "3h" or "2h15" is as often a duration)."""
_DOTTED = re.compile(r"\b(?P<h>1[0-2]|0?[1-9])\.(?P<m>[0-5]\d)\s*(?=[ap]\.?m\b)", re.IGNORECASE)


def spoken_times(text: str) -> str:
    """`text` with the clock times it says in words (or as 19h, 6.30 am) in digits."""
    if not re.search(r"[a-z]", text, re.IGNORECASE):
        return text
    text = _RELATIVE.sub(_relative, text)
    text = _SPOKEN.sub(lambda m: f"{_HOURS[m.group('h').lower()]}" + (f":{_minutes(m.group('m')):02d}" if m.group("m")
                                                                       else "") + " ", text)
    text = _DAY_PART.sub(_day_part, text)
    text = _CONTINENTAL.sub(lambda m: f"{int(m.group('h') or m.group('h2'))}:{m.group('m') or m.group('m2') or '00'}", text)
    return _DOTTED.sub(lambda m: f"{m.group('h')}:{m.group('m')} ", text)


def _minutes(said: str) -> int:
    return _MINUTES[" ".join(said.lower().replace("-", " ").split())]


def _hour(said: str) -> int:
    return _HOURS.get(said.lower()) or int(said)


def _relative(m: re.Match[str]) -> str:
    n, before = m.group("n").lower(), m.group("dir").lower() in ("to", "before")
    minutes = 30 if n == "half" else 15 if n.endswith("quarter") else int(n) if n.isdigit() else _minutes(n)
    sure = n == "half" or n.endswith("quarter") or m.group("mins") or m.group("part") or m.group("lead")
    if not 0 < minutes < 60 or (before and not sure):
        return m.group(0)
    hour = _hour(m.group("h"))
    if before:
        hour, minutes = (hour - 2) % 12 + 1, 60 - minutes
    part = m.group("part")
    half = "" if not part else " am" if hour == 12 and "night" in part.lower() else f" {_half(part)}"
    return f"{m.group('lead') or ''}{hour}:{minutes:02d}{half}"


def _day_part(m: re.Match[str]) -> str:
    hour, part = int(m.group("h")), m.group("part").lower()
    half = "am" if hour == 12 and "night" in part else _half(part)  # 12 at night is midnight
    return f"{hour}{':' + m.group('m') if m.group('m') else ''} {half}"


def _half(part: str) -> str:
    """am or pm for a day part ("in the evening", "tonight" -> pm)."""
    part = part.lower().replace(".", "")
    return "am" if part.startswith("am") or "morning" in part else "pm"
