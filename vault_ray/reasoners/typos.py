"""Typos in the words the rules read, mended before they read them: "my timezome is pst", "im
alergic to peanuts", "i moved too Berlin", "I work att Google", "teh". Only typos that can be
no other word are read through; anything else is left as typed, so a typo may lose a fact but
never makes a wrong one.

Three kinds, each small on purpose:

- a long word the rules key on (`TRIGGERS`: "timezone", "birthday", "vegetarian", "allergic"...)
  typed with one letter dropped, added, changed or two swapped, anywhere but its last letter:
  those words have no English neighbour so near ("employee", "employed", "relocate" differ in
  the last letter and stay as typed);
- the preposition a verb takes ("moved to", "live in", "work at", "allergic to") typed with a
  letter doubled or two swapped ("too", "inn", "att", "ot"), when a value follows ("moved too
  fast", "allergic too" stay);
- a short common word typed with two letters swapped that spells no word ("teh", "adn", "wiht").
"""

from __future__ import annotations

import re

TRIGGERS = frozenset((
    "timezone", "birthday", "vegetarian", "pescatarian", "allergic", "allergies", "allergy", "employer", "company",
    "hometown", "relocated", "favorite", "favourite", "lactose", "intolerant", "gluten",
))
"""Words the rules key on whose one-typo neighbours (but in the last letter) are no English words."""

_TAKES = {"to": r"moved|move|moving|relocated|relocating|relocate|allergic|allergies",
          "in": r"live|lives|living|based|reside|residing",
          "at": r"work|works|working|employed|job is",
          "for": r"work|works|working"}
"""A verb and the preposition it takes before a value."""
_NOT_A_VALUE = (r"much|many|far|fast|late|early|soon|often|long|hard|quickly|slowly|little|bad|badly|well|good|close|"
                r"near|expensive|cheap|big|small|tired|busy|sick|very|and|but|or|so|since|because|also|though|lol|haha")
"""Words after "too" that make it "too" ("I moved too fast", "I work too much")."""
_COMMON = ("the", "and", "that", "with", "have", "what", "this", "they", "there", "about", "because")
_WORDS_SPELLED = frozenset(("three", "nad"))
"""Swaps of common words that are words themselves ("three" of "there"): left as typed."""


def _swaps(word: str) -> set[str]:
    return {word[:i] + word[i + 1] + word[i] + word[i + 2:] for i in range(len(word) - 1)} - {word}


def _doubled(word: str) -> set[str]:
    return {word[:i] + word[i] + word[i:] for i in range(len(word))}


_SWAPPED = {typo: word for word in _COMMON for typo in _swaps(word) if typo not in _WORDS_SPELLED}
_WORD_ALONE = (r"(?<![\w@./:'-])", r"(?![\w@/:'-]|\.\w)")
"""A word by itself: none inside an address ("jo@compnay.com", "www.teh.org") is mended."""
_SWAPPED_RE = re.compile(rf"{_WORD_ALONE[0]}(?:{'|'.join(sorted(_SWAPPED))}){_WORD_ALONE[1]}", re.IGNORECASE)
_PREPOSITION = re.compile(
    "|".join(rf"\b(?P<v{i}>{verbs})\s+(?P<p{i}>{'|'.join(sorted(_swaps(prep) | _doubled(prep)))})"
             rf"(?=\s+(?!(?:{_NOT_A_VALUE}|{'|'.join(_TAKES)})\b)[\w$€£])"
             for i, (prep, verbs) in enumerate(_TAKES.items())), re.IGNORECASE)
_LONG_WORD = re.compile(rf"{_WORD_ALONE[0]}(?:[A-Z]?[a-z]{{5,}}|[a-z]{{6,}}){_WORD_ALONE[1]}")


def _near(typed: str, word: str) -> bool:
    """One letter dropped, added, changed or two swapped, the last letter as typed."""
    if typed[-1] != word[-1] or abs(len(typed) - len(word)) > 1:
        return False
    if len(typed) == len(word):
        diff = [i for i, (a, b) in enumerate(zip(typed, word, strict=True)) if a != b]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1 and
                                  typed[diff[0]] == word[diff[1]] and typed[diff[1]] == word[diff[0]])
    short, long = sorted((typed, word), key=len)
    return any(long[:i] + long[i + 1:] == short for i in range(len(long) - 1))


def _trigger(m: re.Match[str]) -> str:
    typed = m.group(0)
    low = typed.lower()
    if low in TRIGGERS:
        return typed
    found = [w for w in TRIGGERS if _near(low, w)]
    if len(found) != 1:
        return typed
    return found[0].capitalize() if typed[0].isupper() else found[0]


def _preposition(m: re.Match[str]) -> str:
    i = next(i for i in range(len(_TAKES)) if m.group(f"p{i}"))
    prep = list(_TAKES)[i]
    typed = m.group(f"p{i}")
    if typed.lower() in _TAKES:  # "work for" typed as "work fro" is "for", but "for" itself is no typo of "at"
        return m.group(0)
    return m.group(0)[: m.start(f"p{i}") - m.start()] + (prep.capitalize() if typed[0].isupper() else prep)


def _swapped(m: re.Match[str]) -> str:
    typed = m.group(0)
    if typed.islower():
        return _SWAPPED[typed]
    return _SWAPPED[typed.lower()].capitalize() if typed[1:].islower() else typed  # "Teh"; "TEH" is shouted: as typed


def mended(text: str) -> str:
    """`text` with the typos this module reads (above) mended; everything else as typed."""
    text = _LONG_WORD.sub(_trigger, _SWAPPED_RE.sub(_swapped, text))
    return _PREPOSITION.sub(_preposition, text)  # after the verb's own typo: "alergic too shellfish"
