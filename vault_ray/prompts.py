"""Every prompt the language-model reasoner sends, in one place, versioned.

Bump `VERSION` whenever a prompt's wording or answer shape changes: it is sent
along (in the system message) and recorded on the reasoner (`OpenAIReasoner.
prompt_version`), so a stored decision can be traced to the prompt that made it.

Claims are shown to the model under short labels (`new`, `c1`, `c2`, ...), never
their ids: the reasoner maps the labels back and rejects any label it did not give.
Every answer is one JSON object whose shape is given in the prompt.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

VERSION = "vault-ray-prompts/2"

SYSTEM = (
    "You maintain a shared memory of facts about one user, written by several AI agents. "
    "Answer with exactly one JSON object and nothing else. "
    f"(prompt set {VERSION})"
)


def _json(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, indent=1)


def extract(user_turn: str, assistant_after: Sequence[str], registry: Sequence[dict[str, str]]) -> str:
    return (
        "Extract durable facts about the user from their latest message.\n"
        "Each fact: `entity` is a dotted lowercase key (letters, digits, underscores, e.g. user.timezone, "
        "user.diet, user.schedule.gym); prefer a key from the registry below when one fits. "
        "`text` states the fact in the third person ('The user is vegetarian'). "
        "`value` is the short normalized value ('vegetarian', 'PST'), or null. "
        "`kind` is semantic (a fact), episodic (an event) or procedural (a routine).\n"
        "Skip small talk, questions and anything not about the user.\n\n"
        f"Registry (relevant entries):\n{_json(list(registry))}\n\n"
        f"Latest user message:\n{user_turn}\n\n"
        f"Assistant messages after it:\n{_json(list(assistant_after))}\n\n"
        'Answer: {"facts": [{"entity": "...", "text": "...", "value": "..." or null, "kind": "semantic"}]}'
    )


def classify(incoming: dict[str, Any], own: dict[str, dict[str, Any]], cardinality: str) -> str:
    return (
        "One agent stores a new fact. Compare it with the facts the SAME agent stored earlier on this entity "
        f"(cardinality {cardinality!r}: 'one' means a single current value, 'many' a set of values).\n"
        "op is one of:\n"
        "- NOOP: the new fact says nothing new; targets = [the label of the known fact]\n"
        "- UPDATE: it refines earlier fact(s) without contradicting them; targets = those labels\n"
        "- REPLACE: it contradicts earlier fact(s) of this agent; targets = those labels\n"
        "- ADD: it is new for this agent; targets = []\n\n"
        f"New fact:\n{_json(incoming)}\n\nEarlier facts of this agent:\n{_json(own)}\n\n"
        'Answer: {"op": "ADD" | "UPDATE" | "REPLACE" | "NOOP", "targets": ["c1", ...], "reason": "..."}'
    )


def conflicts(incoming: dict[str, Any], others: dict[str, dict[str, Any]], cardinality: str) -> str:
    return (
        "Which of the other agents' facts CONTRADICT the new fact (cannot both be true now)? "
        f"Cardinality {cardinality!r}: for 'many' only opposite statements about the same item contradict "
        "(likes sushi vs dislikes sushi), and two different people in a role one holds at a time (wife Maria vs "
        "wife Anna; a spouse, partner, mother or father); different items never do (two dogs named differently).\n\n"
        f"New fact:\n{_json(incoming)}\n\nOther facts:\n{_json(others)}\n\n"
        'Answer: {"contradicts": ["c1", ...]}'
    )


def disambiguate(fact: dict[str, Any], candidates: Sequence[str], registry: Sequence[dict[str, str]]) -> str:
    return (
        "A new fact was labelled with an entity key that is not in the store yet. Is it about the same thing "
        "as one of the existing keys below? Pick that key, or null to keep the new label.\n\n"
        f"Fact:\n{_json(fact)}\n\nExisting keys:\n{_json(list(candidates))}\n\n"
        f"Registry (relevant entries):\n{_json(list(registry))}\n\n"
        'Answer: {"entity": "<one of the existing keys>" | null}'
    )


def judge(incoming: dict[str, Any], incumbents: dict[str, dict[str, Any]]) -> str:
    return (
        "Two or more agents stored contradicting facts about the user, too close together (or under a policy) "
        "for a mechanical rule to decide. Each fact comes with its provenance: agent, the agent's authority "
        "weight on this entity (0 to 1), session, when it was observed, and the text. Decide which fact is most "
        "likely the user's actual current intent. If it is genuinely ambiguous, answer winner null: the user "
        "will be asked. Do not guess.\n\n"
        f"New fact (label new):\n{_json(incoming)}\n\nCurrent fact(s):\n{_json(incumbents)}\n\n"
        'Answer: {"winner": "new" | "c1" | ... | null, "rationale": "one or two sentences"}'
    )


def retry_note(problem: str) -> str:
    return (
        f"Your previous answer could not be used: {problem}. "
        "Answer again with exactly one JSON object of the requested shape."
    )
