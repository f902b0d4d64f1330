"""Slot patterns for a part of the user's name: "My last name is now Garcia", "My surname is
Okafor", "I changed my last name to Garcia" (user.last_name), "My first name is Maria"
(user.first_name), "My nickname is Ace"; the whole name (user.name): "My name is Ana", "call me
Dr. Patel", "my name is john smith" (`name_frame`). The keys are those `values` compares as names."""

from __future__ import annotations

import re

from .. import gazetteer
from .introductions import introduced
from .lexicon import Draft, cut
from .names import not_a_name

IC = re.IGNORECASE

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


_NAME = re.compile(r"\b(?:my (?:full |legal )?name is|my name's|my names(?!\s+(?:are|were|and)\b)|call me|i'm called|i go by|"
                   r"everyone calls me|people call me|"
                   r"i (?:legally )?changed my name to|you can call me|"
                   r"i(?: (?:prefer|like|want)|(?:'d| would) (?:like|prefer|love|rather))(?: to)? "
                   r"(?:be called|being called|go by))"
                   r"\s+(?:spel(?:led|t)\s+)?"
                   r"(?P<v>(?:(?:dr|mr|mrs|ms|prof)\.?\s+)?[A-Za-z][\w'\-]*(?:\s+(?-i:[A-Z])[\w'\-]*){0,2})", IC)
_NOT_A_NAME = frozenset({"back", "later", "anytime", "tomorrow", "now", "please", "before", "after", "when", "whenever", "if",
    "maybe", "once", "tonight", "today", "soon", "asap", "first", "again", "instead", "only", "directly", "during", "between",
    "until", "sometime", "anything", "whatever", "crazy", "old", "lazy", "silly", "the", "a", "an", "in", "around", "every",
    "each", "any", "no", "not", "about", "right", "this", "next", "on", "at", "by", "via", "from", "with", "pronounced"})
"""First words after "call me" that start no name ("call me before 9am", "call me maybe")."""


def name_frame(n: str) -> list[Draft]:
    """"My name is Ana", "call me Dr. Patel" (not "don't call me Bob"); "Hi, I'm Daniel Okafor", "I'm Anna, nice to meet you"."""
    intro = introduced(n)
    if intro and not _NAME.search(n):
        return [Draft("user.name", intro), *_age_after(n[n.find(intro) + len(intro):])]
    m = _NAME.search(n)
    if not m or re.search(r"\bcall me (?:by|via|on|at|back|later|tomorrow)\b", n, IC):
        return []
    if re.search(r"\b(?:don't|do not|never|stop|no need to|not)\s+(?:ever\s+)?call me\b", n, IC):
        return []
    value = cut(m.group("v"))
    if value and value.split()[0].lower().rstrip(".") not in _NOT_A_NAME:
        return [Draft("user.name", _with_surname(value, n[m.end():])), *_age_after(n[m.start("v") + len(value):])]
    return []


_AGE_AFTER = re.compile(r"\s*,\s*(?P<age>\d{1,3})(?:\s*(?:y/?o|yrs?(?: old)?|years? old))?\s*(?=$|[,.!;]|\s+and\b)", IC)


def _age_after(after: str) -> list[Draft]:
    """The age said right after a name ("I'm Sofia, 27", "my name is Sam, 34 years old")."""
    age = _AGE_AFTER.match(after)
    return [Draft("user.age", age.group("age"))] if age and 5 <= int(age.group("age")) <= 120 else []


def _with_surname(value: str, after: str) -> str:
    """A name said in lower case with its surname ("my name is john smith"): the two words, when the surname
    ends the statement and is no word said after a name ("my name is john lol", "call me sam please")."""
    surname = re.fullmatch(r"\s+(?P<s>[a-z][a-z'\-]+)[\s.!]*", after)
    if not surname or not value.islower() or " " in value or not_a_name(surname.group("s")) \
            or surname.group("s") in _NOT_A_NAME or surname.group("s") in _AFTER_A_NAME:
        return value
    return f"{value} {surname.group('s')}"


_AFTER_A_NAME = frozenset(("too", "though", "tho", "here", "btw", "haha", "lmao", "anyway", "anyways", "thanks", "pls",
                           "lol", "actually", "really", "honestly", "obviously", "btw", "jk", "xd", "ok", "okay", "yeah"))
