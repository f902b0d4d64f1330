"""A name's spelling corrected in the turn after the user said it: "My name is Jon." A: "Nice to meet you, John!"
"Actually, it's Jon without an h" / "It's Jon, no h" / "No, Jon"; or the user's own slip: "My name is Jon." A: "Nice to
meet you, Jon!" "Actually, it's John with an h."

The name is stored only when it can be derived with certainty: the user's previous turn said the user's name, each
assistant reply between the two turns says a name back (or only acknowledges), the turn says one capitalized name
after a cue ("actually", "no", "sorry", "it's") or with a spelling note, that name is spelled close to the one said or
the one the assistant said (a letter or two apart, same first letter: a spelling, not another name), and any note
agrees with it ("with an h": it has an h; "without an h", "no h": it has none; "not John": it is not John). A note that
disagrees ("Jon with an h") leaves the name as it was: nothing is stored. A name of two words keeps the word not
corrected ("Jon Smith" corrected to "John": John Smith).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .base import Message, as_messages
from .extraction import extract_turn

IC = re.IGNORECASE
_CUE = (r"(?:actually|no|nope|nah|sorry|oops|well|haha|lol|ah|oh|erm|um|correction|just to clarify|small correction|"
        r"it's|its|it is|that's|that is|my name is|my name's|the name is|i'm|i am|spelled|spelt)")
_TURN = re.compile(rf"^(?P<cue>(?:{_CUE}\b[\s,.!:;\-–—]*)*)(?P<name>(?-i:[A-Z])[a-z'\-]+)(?P<note>[^.!?]*?)[\s.!]*$", IC)
_WITH = re.compile(r"^,?\s*(?:with|w/)\s+(?:an?|the|one|1)?\s*(?P<c>[a-z])\b(?:'s)?$", IC)
_TWO = re.compile(r"^,?\s*(?:with|w/)\s+(?:two|double|2)\s+(?P<c>[a-z])(?:'s|s)?$", IC)
_WITHOUT = re.compile(r"^,?\s*(?:without|with no|no|minus|sans)\s+(?:an?|the)?\s*(?P<c>[a-z])\b(?:'s)?$", IC)
_NOT = re.compile(r"^,?\s*(?:not|instead of)\s+(?P<n>(?-i:[A-Z])[a-z'\-]+)$", IC)
_FILLER = re.compile(r"(?:[\s,]+(?:lol|haha|thanks|thank you|please|pls|sorry|btw|:\)|:D))+\s*$", IC)
_NOT_NAMES = frozenset({"It", "That", "This", "Yes", "Yeah", "Sure", "Thanks", "Okay", "Ok", "Sorry", "No", "Nope",
                        "Actually", "Hi", "Hello", "Hey", "Great", "Cool", "Nice", "Right", "Correct", "Wrong", "Fine"})


def respelled(messages: Sequence[Message] | str, turn: str) -> str | None:
    """The statement ("My name is Jon") a `turn` that corrects the spelling of the name the user's previous turn said
    makes, or None."""
    m = _TURN.match(turn.strip())
    if m is None or m.group("name") in _NOT_NAMES or not (m.group("cue").strip() or _FILLER.sub("", m.group("note")).strip()):
        return None
    name, note = m.group("name"), _FILLER.sub("", m.group("note")).strip()
    if note and not _agrees(name, note):
        return None
    msgs = [] if isinstance(messages, str) else as_messages(messages)
    users = [i for i, msg in enumerate(msgs) if msg["role"] == "user"]
    if len(users) < 2:
        return None
    said = [f.value or "" for f in extract_turn(msgs[users[-2]]["content"]).facts if f.entity == "user.name"]
    if len(said) != 1:
        return None
    echoes = [_said_back(msgs[i]["content"], said[0]) for i in range(users[-2] + 1, users[-1])]
    if any(echo is None for echo in echoes):
        return None  # the assistant said something else between: the correction may be of that
    words = said[0].split()
    near = [i for i, w in enumerate(words) if _close(name, w) or any(e and _close(name, e) and _close(e, w) for e in echoes)]
    if len(near) != 1:
        return None
    words[near[0]] = name
    return f"My name is {' '.join(words)}"


def _agrees(name: str, note: str) -> bool:
    """Whether a spelling note says the name as spelled ("with an h" of John, "no h" of Jon, "not John" of Jon)."""
    low = name.lower()
    if m := _TWO.match(note):
        return m.group("c").lower() * 2 in low
    if m := _WITH.match(note):
        return m.group("c").lower() in low
    if m := _WITHOUT.match(note):
        return m.group("c").lower() not in low
    if m := _NOT.match(note):
        return m.group("n").lower() != low
    return False


_WORD = re.compile(r"(?-i:[A-Z])[a-z'\-]+")
_ACK = re.compile(r"^[\s\W]*(?:ok(?:ay)?|got it|noted|sure|thanks?|thank you|great|perfect|cool|done)[\s\W]*$", IC)


def _said_back(reply: str, name: str) -> str | None:
    """The name an assistant reply says back for `name` ("Nice to meet you, John!": John), "" for a bare
    acknowledgement, None for a reply that says no such name."""
    if _ACK.match(reply):
        return ""
    first = name.split()
    found = [w for w in _WORD.findall(reply) if w not in _NOT_NAMES and any(_close(w, f) for f in first)]
    return found[0] if found else None


def _close(a: str, b: str) -> bool:
    """Two spellings of one name: the same first letter and at most two letters apart (Jon / John, Sara / Sarah)."""
    a, b = a.lower(), b.lower()
    if not a or not b or a[0] != b[0] or abs(len(a) - len(b)) > 2:
        return False
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1] <= 2
