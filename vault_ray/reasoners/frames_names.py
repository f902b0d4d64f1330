"""Slot patterns for a part of the user's name: "My last name is now Garcia", "My surname is
Okafor", "I changed my last name to Garcia" (user.last_name), "My first name is Maria"
(user.first_name), "My nickname is Ace", "My friends call me Ace for short" is a name said
as `frames.name_frame` reads it. The keys are those `values` compares as names."""

from __future__ import annotations

import re

from .. import gazetteer
from .lexicon import Draft

_PART = re.compile(
    r"\b(?:my (?P<part>last name|family name|surname|maiden name|first name|given name|middle name|nickname|nick name)"
    r"(?:\s+is|'s)(?:\s+(?:now|actually|still|officially))*|i (?:legally |officially )?changed my "
    r"(?P<changed>last name|family name|surname|first name|nickname) to)"
    r"\s+(?P<v>(?-i:[A-Z])[\w'\-]*(?:\s+(?-i:[A-Z])[\w'\-]*){0,2})", re.IGNORECASE)
_NO_NAME = re.compile(r"^(?:not|hard|unusual|uncommon|common|biblical|long|short|weird|difficult|easy|funny|rare|unique|popular|"
                      r"strange|complicated|different|normal|simple|tricky|boring|odd|cool|same|also|pretty|very|too|kind|"
                      r"actually|really|unpronounceable|embarrassing|hyphenated|traditional|old|ordinary|generic|famous|"
                      r"spanish|english|british|danish|swedish|finnish|turkish|portuguese|mexican|american|canadian|brazilian|nigerian|indian|filipino|scottish|welsh|african|"
                      r"asian|european|latino|hispanic|jewish|arabic|italian|german|russian|greek|persian|ukrainian|"
                      r"vietnamese|irish|korean|chinese|japanese|french|dutch|polish)\b|\s(?:to|is|and|for|but|of the)\b",
                      re.IGNORECASE)
"""Words that say what kind of name it is ("My last name is Spanish", "... is Not Common", "... is Hard To Spell")."""
KIND_OF_NAME = _NO_NAME
_KEYS = {"last name": "user.last_name", "family name": "user.last_name", "surname": "user.last_name",
         "maiden name": "user.maiden_name", "first name": "user.first_name", "given name": "user.first_name",
         "middle name": "user.middle_name", "nickname": "user.nickname", "nick name": "user.nickname"}


def name_part_frame(n: str) -> list[Draft]:
    """A part of the user's name said as such, capitalized ("My nickname is Ace"; not "my nickname is a secret")."""
    m = _PART.search(n)
    if not m or re.search(r"\b(?:not|isn't|never|no longer)\b", n[:m.start("v")], re.IGNORECASE) \
            or _NO_NAME.search(m.group("v")) or gazetteer.find_language(m.group("v")):  # "... is Spanish": a kind of name
        return []
    return [Draft(_KEYS[(m.group("part") or m.group("changed")).lower()], m.group("v"))]
