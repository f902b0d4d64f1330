"""The claim-ledger acceptance scenarios (issue 2) written once, as functions of a
`Mode` (embedded or cluster), so the same scenario runs on `Vault.open` and on
`Vault.connect` and the two outcomes can be compared after `normalize`."""

from __future__ import annotations

import random
import re
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import fields, is_dataclass
from datetime import UTC, datetime, timedelta
from enum import Enum
from pathlib import Path
from typing import Any

import pytest
import scenarios
from scenarios import authority_dispute, check_authority_dispute, check_recency_supersede, drifting_reasoner, recency_supersede

from vault_ray import (
    Claim,
    ClaimNotFound,
    DisputeError,
    DisputeNotFound,
    Fact,
    HashingEmbedder,
    InvalidEmbedding,
    InvalidEntity,
    Op,
    Policy,
    ScriptedReasoner,
    Vault,
)

T0 = datetime(2026, 1, 1, tzinfo=UTC)
PARTITIONS = 4


class Mode:
    """How a scenario opens a vault: `embedded` (Vault.open) or `cluster` (Vault.connect)."""

    def __init__(self, name: str, root: Path, cluster: Callable[..., Vault] | None = None) -> None:
        self.name, self.root, self._cluster = name, root, cluster
        self._opened: list[Vault] = []
        self._stores = 0

    def open(self, *, reasoner=None, policy=None) -> Vault:  # type: ignore[no-untyped-def]
        self._stores += 1
        store = f"{self.name}-{self._stores}"
        kw: dict[str, Any] = {"embedder": HashingEmbedder(), "partitions": PARTITIONS, "reasoner": reasoner,
                              "policy": policy}
        vault = self._cluster(store, **kw) if self._cluster else Vault.open(self.root / store, **kw)
        self._opened.append(vault)
        return vault

    def reopen(self, vault: Vault) -> Vault:
        """Close the store and open it again: the state comes back from the logs only
        (in cluster mode every actor stops and new ones start on the same store)."""
        if self._cluster is None:
            path = vault.info().store
            vault.close()
            again = Vault.open(path, embedder=vault.embedder, reasoner=vault.reasoner)
        else:
            from vault_ray.actors import shutdown

            store = Path(vault.info().store).name
            shutdown(namespace=vault.info().namespace)
            again = self._cluster(store, embedder=vault.embedder, reasoner=vault.reasoner)
        self._opened.append(again)
        return again

    def calls(self, vault: Vault) -> Counter[str]:
        """The reasoner's calls wherever they ran: extraction and disambiguation in the
        caller, passes 1 and 2 in the partition owner (a shard actor in cluster mode)."""
        front: Counter[str] = Counter(vault.reasoner.calls)  # type: ignore[attr-defined]
        if self._cluster is None:
            return front
        return front + vault._backend.reasoner_calls()  # type: ignore[attr-defined]

    def indexes_match_logs(self, vault: Vault) -> bool:
        checked = vault.check()
        return len(checked) == vault.info().partitions and all(checked.values())

    def close(self) -> None:
        for vault in self._opened:
            vault.close()


# -- comparing outcomes across modes -------------------------------------------------------
HEX_ID = re.compile(r"[0-9a-f]{32}")


def normalize(obj: Any) -> Any:
    """Outcomes with generated ids replaced by labels, times dropped and scores
    rounded: equal for the same behaviour in both modes.

    A claim's label is its content (entity, agent, text), so it does not depend on
    where the claim first shows up. An entity view's active claims and distinct values are
    compared in their order: a tie on `observed_at` (one batch) reads in write order, then
    agent and value (docs/policies.md, "The order of a view"), the same in both modes."""
    labels: dict[str, str] = {}
    used: Counter[str] = Counter()

    def collect(x: Any) -> None:
        if isinstance(x, Claim) and x.id not in labels:
            key = f"{x.entity}|{x.agent}|{x.text}"
            used[key] += 1
            labels[x.id] = f"<{key}#{used[key]}>"
        if is_dataclass(x) and not isinstance(x, type):
            for f in fields(x):
                collect(getattr(x, f.name))
        elif isinstance(x, dict):
            for v in x.values():
                collect(v)
        elif isinstance(x, list | tuple | set | frozenset):
            for v in x:
                collect(v)

    def label(m: re.Match[str]) -> str:
        return labels.setdefault(m.group(0), f"<id{len(labels)}>")

    def walk(x: Any) -> Any:
        if is_dataclass(x) and not isinstance(x, type):
            out = {"__": type(x).__name__, **{f.name: walk(getattr(x, f.name)) for f in fields(x)
                                              if f.name != "embedding"}}
            return out
        if isinstance(x, Enum):
            return str(x.value)
        if isinstance(x, str):
            return HEX_ID.sub(label, x)
        if isinstance(x, datetime):
            return "<time>"
        if isinstance(x, float):
            return round(x, 3)
        if isinstance(x, dict):
            return {walk(k): walk(v) for k, v in x.items()}
        if isinstance(x, list | tuple):
            return [walk(v) for v in x]
        if isinstance(x, set | frozenset):
            return sorted(walk(v) for v in x)
        return x

    collect(obj)
    return walk(obj)


# -- the scenarios ---------------------------------------------------------------------------
def seed_authority_dispute(mode: Mode) -> dict:
    vault = mode.open(reasoner=drifting_reasoner())
    out = authority_dispute(vault)
    (b,) = out["b"]
    assert b.aligned_from == "user.wrong_label"
    check_authority_dispute(out)
    # the writer's own label reads the entity its claim joined (both modes)
    out["wrong_label_view"] = vault.get("user.wrong_label")
    assert out["wrong_label_view"] == vault.get("user.timezone") and out["wrong_label_view"].entity == "user.timezone"
    return out


def seed_recency_supersede(mode: Mode) -> dict:
    out = recency_supersede(mode.open())
    check_recency_supersede(out)
    return out


def two_pass_rules(mode: Mode) -> dict:
    vault = mode.open(reasoner=ScriptedReasoner())
    a, b = vault.agent("a"), vault.agent("b")
    first = a.add("I'm vegetarian").decisions[0]
    again = a.add("I'm vegetarian").decisions[0]
    assert again.op == Op.NOOP and again.claim_id == first.claim_id
    gym = a.add("I go to the gym at 7am").decisions[0]
    before = mode.calls(vault)["conflicts"]
    upd = a.add("I go to the gym at 7am on weekdays").decisions[0]
    assert upd.op == Op.UPDATE and upd.superseded == (gym.claim_id,)
    assert mode.calls(vault)["conflicts"] == before  # pass 2 never ran
    pst = a.add("I'm in PST").decisions[0]
    cet = a.add("I'm in CET").decisions[0]
    assert cet.op == Op.REPLACE and cet.superseded == (pst.claim_id,)
    before = mode.calls(vault)["conflicts"]
    est = b.add("I'm in EST").decisions[0]  # ADD with another agent's claim present: pass 2 runs once
    assert est.op == Op.ADD and mode.calls(vault)["conflicts"] == before + 1
    calls = mode.calls(vault)
    return {"decisions": [first, again, gym, upd, pst, cet, est], "history": vault.history("user.timezone"),
            "calls": {m: calls[m] for m in ("classify", "conflicts", "extract")}}


def late_arrival(mode: Mode) -> dict:
    return scenarios.late_arrival(mode.open())


def wildcards(mode: Mode) -> dict:
    vault = mode.open()
    vault.set_strategy("user.schedule.*", "authority")
    vault.set_authority("planner", "user.schedule.*", 0.9)
    vault.set_authority("chat", "user.schedule.*", 0.3)
    vault.agent("planner").add("I go to the gym at 7am")
    gym = vault.agent("chat").add("I go to the gym at 9pm").decisions[0]
    assert gym.outcome == "disputed" and gym.strategy == "authority"
    vault.set_strategy("user.schedule.yoga", "recency")
    vault.set_authority("chat", "user.schedule.yoga", 1.0)
    vault.agent("planner").add("I do yoga on Mondays")
    yoga = vault.agent("chat").add("I do yoga on Fridays").decisions[0]
    assert yoga.outcome == "active" and yoga.strategy == "recency"
    return {"gym": gym, "yoga": yoga, "views": [vault.get("user.schedule.gym"), vault.get("user.schedule.yoga")]}


def reopen_same_answers(mode: Mode) -> dict:
    vault = mode.open(reasoner=drifting_reasoner())
    authority_dispute(vault)
    recency_supersede(vault)
    before = _answers(vault)
    vault = mode.reopen(vault)
    assert _answers(vault) == before
    assert vault.policy.strategy_for("user.timezone") == "authority"  # the policy persisted
    assert mode.indexes_match_logs(vault)
    return {"answers": before}


def _answers(vault: Vault) -> tuple:
    return (
        [(h.claim.id, round(h.score, 4), h.contested) for h in vault.search("what timezone is the user in?")],
        [(h.claim.id, h.contested) for h in vault.search("italian food")],
        vault.get("user.timezone"), vault.get("user.food_preferences"), vault.history("user.timezone"),
        vault.disputes(),
    )


def dispute_lifecycle(mode: Mode) -> dict:
    vault = mode.open(reasoner=drifting_reasoner())
    out = authority_dispute(vault)
    (dispute,) = out["disputes"]
    opened = datetime.now(UTC)
    with pytest.raises(DisputeError):
        vault.resolve_dispute(dispute.id, "not-a-member", decided_by="user")
    done = vault.resolve_dispute(dispute.id, dispute.challenger, decided_by="user", note="moved east")
    assert done.status == "resolved" and done.resolution.winner == dispute.challenger
    with pytest.raises(DisputeError):
        vault.resolve_dispute(dispute.id, dispute.challenger, decided_by="user")
    with pytest.raises(DisputeNotFound):
        vault.dispute("dsp-0-nope")
    with pytest.raises(ClaimNotFound):
        vault.claim("nope")
    view = vault.get("user.timezone")
    assert not view.contested and [c.value for c in view.active] == ["EST"]
    then = vault.get("user.timezone", as_of=opened)
    assert then.contested
    was = vault.search("what timezone is the user in?", k=1, as_of=opened)
    assert was[0].claim.value == "PST" and was[0].contested
    return {"resolved": done, "view": view, "then": then, "was": was, "claim": vault.claim(dispute.challenger),
            "all": vault.disputes(None), "events": [(e.kind, e.claim_id, e.status) for e in vault.events(
                entity="user.timezone")]}


def person_decision_sticks(mode: Mode) -> dict:
    """QA round 91: a person's resolution is not overturned by an agent's policy, in the
    shard actors as in-process, and after a restart (the partition reads it from its log)."""
    vault = mode.open(reasoner=drifting_reasoner())
    vault.set_strategy("user.timezone", "authority")
    vault.set_authority("scheduler", "user.timezone", 0.9)

    def say(agent: str, value: str, hours: int):  # type: ignore[no-untyped-def]
        fact = Fact("user.timezone", f"The user is in {value}", value=value, observed_at=T0 + timedelta(hours=hours))
        return vault.agent(agent).add_facts(fact).decisions[0]

    say("scheduler", "PST", 0)
    est = say("chat", "EST", 1)
    vault.resolve_dispute(est.dispute_id, est.claim_id, decided_by="user", note="moved to NY")
    again = say("scheduler", "PST", 2)
    assert again.outcome == "disputed" and vault.get("user.timezone").contested
    vault = mode.reopen(vault)
    later = vault.agent("scheduler").add_facts(Fact("user.timezone", "The user is in CST", value="CST",
                                                    observed_at=T0 + timedelta(hours=3))).decisions[0]
    assert later.outcome == "disputed"
    assert [c.value for c in vault.get("user.timezone").active] == ["EST"]
    return {"again": again, "later": later, "disputes": vault.disputes(None)}


def bad_input_and_idempotency(mode: Mode) -> dict:
    vault = mode.open()
    mem = vault.agent("a")
    good = Fact("user.diet", "The user is vegan", "vegan")
    with pytest.raises(InvalidEntity):
        mem.add_facts([good, Fact("User Diet!", "bad key")])
    with pytest.raises(InvalidEmbedding):
        mem.add_facts([good], vectors=[[0.0] * 3])
    assert vault.history("user.diet") == []  # a batch with one bad fact is rejected whole
    cid = uuid.uuid4().hex
    first = mem.add_facts([Fact("user.job", "The user is a nurse", "nurse", claim_id=cid)]).decisions[0]
    again = mem.add_facts([Fact("user.job", "The user is a nurse", "nurse", claim_id=cid)]).decisions[0]
    assert again == first and len(vault.history("user.job")) == 1
    return {"first": first, "again": again}


AGENTS = ("a0", "a1", "a2", "a3")
ENTITIES = ("user.timezone", "user.diet", "user.job", "user.location", "auth.one", "auth.two")
VALUES = ("red", "green", "blue")


def random_sequence(mode: Mode) -> dict:
    """A seeded stream of contradicting writes under recency and authority; the
    invariants of DESIGN §7 (1, 2, 3) hold and the final state is the same in both modes."""
    policy = Policy(strategies={"auth.*": "authority"}, max_open_disputes=100,
                    authority={a: {"auth.*": w} for a, w in zip(AGENTS, (0.2, 0.4, 0.6, 0.8), strict=True)})
    vault = mode.open(policy=policy)
    rng = random.Random(7)
    decisions = []
    for i in range(80):
        agent, entity, value = rng.choice(AGENTS), rng.choice(ENTITIES), rng.choice(VALUES)
        fact = Fact(entity, f"the {entity.split('.')[1]} is {value}", value, observed_at=T0 + timedelta(minutes=i))
        decisions += vault.agent(agent).add_facts([fact], resolve=False).decisions
    check_invariants(vault)
    assert mode.indexes_match_logs(vault)
    return {"decisions": decisions, "views": [vault.get(e) for e in ENTITIES], "open": len(vault.disputes())}


def check_invariants(vault: Vault) -> None:
    """DESIGN §7: 1 (one active value per 'one' entity), 2 (superseded names its
    successor; disputes name existing claims)."""
    claims = {c.id: c for c in vault.claims()}
    policy, registry = vault.policy, vault.registry
    active: dict[str, set[str]] = {}
    for c in claims.values():
        if c.status == "active":
            active.setdefault(c.entity, set()).add((c.value or c.text).lower())
        if c.status == "superseded":
            assert c.superseded_by in claims, f"{c.id} superseded by unknown {c.superseded_by}"
    for entity, values in active.items():
        if policy.cardinality_for(entity, registry.cardinality(entity)) == "one":
            assert len(values) == 1, f"{entity} has several active values {values}"
    for d in vault.disputes(None):
        assert {d.challenger, *d.incumbents, *d.supporters} <= set(claims)


SCENARIOS = {
    f.__name__: f
    for f in (seed_authority_dispute, seed_recency_supersede, two_pass_rules, late_arrival, wildcards,
              reopen_same_answers, dispute_lifecycle, bad_input_and_idempotency, random_sequence, person_decision_sticks)
}
