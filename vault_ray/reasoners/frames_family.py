"""Slot patterns for the user's family: "I have two kids" (user.family: 2 children), "My wife
is Sarah Jones" (wife:Sarah Jones: a role with the name as said, surname and all), "I'm
married" (user.marital_status). "My mom is Korean" says what she is, not her name."""

from __future__ import annotations

import re

from .. import gazetteer
from .frames_names import KIND_OF_NAME
from .lexicon import Draft, number_word, split_list

IC = re.IGNORECASE


_RELATIONS = r"kids?|children|child|sons?|daughters?|brothers?|sisters?|siblings?|twins|grandchildren|grandkids|" \
             r"stepsons?|stepdaughters?"
_FAMILY_HAVE = re.compile(rf"\b(?:i|we) (?:have|'ve got|have got)\s+(?P<n>a|an|one|two|three|four|five|six|\d+)\s+"
                          rf"(?:(?:young|little|grown|adult|teenage|small|older|younger)\s+)?(?P<r>{_RELATIONS})\b", IC)
_FAMILY_ITEM = re.compile(rf"(?P<n>a|an|one|two|three|four|five|six|\d+)\s+(?:(?:young|little|grown|adult|teenage|small|"
                          rf"older|younger)\s+)?(?P<r>{_RELATIONS})\b", re.IGNORECASE)


def _relative(m: re.Match[str]) -> Draft:
    count = number_word(m.group("n")) or 1
    rel = m.group("r").lower()
    rel = {"kid": "child", "kids": "children", "grandkids": "grandchildren"}.get(rel, rel)
    singular = re.sub(r"(?:ren|s)$", "", rel) if rel != "twins" else rel
    return Draft("user.family", f"{count} {rel}" if count > 1 else singular)


_PERSON = r"[A-Z][a-z]+(?:[ -](?!I\b)[A-Z][\w'\-]*[a-z]){0,2}"
"""A name with its surname as said ("Ann", "Ann Lee", "Maria Gonzalez", "Mary-Jo O'Brien")."""
_FAMILY_NAME = re.compile(rf"^(?i:(?:(?:now|and|so|also|but|actually|well|btw),?\s+)*my) (?P<r>wife|husband|partner|spouse|"
                          rf"son|daughter|mom|mother|dad|father|brother|sister|fiancee?|boyfriend|girlfriend)"
                          rf"(?:(?:'s name)? is (?:called |named )?(?P<v>{_PERSON})\b"
                          rf"|,? (?P<w>{_PERSON})\b)", re.UNICODE)  # "my wife is Anna Lee", "my wife Anna is ..."
_TIME_WORDS = re.compile(r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|"
                         r"june|july|august|september|october|november|december|today|tonight|tomorrow|yesterday)$", IC)


def person_named(said: str) -> str | None:
    """The name in `said` ("Ann Lee"), without a word after it that is no part of a name ("Anna
    Monday", "Sam Is"); None for a word that says what the person is ("Korean", "Catholic")."""
    words = said.replace("-", " - ").split()
    while len(words) > 1 and (_TIME_WORDS.match(words[-1]) or words[-1] == "-"):
        words.pop()
    name = " ".join(words).replace(" - ", "-")
    if KIND_OF_NAME.match(words[0]) or gazetteer.find_language(words[0]):
        return None
    return name


_MARITAL = re.compile(r"\bi(?:'m| got| just got| recently got| am| was|'ve been|'ve just been)?\s+(?:now |happily |recently |"
                      r"just |newly )?(?P<v>married|single|divorced|engaged|widowed|separated)\b", IC)
_MARITAL_NOT = re.compile(r"\bi'm (?:not|no longer) (?P<v>married|single|engaged)\b", IC)


def family_frame(n: str) -> list[Draft]:
    m = _FAMILY_HAVE.search(n)
    if m:
        items = [_FAMILY_ITEM.match(x) for x in split_list(n[m.start("n"):])]
        return [_relative(x) for x in items if x] or [_relative(m)]
    m = re.search(r"\bi'm (?:a )?(?:mom|mum|mother|dad|father|parent) of (?P<n>\w+)\b", n, IC)
    if m and number_word(m.group("n")):
        count = number_word(m.group("n")) or 1
        return [Draft("user.family", f"{count} children" if count > 1 else "child")]
    if m := _FAMILY_NAME.search(n):
        name = person_named(m.group("v") or m.group("w"))
        return [Draft("user.family", f"{m.group('r').lower()}:{name}")] if name else []
    if m := _MARITAL_NOT.search(n):
        return [Draft("user.marital_status", f"not:{m.group('v').lower()}")]
    m = _MARITAL.search(n)
    if m and not re.search(r"\b(?:single (?:room|bed|ticket|payment|trip)|not)\b", n, IC):
        return [Draft("user.marital_status", m.group("v").lower())]
    return []


