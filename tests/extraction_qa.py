"""What the QA-round extraction tests (tests/test_extraction_qa*.py) read from one turn."""

from __future__ import annotations

from vault_ray import RuleReasoner


def facts(reasoner: RuleReasoner, said: str | list[dict[str, str]]) -> list[tuple[str, str]]:
    """The (entity, value) pairs the turn gives, sorted."""
    return sorted((f.entity, f.value) for f in reasoner.extract_turn(said).facts)  # type: ignore[misc]


def reasons(reasoner: RuleReasoner, said: str | list[dict[str, str]]) -> list[str]:
    """Why each statement about the user the turn holds gave no fact."""
    return [u.reason for u in reasoner.extract_turn(said).unextracted]


def chat(*turns: str) -> list[dict[str, str]]:
    """Turns alternating user / assistant, the user first."""
    return [{"role": "user" if i % 2 == 0 else "assistant", "content": t} for i, t in enumerate(turns)]
