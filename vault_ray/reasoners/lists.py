"""A list under a heading of the user's own, its items after dashes or bullets, said inline ("About me: - 34 -
vegetarian - live in Leeds") or one a line: read as the statements they stand for (`extraction.extract_turn`).

Under a heading that says the user ("About me:", "Quick context:", "Me:"; `clauses` reads its other items), an item that is
a number alone ("34", "34 years old", "age 34") is the user's age: "I'm 34". Under a heading of the user's children
("Kids:", "My children:", "Sons:", "Daughters:"), items that are each a first name, with an age or not ("Max (7)",
"Lily, 4"), are the children: "I have 2 kids: Max (7) and Lily (4)", read as said that way. Any other item ("Kids: -
soccer on Saturdays"), a name no first name, or an item list of someone else's ("My sister's kids:") leaves the list as
it was."""

from __future__ import annotations

import re

from .names import first_name

IC = re.IGNORECASE
_SELF = (r"(?:(?:quick|some|a bit of|brief|little|short)\s+)?(?:context|about me|a bit about me|background|profile|me|"
         r"quick facts|facts about me|re me)")
"""A heading that says the user ("About me:", "Quick context:"); not one of notes or details of anything ("Notes: - 34 -
call mom": 34 of what is not said)."""
_KIDS = r"(?:my\s+|our\s+)?(?P<kin>kids|children|sons|daughters)"
_HEAD = re.compile(rf"^(?P<lead>\s*)(?P<head>{_SELF}|{_KIDS})\s*:\s*(?P<rest>.*)$", IC)
_BULLET = re.compile(r"^\s*[-–—*•·]\s+(?P<item>\S.*?)\s*$")
_DASHES = re.compile(r"(?:^|\s+)[-–—]+\s+")
_AGE = re.compile(r"^(?:(?:age|aged)\s*:?\s*)?(?P<n>\d{1,3})(?:\s*(?:years old|yrs old|years|yrs|y/?o|yo))?[.!]?$", IC)
_CHILD = re.compile(r"^(?P<name>(?-i:[A-Z])[a-z]+)(?:\s*\(\s*(?:age\s*)?\d{1,2}\s*\)|,?\s+(?:age\s*)?\d{1,2}"
                    r"(?:\s*(?:years old|yrs old|y/?o|yo))?)?[.!]?$", IC)
_COUNT = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def headed(text: str) -> str:
    """`text` with each list under a heading of the user's own said as the statements its items stand for."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        m = _HEAD.match(lines[i])
        if m is None:
            out.append(lines[i])
            i += 1
            continue
        rest, j = m.group("rest").strip(), i + 1
        if rest and _DASHES.match(rest):
            items = [p.strip() for p in _DASHES.split(rest) if p.strip()]  # "About me: - 34 - vegetarian"
        elif not rest:
            items = []  # "About me:" and a bullet a line
            while j < len(lines) and (b := _BULLET.match(lines[j])):
                items.append(b.group("item"))
                j += 1
        else:
            items = re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", rest) if m.group("kin") else []  # "Kids: Max (7), Lily (4)"
        said = _said(m, items)
        if said is None:
            out.append(lines[i])
            i += 1
            continue
        out.append(m.group("lead") + said)
        i = j
    return "\n".join(out)


def _said(head: re.Match[str], items: list[str]) -> str | None:
    """The list as the statements it stands for, or None to leave it as it was."""
    if not items:
        return None
    if head.group("kin"):
        if not all((c := _CHILD.match(item)) and first_name(c.group("name")) for item in items) or len(items) > len(_COUNT):
            return None
        named = [item.rstrip(".!") for item in items]
        listed = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
        kin = head.group("kin").lower()
        return f"I have {_COUNT[len(items) - 1]} {kin if len(items) > 1 else kin.rstrip('s').replace('children', 'child')}: " \
               f"{listed}."
    aged = [f"I'm {a.group('n')}" if (a := _AGE.match(item)) and 0 < int(a.group("n")) < 130 else item for item in items]
    if aged == items and head.group("rest").strip():
        return None  # an inline list with no age: read as it was
    return f"{head.group('head')}: - " + " - ".join(aged)
