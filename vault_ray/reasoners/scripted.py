"""ScriptedReasoner: answers from a script, falls back to another reasoner, and
counts every call. For tests and demos; no mocking library needed."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..models import Claim, Fact
from ..registry import RegistryEntry
from .base import Extraction, JudgeCase, Judgement, Message, OwnVerdict, extract_with_report, latest_turn
from .rules import RuleReasoner

Script = Mapping[str, Any] | Callable[..., Any] | None


class ScriptedReasoner:
    """Each script is a mapping keyed by text (the user turn for `extract`, the
    incoming claim's text otherwise) or a callable taking the same arguments as the
    method. A missing answer goes to `fallback` (a RuleReasoner by default).

    `judge` may also answer "incoming" or "incumbent" instead of a claim id."""

    name = "scripted"

    def __init__(
        self,
        *,
        extract: Script = None,
        classify: Script = None,
        conflicts: Script = None,
        disambiguate: Script = None,
        judge: Script = None,
        fallback: Any = None,
    ) -> None:
        self.scripts = {
            "extract": extract, "classify": classify, "conflicts": conflicts,
            "disambiguate": disambiguate, "judge": judge,
        }
        self.fallback = fallback if fallback is not None else RuleReasoner()
        self.calls: Counter[str] = Counter()
        self.log: list[tuple[str, str]] = []

    def _answer(self, method: str, key: str, *args: Any) -> tuple[bool, Any]:
        self.calls[method] += 1
        self.log.append((method, key))
        script = self.scripts[method]
        if script is None:
            return False, None
        if callable(script):
            return True, script(*args)
        if key in script:
            return True, script[key]
        return False, None

    def extract(self, messages: Sequence[Message] | str, registry: Sequence[RegistryEntry] = ()) -> list[Fact]:
        user, _ = latest_turn(messages)
        found, answer = self._answer("extract", user, messages, registry)
        return list(answer) if found else self.fallback.extract(messages, registry)

    def extract_turn(self, messages: Sequence[Message] | str, registry: Sequence[RegistryEntry] = ()) -> Extraction:
        """The scripted facts (nothing unextracted), or the fallback's report."""
        user, _ = latest_turn(messages)
        found, answer = self._answer("extract", user, messages, registry)
        if found:
            return Extraction(tuple(answer))
        msgs = [{"role": "user", "content": messages}] if isinstance(messages, str) else messages
        return extract_with_report(self.fallback, msgs, registry)

    def classify(self, incoming: Claim, own: Sequence[Claim], cardinality: str) -> OwnVerdict:
        found, answer = self._answer("classify", incoming.text, incoming, own, cardinality)
        return answer if found else self.fallback.classify(incoming, own, cardinality)

    def conflicts(self, incoming: Claim, others: Sequence[Claim], cardinality: str) -> list[str]:
        found, answer = self._answer("conflicts", incoming.text, incoming, others, cardinality)
        return list(answer) if found else self.fallback.conflicts(incoming, others, cardinality)

    def disambiguate(self, fact: Fact, candidates: Sequence[str], registry: Sequence[RegistryEntry] = ()) -> str | None:
        found, answer = self._answer("disambiguate", fact.text, fact, candidates, registry)
        return answer if found else self.fallback.disambiguate(fact, candidates, registry)

    def judge(self, case: JudgeCase) -> Judgement:
        found, answer = self._answer("judge", case.incoming.text, case)
        if not found:
            return self.fallback.judge(case)
        if isinstance(answer, Judgement):
            return answer
        if answer == "incoming":
            return Judgement(case.incoming.id, "scripted")
        if answer == "incumbent":
            return Judgement(case.incumbents[0].id, "scripted")
        return Judgement(answer, "scripted")

    def close(self) -> None:
        self.fallback.close()
