"""A pet's or a relative's name typed in lower case, written with its capital where the sentence gives it that role:
"i have a dog named max" (Max), "my husbands name is tom" (Tom), "my wife is maria" (Maria, a common first name).
Only in a message typed in lower case but for a sentence's first letter and the pronoun "I" (a phone's
capitals: "I have a dog named max"; a capital anywhere else says the user writes names so), only after a species
or a relative ("a dog named", "my son's name is"), and after "my <relative> is" only a common first name ("my wife is
pregnant" names no one). The user's own name stays as typed ("my name is john smith": john smith)."""

from __future__ import annotations

import re

from .lexicon import SPECIES_RE
from .names import first_name, not_a_name

IC = re.IGNORECASE
_KIN = (r"wife|husband|partner|girlfriend|boyfriend|spouse|fianc[eé]e?|son|daughter|kid|child|baby|brother|sister|mom|"
        r"mum|mother|dad|father|grandma|grandpa|grandmother|grandfather|aunt|uncle|cousin|stepson|stepdaughter|twin")
_NAMED = re.compile(rf"\b(?:{SPECIES_RE}|{_KIN}|pet|puppy|kitten)s?,?\s+(?:named|called)\s+(?P<n>[a-z][a-z'-]+)", IC)
_NAME_IS = re.compile(rf"\bmy (?:{SPECIES_RE}|{_KIN}|pet)(?:'s|s)? name is (?P<n>[a-z][a-z'-]+)", IC)
_IS = re.compile(rf"\bmy (?:{_KIN}) is (?P<n>[a-z][a-z'-]+)(?=\s*(?:$|[,.;!]|and\b))", IC)
_NOT_NAMES = frozenset({"after", "for", "by", "the", "a", "an", "my", "his", "her", "it", "that", "this", "so", "like",
                        "something", "nothing", "what", "whatever", "too", "very"})

_SENTENCE_START = re.compile(r"(?:^|(?<=[.!?])\s+)[\"'(]*[A-Z]|\bI\b")
"""The capitals a lower-case typist still gets: a sentence's first letter, the pronoun I."""


def kin_names(text: str) -> str:
    """`text`, typed in lower case (see the module docstring), with each pet's or relative's name written with its capital."""
    if re.search(r"[A-Z]", _SENTENCE_START.sub("", text)):
        return text

    def named(m: re.Match[str]) -> str:
        name = m.group("n")
        if name in _NOT_NAMES or not_a_name(name):
            return m.group(0)
        return m.group(0)[: m.start("n") - m.start()] + name[:1].upper() + name[1:]

    text = _NAME_IS.sub(named, _NAMED.sub(named, text))
    return _IS.sub(lambda m: named(m) if first_name(m.group("n")) else m.group(0), text)
