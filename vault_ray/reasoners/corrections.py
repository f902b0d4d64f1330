"""A turn that only corrects a value ("Correction: Mountain time, not Pacific", "Oops, I
meant Denver", "nope, Berlin now"): read as the earlier statement with the value replaced.

A value corrected inside one turn is `extraction._corrected`'s. Here the turn says the new
value and nothing else, so alone it reads as no statement about the user, and it was
dropped without a word. The user's turn before it (an assistant's reply may come between,
but not a question: "Shall I book Paris?" "No, London" is an answer) is searched, last
clause first, for one that reads as one value of the same kind (a zone for a zone, a
place for a place); that clause with the new value is the statement. With no such clause, a time
zone still says which fact it is (the user's zone); any other value is reported in
`unextracted`, never dropped in silence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..models import Unextracted
from . import clauses as cl
from .amends import kind_of
from .answers import question_before
from .base import Message, as_messages
from .extraction import value_in

MAX_FIX_WORDS = 5

_CUE = (r"correction|sorry|oops|whoops|my bad|typo|scratch that|strike that|nope|no|nah|actually|wait|rather|"
        r"i mean|i meant|make (?:that|it)|change (?:that|it) to|should be|that should be|(?:it's|it is) actually")
_FIX = re.compile(rf"^(?:(?:{_CUE})\b[\s,:;.!\-–—]*)+(?P<fix>[^.!?;]+?)[\s.!]*$", re.IGNORECASE)
_NOT = re.compile(r"^not\s+[^,;]+[,;]\s*(?:but\s+|it's\s+)?(?P<a>.+)$|^(?P<b>[^,;]+?)[,;]?\s+(?:not|instead of)\s+[^,;]+$",
                  re.IGNORECASE)
_LEAD = re.compile(r"(?:on|at|in|by|from|every)\s+", re.IGNORECASE)
_TAIL = re.compile(r"\s+(?:now|instead|then|please|sorry)$", re.IGNORECASE)
_NO_VALUE = re.compile(r"\b(?:thanks|thank you|never ?mind|forget it|that's (?:right|wrong)|i|i'm|my|me|you|your|it|that|"
                       r"this|is|are|was|problem|worries|way|idea|sure|okay|ok|fine|good|great|wrong|right)\b", re.IGNORECASE)

NO_EARLIER = ("a correction ({fix!r}) with no statement of its own and none earlier in the conversation to correct: "
              "say the whole fact (\"I live in ...\"), or pass the earlier turns with it")


def the_fix(turn: str) -> str | None:
    """The new value a turn that only corrects says ("Correction: Mountain time, not
    Pacific" -> "Mountain time"), or None."""
    m = _FIX.match(turn.strip())
    if m is None:
        return None
    fix = m.group("fix").strip(" ,:-–—\"'")
    instead = _NOT.match(fix)
    fix = _TAIL.sub("", (instead.group("a") or instead.group("b")) if instead else fix).strip(" ,")
    if not fix or len(fix.split()) > MAX_FIX_WORDS or _NO_VALUE.search(fix):
        return None
    return fix


def corrected_statement(messages: Sequence[Message] | str, turn: str) -> tuple[str | None, Unextracted | None]:
    """(the statement a correcting `turn` makes, or None; what to report when it makes none)."""
    fix = the_fix(turn)
    if fix is None:
        return None, None
    kind = kind_of(fix)
    if question_before(messages):  # "Shall I book Paris?" "No, London": an answer, not a correction
        return None, None
    earlier = [] if isinstance(messages, str) else [m["content"] for m in as_messages(messages) if m["role"] == "user"][-2:-1]
    for said in earlier:
        for sentence in reversed(cl.sentences(said)):
            for clause in reversed(cl.clauses(sentence)):
                found = value_in(clause)
                if found and kind_of(found[1]) == kind:
                    old = found[1]
                    if (lead := _LEAD.match(old)) and not _LEAD.match(fix):  # "on mondays" corrected by "Tuesdays"
                        old = old[lead.end():]
                    at = clause.lower().rfind(old.lower())
                    return clause[:at] + fix + clause[at + len(old):], None
    if kind == "zone":
        return f"My time zone is {fix}", None
    if kind == "place" or any(ch.isdigit() or ch.isupper() for ch in fix):
        return None, Unextracted(turn, NO_EARLIER.format(fix=fix))
    return None, None
