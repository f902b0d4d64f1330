"""The policies an evaluation compares, and the scripted judge they may consult.

`lww` is not a vault policy: it is the last-write-wins baseline that memory
libraries implement (the newest *delivered* write on a label replaces the value),
replayed by `replay.lww_counts` without a vault. Nor is `oracle`, the reliability
oracle (oracle.py): the ceiling every report shows. `learned` is `authority` with
weights estimated from a held-out half of the scenarios (weights.py); the job builds it.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from vault_ray import JudgeCase, Judgement, Policy
from vault_ray.policy import specificity

from .catalog import CATALOG
from .config import DEFAULT_STRATEGY, EvalConfig, GeneratorConfig
from .namespace import ALIGN_THRESHOLD, ASK_THRESHOLD

POLICY_NAMES = ("lww", "recency", "authority", "consensus", "judge", "mixed")
REFERENCES = ("oracle", "learned")
"""The reference rows every `vault-ray eval` report adds: the reliability oracle (the
ceiling) and authority with weights learned from held-out scenarios."""


@dataclass(frozen=True)
class PolicySpec:
    name: str
    policy: Policy | None
    """None for the last-write-wins baseline and the oracle."""
    uses_judge: bool = False
    world: GeneratorConfig | None = None
    """Set for the reliability oracle: the world it knows."""


def for_replay(policy: Policy) -> Policy:
    """A user's policy as the replay vault must run it: its align and ask thresholds
    moved onto the salted vectors (within a tenant cos = (cos_text + 1) / 2, see
    namespace.py), everything else as given."""
    return replace(policy, align_threshold=(policy.align_threshold + 1) / 2,
                   ask_threshold=(policy.ask_threshold + 1) / 2)


def custom_spec(name: str, policy: Policy) -> PolicySpec:
    """A user-level policy (thresholds as a store would have them) as a replayed policy."""
    replayed = for_replay(policy)
    return PolicySpec(name, replayed, uses_judge=consults_judge(replayed))


def authority_table(gen: GeneratorConfig) -> dict[str, dict[str, float]]:
    """The generator's nominal reliabilities as authority weights, one exact pattern per
    catalog entity plus `*` for labels outside the catalog."""
    table = {}
    for agent, rel in gen.agents.items():
        weights = {spec.key: round(gen.reliability(agent, spec.domain), 4) for spec in CATALOG}
        weights["*"] = float(rel.get("*", 0.5))
        table[agent] = weights
    return table


def eval_settings(ev: EvalConfig) -> dict[str, Any]:
    """The settings every compared vault policy shares (user-level thresholds)."""
    return {"near_simultaneous_s": ev.near_simultaneous_s, "consensus_margin": ev.consensus_margin,
            "max_open_disputes": ev.max_open_disputes}


def build_policy(name: str, gen: GeneratorConfig, ev: EvalConfig) -> PolicySpec:
    if name == "lww":
        return PolicySpec("lww", None)
    if name == "oracle":
        return PolicySpec("oracle", None, world=gen)
    if name == "learned":
        raise ValueError("`learned` needs weights estimated from held-out scenarios: run_eval builds it "
                         "(weights.learned_policy)")
    common = {
        "align_threshold": ALIGN_THRESHOLD, "ask_threshold": ASK_THRESHOLD,
        "near_simultaneous_s": ev.near_simultaneous_s, "consensus_margin": ev.consensus_margin,
        "max_open_disputes": ev.max_open_disputes,
    }
    weights = authority_table(gen)
    if name == "recency":
        return PolicySpec(name, Policy(default_strategy="recency", **common))
    if name == "authority":
        return PolicySpec(name, Policy(default_strategy="authority", authority=weights, **common))
    if name == "consensus":
        return PolicySpec(name, Policy(default_strategy="consensus", authority=weights, **common))
    if name == "judge":
        return PolicySpec(name, Policy(default_strategy="judge", authority=weights, **common), uses_judge=True)
    if name == "mixed":
        policy = mixed_policy(ev, weights, common)
        return PolicySpec(name, policy, uses_judge=consults_judge(policy))
    raise ValueError(f"unknown policy {name!r}; known: {', '.join(POLICY_NAMES + REFERENCES)}")


def mixed_policy(ev: EvalConfig, weights: dict[str, dict[str, float]], common: dict[str, Any]) -> Policy:
    """`ev.mixed` as a Policy: its `*` entry is the default strategy, the rest per-pattern."""
    strategies = {p: s for p, s in ev.mixed.items() if p != DEFAULT_STRATEGY}
    return Policy(default_strategy=ev.mixed.get(DEFAULT_STRATEGY, "recency"), strategies=strategies,
                  authority=weights, default_on_ambiguous=ev.mixed_on_ambiguous, **common)


def consults_judge(policy: Policy) -> bool:
    """Whether some entity's contradiction can reach the judge: a `judge` strategy on an
    entity that is not high stakes (those always go to the user), or near-simultaneous
    writes under `recency` sent to the judge. The replay scripts a judge only then: a
    judge-free policy must not report a judge it never had, one that asks must not fall
    back to the rule reasoner's."""
    reached = {s for p, s in policy.strategies.items() if not _wholly_high_stakes(p, policy.high_stakes)}
    if not _wholly_high_stakes("*", policy.high_stakes):
        reached.add(policy.default_strategy)
    asks_on_ambiguous = "judge" in (policy.default_on_ambiguous, *policy.on_ambiguous.values())
    return "judge" in reached or ("recency" in reached and policy.near_simultaneous_s > 0 and asks_on_ambiguous)


def _wholly_high_stakes(pattern: str, high_stakes: Sequence[str]) -> bool:
    """Every entity `pattern` matches is high stakes (never auto-resolved)."""
    if pattern == "*":
        return "*" in high_stakes
    if not pattern.endswith(".*"):
        return any(specificity(h, pattern) is not None for h in high_stakes)
    # `k.*` matches the keys starting `k.`: all covered by `*` or by a wildcard on a prefix of them
    return any(h == "*" or (h.endswith(".*") and pattern[:-1].startswith(h[:-1])) for h in high_stakes)


def build_policies(names: Sequence[str], gen: GeneratorConfig, ev: EvalConfig,
                   custom: dict[str, Policy] | None = None) -> list[PolicySpec]:
    """Specs for `names`; a name in `custom` is that user-level policy (see `custom_spec`)."""
    if not names:
        raise ValueError("name at least one policy")
    custom = custom or {}
    return [custom_spec(n, custom[n]) if n in custom else build_policy(n.strip(), gen, ev) for n in names]


def check_names(names: Sequence[str]) -> None:
    """Fail early on a name no run can build."""
    unknown = [n for n in names if n not in POLICY_NAMES + REFERENCES]
    if unknown:
        raise ValueError(f"unknown policy {unknown[0]!r}; known: {', '.join(POLICY_NAMES + REFERENCES)}")


def unit_hash(*parts: object) -> tuple[float, float]:
    """Two reproducible uniforms in [0, 1) from the parts (no global RNG state)."""
    digest = hashlib.blake2b(":".join(map(str, parts)).encode(), digest_size=16).digest()
    return int.from_bytes(digest[:8], "little") / 2**64, int.from_bytes(digest[8:], "little") / 2**64


class OracleJudge:
    """A judge of configurable accuracy that knows the ground truth.

    The right answer is the candidate whose value is true, at the incoming write's
    delivery, for the entity the incumbents are about ("ambiguous" when none is).
    With probability `accuracy` the judge gives it; otherwise it names a candidate
    whose value is false (or says "ambiguous" when no candidate is false).
    `truth(case)` returns (what to count the call under, e.g. the scenario, the value
    true now or None); draws are hashed from (seed, incoming claim id), so a replay is
    reproducible."""

    def __init__(self, accuracy: float, seed: int, truth: Callable[[JudgeCase], tuple[Any, str | None]]) -> None:
        self.accuracy = accuracy
        self.seed = seed
        self.truth = truth
        self.calls: Counter[Any] = Counter()

    def __call__(self, case: JudgeCase) -> Judgement:
        scenario, now = self.truth(case)
        self.calls[scenario] += 1
        candidates = (case.incoming, *case.incumbents)
        right = [c for c in candidates if now is not None and c.value == now]
        wrong = [c for c in candidates if now is None or c.value != now]
        u, v = unit_hash(self.seed, case.incoming.id)
        if u < self.accuracy:
            return Judgement(right[0].id if right else None, "oracle: the value true now")
        if wrong:
            return Judgement(wrong[int(v * len(wrong))].id, "oracle: a wrong pick")
        return Judgement(None, "oracle: wrongly ambiguous")
