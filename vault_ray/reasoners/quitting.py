"""Leaving a job without naming the employer ("I quit my job", "I just left my job last week", "I resigned"), or
naming it in lower case ("i quit acme"): the employer is the one the user said earlier in the same conversation.

Alone the turn names no employer, so nothing is stored (there is no "unemployed" to infer: the user may have another
job). With the user's earlier turns passed along, the last one that says where the user works now ("I work at
Google") names it: `not:Google`. An earlier turn that says the user left it already, or that names two employers,
or someone else's ("My husband works at Google"), names none. A leaving said long ago ("I quit my job in 2015",
"... three years ago") or of an old job ("I left my old job") may be of another employer: nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from ..models import Fact
from ..values import canonical
from . import clauses as cl
from . import framing
from .base import Message, as_messages
from .extraction import extract_turn
from .unnamed_job import ADV, LEAD, left_now
from .unnamed_job import OLD as _OLD
from .unnamed_job import UNNAMED as _UNNAMED

IC = re.IGNORECASE
_NAMED = re.compile(rf"{LEAD}i {ADV}(?:quit|left)\s+(?P<v>.+)$", IC)
_SECOND_JOB = re.compile(r"\b(?:freelanc\w*|moonlight\w*|side (?:job|gig|hustle|business)|second job|two jobs|"
                         r"also work|(?:part[- ]time|weekend) job)\b", IC)
"""An earlier turn that says a second job ("I work at Google and freelance for Acme"): "my job" may be either."""


def left_unnamed(messages: Sequence[Message] | str, turn: str, facts: Sequence[Fact]) -> list[Fact]:
    """`not:<employer>` for a job the latest `turn` says the user left without naming it ("I quit my job"), or naming
    it in lower case, when an earlier user turn of `messages` says where the user works; none otherwise."""
    if any(f.entity == "user.employer" for f in facts):
        return []
    said = [c for s in cl.sentences(framing.set_aside(turn)[0]) if not cl.is_question(s) for c in cl.clauses(s)]
    unnamed = [c for c in said if (m := _UNNAMED.match(c.strip())) and not _OLD.search(c) and left_now(m.group("rest"))]
    named = [m.group("v") for c in said if (m := _NAMED.match(c.strip()))]
    # "If I quit my job", "Write a story where I quit my job": no fact ("I was laid off" is done, no past state)
    if not (unnamed or named) or any(framing.unreal(c) not in (None, framing.PAST) for c in said):
        return []
    employer = _earlier_employer(messages)
    if employer is None:
        return []
    if unnamed or any(v.lower().startswith(employer.lower()) and left_now(v[len(employer):]) for v in named):
        left = extract_turn(f"I left my job at {employer}").facts  # "i quit acme" after "I work at Acme"
        return [replace(f, source=turn) for f in left if f.entity == "user.employer" and (f.value or "").startswith("not:")]
    return []


def _earlier_employer(messages: Sequence[Message] | str) -> str | None:
    """The employer the user's latest earlier turn that says one names, as said; None when that turn says the user
    left it, names two, or no earlier turn names one."""
    msgs = [] if isinstance(messages, str) else as_messages(messages)
    users = [m["content"] for m in msgs if m["role"] == "user"][:-1]
    for text in reversed(users):
        said = [f.value or "" for f in extract_turn(text).facts if f.entity == "user.employer"]
        if not said:
            continue
        named = {canonical("user.employer", v) for v in said if not v.startswith("not:")}
        if said[-1].startswith("not:") or _SECOND_JOB.search(text) or len(named) > 1:
            return None
        return said[-1]
    return None


def leaving(words: str) -> bool:
    """Whether `words` (a clause reported as unread) say a leaving this module reads."""
    return bool(_UNNAMED.match(words.strip()) or _NAMED.match(words.strip()))
