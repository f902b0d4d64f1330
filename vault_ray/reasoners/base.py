"""The Reasoner interface: extraction, pass-1 classification, pass-2 contradiction
detection, entity disambiguation and the judge."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ..errors import InvalidFact, InvalidInput
from ..models import Claim, Fact, Op, Unextracted
from ..registry import RegistryEntry
from ..texts import unstorable

Message = dict[str, str]


@dataclass(frozen=True)
class OwnVerdict:
    """Pass 1: what the incoming claim is relative to this agent's own claims.

    `targets` are the agent's claims it refers to: the known claim for NOOP, the
    claims it supersedes for UPDATE and REPLACE."""

    op: Op
    targets: tuple[str, ...] = ()
    reason: str = ""


@dataclass(frozen=True)
class JudgeCase:
    incoming: Claim
    incumbents: tuple[Claim, ...]
    weights: dict[str, float] = field(default_factory=dict)
    """agent -> authority weight on this entity."""
    cardinality: str = "one"
    """The entity's cardinality: which values say the same in other words (`rules.agrees`)."""


@dataclass(frozen=True)
class Judgement:
    """The judge's answer: a winning claim id, or None for "ambiguous"."""

    winner: str | None
    rationale: str = ""


@dataclass(frozen=True)
class Extraction:
    """The facts of one user turn, and what read as a statement about the user but gave none."""

    facts: tuple[Fact, ...]
    unextracted: tuple[Unextracted, ...] = ()


@runtime_checkable
class Reasoner(Protocol):
    def extract(self, messages: Sequence[Message], registry: Sequence[RegistryEntry]) -> list[Fact]: ...

    def classify(self, incoming: Claim, own: Sequence[Claim], cardinality: str) -> OwnVerdict: ...

    def conflicts(self, incoming: Claim, others: Sequence[Claim], cardinality: str) -> list[str]:
        """Ids of `others` that contradict `incoming`."""
        ...

    def disambiguate(self, fact: Fact, candidates: Sequence[str], registry: Sequence[RegistryEntry]) -> str | None:
        """Pick one of the candidate entity keys for the fact, or None to keep its own."""
        ...

    def judge(self, case: JudgeCase) -> Judgement: ...

    def close(self) -> None: ...


@runtime_checkable
class ReportingReasoner(Protocol):
    """A reasoner that also says what it could not extract (the rule and scripted ones)."""

    def extract_turn(self, messages: Sequence[Message], registry: Sequence[RegistryEntry]) -> Extraction: ...


def a_reasoner(value: object) -> Reasoner:
    """`value` if it can serve as a reasoner (the protocol's methods), else InvalidInput."""
    missing = [m for m in ("extract", "classify", "conflicts", "disambiguate", "judge") if not callable(getattr(value, m, None))]
    if missing:
        raise InvalidInput(f"reasoner must be a Reasoner (RuleReasoner(), ...): {type(value).__name__} "
                           f"has no {', '.join(missing)}")
    return value  # type: ignore[return-value]


def extract_with_report(reasoner: Reasoner, messages: Sequence[Message], registry: Sequence[RegistryEntry]) -> Extraction:
    """`extract_turn` where the reasoner has it; otherwise its facts, and, when it found
    none, each sentence of the turn that reads as a statement about the user."""
    if isinstance(reasoner, ReportingReasoner):
        return reasoner.extract_turn(messages, registry)
    facts = tuple(reasoner.extract(messages, registry))
    if facts:
        return Extraction(facts)
    from .clauses import about_user, sentences  # noqa: PLC0415  (keeps base importable alone)

    user, _ = latest_turn(messages)
    reason = f"the {getattr(reasoner, 'name', 'reasoner')} reasoner returned no fact for this turn"
    return Extraction((), tuple(Unextracted(s, reason) for s in sentences(user) if about_user(s)))


def latest_turn(messages: Sequence[Message] | str) -> tuple[str, list[str]]:
    """The latest user message and the assistant messages after it."""
    if isinstance(messages, str):
        return messages, []
    msgs = as_messages(messages)
    for i in range(len(msgs) - 1, -1, -1):
        if msgs[i]["role"] == "user":
            return msgs[i]["content"], [m["content"] for m in msgs[i + 1 :]]
    return "", [m["content"] for m in msgs]


def no_user_turn(msgs: Sequence[Message]) -> str:
    """Why `msgs` give nothing to extract: no message of role 'user' (naming the roles
    given, so a typo such as 'usr' or an unknown 'wizard' shows), or an empty one."""
    roles = list(dict.fromkeys(m["role"] for m in msgs))
    if "user" in roles:
        return "no user message to extract from: the latest user message is empty"
    given = f" (roles given: {', '.join(repr(r) for r in roles)})" if roles else ""
    return f"no user message to extract from: facts come from the latest message with role 'user'{given}"


def as_messages(messages: Any) -> list[Message]:
    """A user turn as chat messages: a string is one user message; otherwise each
    message must be a mapping with a non-empty string `role` and a string `content`
    (InvalidFact names the first that is not)."""
    if isinstance(messages, str):
        if (why := unstorable(messages)) is not None:
            raise InvalidFact(f"the message {why}", field="messages")
        return [{"role": "user", "content": messages}]
    if isinstance(messages, Mapping | bytes) or not isinstance(messages, Iterable):
        raise InvalidFact("messages must be a string or a list of {role, content} messages", field="messages")
    out = []
    for i, m in enumerate(messages):
        if not isinstance(m, Mapping):
            raise InvalidFact(f"message {i} must be a mapping with 'role' and 'content', got {type(m).__name__}",
                              field="messages")
        role, content = m.get("role"), m.get("content")
        if not isinstance(role, str) or not role.strip():
            raise InvalidFact(f"message {i} needs a role ('user', 'assistant', ...), got {role!r}", field="role")
        if not isinstance(content, str):
            raise InvalidFact(f"message {i}: content must be a string, got {type(content).__name__}",
                              field="content")
        if (why := unstorable(role) or unstorable(content)) is not None:
            raise InvalidFact(f"message {i} {why}", field="content")
        out.append(dict(m))
    return out
