"""The partition's write path (engine/partition.py): the seed scenarios, the two-pass
rules (NOOP, UPDATE, REPLACE, ADD), late arrival, wildcards, close and reopen; and a
partition used directly, with its log and index injected."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from scenarios import (
    authority_dispute,
    check_authority_dispute,
    check_recency_supersede,
    drifting_reasoner,
    late_arrival,
    recency_supersede,
)

from vault_ray import HashingEmbedder, Op, Policy, RuleReasoner, ScriptedReasoner, Vault, WriteRequest
from vault_ray.engine.partition import Partition
from vault_ray.engine.txn import WriteItem
from vault_ray.storage import DuckDBClaimLog, FlatIndex


def test_authority_dispute_with_label_drift(make_vault):
    reasoner = drifting_reasoner()
    out = authority_dispute(make_vault(reasoner=reasoner))
    (b,) = out["b"]
    assert b.aligned_from == "user.wrong_label"
    check_authority_dispute(out)


def test_recency_supersede(make_vault):
    check_recency_supersede(recency_supersede(make_vault()))


def test_repeat_is_noop(vault):
    mem = vault.agent("a")
    first = mem.add("I'm vegetarian").decisions[0]
    again = mem.add("I'm vegetarian").decisions[0]
    assert again.op == Op.NOOP and again.outcome == "noop" and again.claim_id == first.claim_id
    assert len(vault.history("user.diet")) == 1


def test_refinement_is_update_and_skips_pass_two():
    reasoner = ScriptedReasoner()
    with_vault = _open(reasoner)
    with with_vault as vault:
        mem = vault.agent("a")
        first = mem.add("I go to the gym at 7am").decisions[0]
        calls_before = reasoner.calls["conflicts"]
        upd = mem.add("I go to the gym at 7am on weekdays").decisions[0]
        assert upd.op == Op.UPDATE and upd.outcome == "active"
        assert upd.superseded == (first.claim_id,)
        assert reasoner.calls["conflicts"] == calls_before  # pass 2 never ran
        assert [c.value for c in vault.get("user.schedule.gym").active] == ["at 7am on weekdays"]


def test_self_contradiction_is_replace(vault):
    mem = vault.agent("a")
    old = mem.add("I'm in PST").decisions[0]
    new = mem.add("I'm in CET").decisions[0]
    assert new.op == Op.REPLACE and new.superseded == (old.claim_id,)
    hist = {c.id: c for c in vault.history("user.timezone")}
    assert hist[old.claim_id].status == "superseded" and hist[old.claim_id].superseded_by == new.claim_id
    assert vault.disputes() == []


def test_only_add_reaches_pass_two():
    reasoner = ScriptedReasoner()
    with _open(reasoner) as vault:
        a, b = vault.agent("a"), vault.agent("b")
        b.add("I speak French")  # another agent's claim on another entity
        a.add("I'm in PST")  # ADD, nobody else on the entity: no pass-2 call needed
        assert reasoner.calls["conflicts"] == 0
        b.add("I'm in EST")  # ADD with another agent's claim present: pass 2 runs once
        assert reasoner.calls["conflicts"] == 1
        a.add("I'm in PST")  # NOOP for a? a was superseded by b under recency -> ADD again
        after_add = reasoner.calls["conflicts"]
        assert after_add == 2
        b.add("I'm in EST")  # b's claim was superseded by a's: ADD again
        assert reasoner.calls["conflicts"] == 3
        b.add("I'm in EST")  # now a repeat: NOOP, pass 2 does not run
        assert reasoner.calls["conflicts"] == 3
        b.add("I'm in EST, my time zone is EST")  # NOOP twice
        assert reasoner.calls["conflicts"] == 3
        classify_calls = reasoner.calls["classify"]
        assert classify_calls >= 3


def test_late_arrival_is_stored_superseded(vault):
    late_arrival(vault)


def test_wildcard_authority_and_strategy(vault):
    vault.set_strategy("user.schedule.*", "authority")
    vault.set_authority("planner", "user.schedule.*", 0.9)
    vault.set_authority("chat", "user.schedule.*", 0.3)
    p = vault.policy
    assert p.strategy_for("user.schedule.gym") == "authority" and p.weight("chat", "user.schedule.gym") == 0.3
    vault.agent("planner").add("I go to the gym at 7am")
    d = vault.agent("chat").add("I go to the gym at 9pm").decisions[0]
    assert d.outcome == "disputed" and d.strategy == "authority"
    # an exact pattern beats the wildcard, for strategies and weights alike
    vault.set_strategy("user.schedule.yoga", "recency")
    vault.set_authority("chat", "user.schedule.yoga", 1.0)
    assert vault.policy.strategy_for("user.schedule.yoga") == "recency"
    assert vault.policy.weight("chat", "user.schedule.yoga") == 1.0
    vault.agent("planner").add("I do yoga on Mondays")
    d2 = vault.agent("chat").add("I do yoga on Fridays").decisions[0]
    assert d2.outcome == "active" and d2.strategy == "recency"


def test_close_and_reopen_gives_same_answers(tmp_path):
    path = tmp_path / "store"
    with Vault.open(path, embedder=HashingEmbedder(), reasoner=drifting_reasoner()) as vault:
        out = authority_dispute(vault)
        recency_supersede(vault)
        before = _answers(vault)
    with Vault.open(path, embedder=HashingEmbedder(), reasoner=drifting_reasoner()) as vault:
        assert _answers(vault) == before
        assert vault.policy.strategy_for("user.timezone") == "authority"  # the policy persisted
        assert all(vault.check().values())  # the index rebuilt from the log holds exactly the active claims
        check_authority_dispute({**out, "hits": vault.search("what timezone is the user in?", k=3),
                                 "view": vault.get("user.timezone"), "disputes": vault.disputes()})


def _answers(vault: Vault):
    return (
        [(h.claim.id, round(h.score, 4), h.contested) for h in vault.search("what timezone is the user in?")],
        [(h.claim.id, h.contested) for h in vault.search("italian food")],
        vault.get("user.timezone"),
        vault.get("user.food_preferences"),
        vault.history("user.timezone"),
        vault.disputes(),
    )


def _open(reasoner):
    import tempfile

    return Vault.open(tempfile.mkdtemp(), embedder=HashingEmbedder(), reasoner=reasoner)


@pytest.mark.parametrize("strategy", ["recency", "authority"])
def test_strategy_can_be_set_through_policy_value(tmp_path, strategy):
    policy = Policy(strategies={"user.timezone": strategy}, authority={"a": {"user.*": 0.8}})
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(), policy=policy) as vault:
        assert vault.policy.strategy_for("user.timezone") == strategy
        assert vault.policy.weight("a", "user.timezone") == 0.8


# -- a partition used directly, its log and index injected ------------------------------------
def _item(cid, value, agent="a"):
    text = f"the user is {value}"
    return WriteItem(id=cid, entity="user.diet", text=text, value=value, kind="semantic", agent=agent, session=None,
                     observed_at=datetime(2026, 1, 1, tzinfo=UTC), confidence=1.0, meta={},
                     vector=HashingEmbedder(dim=16).embed([text])[0], cardinality="one")


def test_a_partition_applies_a_claim_id_once_across_commits_and_reopens(tmp_path):
    now = datetime(2026, 1, 2, tzinfo=UTC)
    part = Partition(0, DuckDBClaimLog(tmp_path / "p.duckdb", dim=16), FlatIndex(16))
    txn = part.begin(now)
    (first,) = part.decide(txn, [_item("c1", "vegan")], Policy(), RuleReasoner())
    part.commit(txn)
    txn = part.begin(now)
    mark = txn.mark()
    part.decide(txn, [_item("c2", "keto", agent="b")], Policy(), RuleReasoner())
    txn.rollback(mark)  # decided, then undone: nothing of c2 may reach the log
    assert part.decide(txn, [_item("c1", "vegan")], Policy(), RuleReasoner()) == [first]  # the receipt answers
    part.commit(txn)
    assert [c.id for c in part.all_claims()] == ["c1"] and part.index_matches_log()
    part.close()
    again = Partition(0, DuckDBClaimLog(tmp_path / "p.duckdb", dim=16), FlatIndex(16))
    assert again.active_count() == 1 and again.index_matches_log() and again.has_entity("user.diet")
    again.close()


def test_a_first_claim_records_why_like_any_other_uncontested_add(vault):
    """The first claim on an entity takes a short path (nothing to compare with); its
    decision, receipt and event read like those of an uncontested add that did compare."""
    from vault_ray import Fact

    first = vault.agent("a").add_facts([Fact("user.tea", "I drink green tea", value="green")]).decisions[0]
    other = vault.agent("b").add_facts([Fact("user.tea", "The user drinks green tea", value="green")]).decisions[0]
    assert first.op == other.op == Op.ADD and first.reason == other.reason == "new for this agent"
    assert not first.superseded and first.dispute_id is None and str(first.outcome) == str(other.outcome)
    added = {e.claim_id: e.detail for e in vault.events(entity=first.entity) if e.kind == "claim_added"}
    assert added[first.claim_id] == added[other.claim_id] == {
        "pass": 2, "op": str(Op.ADD), "own_reason": "new for this agent", "reason": "new for this agent"}
    again = vault.agent("a").add_facts([Fact("user.tea", "I drink green tea", value="green", claim_id=first.claim_id)])
    assert again.decisions[0] == first  # a retried id answers from its receipt


def test_a_bulk_write_of_new_entities_records_each_event_with_its_own_detail(vault):
    """The first claims of a bulk write share one event detail (encoded once); events with
    other details in between still read back as their own."""
    from vault_ray import Fact

    mem = vault.agent("a")
    mem.add_facts([Fact(f"user.k{i}", f"the value of k{i} is {i}", value=str(i)) for i in range(300)])
    mem.add_facts([Fact("user.k5", "the value of k5 is 50", value="50"),  # an update: another detail
                   Fact("user.new1", "a new one", value="n"), Fact("user.k7", "the value of k7 is 70", value="70"),
                   Fact("user.new2", "another new one", value="m")])
    new_detail = {"pass": 2, "op": str(Op.ADD), "own_reason": "new for this agent", "reason": "new for this agent"}
    for entity in ("user.k0", "user.k299", "user.new1", "user.new2"):
        added = [e.detail for e in vault.events(entity=entity) if e.kind == "claim_added"]
        assert added == [new_detail]
    for entity in ("user.k5", "user.k7"):
        added = [e.detail for e in vault.events(entity=entity) if e.kind == "claim_added"]
        assert added[0] == new_detail and added[1]["pass"] == 1 and added[1] != new_detail


def test_a_bulk_write_keeps_every_field_of_a_new_entitys_fact_and_decides_the_rest_in_full(vault):
    """A claim on an entity with nothing live and no dispute takes a short path (engine/new_entity.py):
    its claim carries every field of the fact, its decision the fact's value. In the same call, a
    second fact on one of those entities, a fact on an entity the agent holds, and an event are
    decided in full, in order."""
    from vault_ray import Fact

    when = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)
    mem = vault.agent("a")
    old = mem.add_facts([Fact("user.diet", "I am vegetarian", value="vegetarian")], resolve=False).decisions[0]
    facts = [
        Fact("user.code", "the door code is 4711", value="4711", kind="procedural", observed_at=when, confidence=0.7,
             meta={"from": "form"}, source="my door code is 4711"),
        Fact("user.tz", "the user is in CET", value="CET"),  # an alias: stored on its key
        Fact("user.code", "the door code is 1234", value="1234"),  # the same entity again: pass 1 against the first
        Fact("user.diet", "I am vegan", value="vegan"),
        Fact("user.trip", "the user flew to Rome", kind="episodic"),
        Fact("user.note", "a note with no value"),
    ]
    result = vault.write_batch([WriteRequest("a", facts=facts, session="s1", resolve=False)])[0]
    code, tz, code2, diet, trip, note = result.decisions
    assert [(d.op, str(d.outcome), d.value) for d in (code, tz, note)] == [
        (Op.ADD, "active", "4711"), (Op.ADD, "active", "CET"), (Op.ADD, "active", None)]
    assert code.reason == tz.reason == "new for this agent" and not code.superseded and code.aligned_from is None
    assert (tz.entity, tz.aligned_from) == ("user.timezone", "user.tz")
    assert code2.op == Op.REPLACE and code2.superseded == (code.claim_id,) and code2.value == "1234"
    assert diet.superseded == (old.claim_id,) and trip.op == Op.ADD and str(trip.outcome) == "active"
    first = vault.claim(code.claim_id)
    assert (first.entity, first.text, first.value, str(first.kind), first.agent, first.session) == (
        "user.code", "the door code is 4711", "4711", "procedural", "a", "s1")
    assert (first.observed_at, first.confidence, first.meta, first.source) == (when, 0.7, {"from": "form"},
                                                                                "my door code is 4711")
    assert str(first.status) == "superseded" and first.superseded_by == code2.claim_id and first.supersedes == ()
    assert vault.claim(tz.claim_id).aligned_from == "user.tz" and vault.claim(note.claim_id).value is None
    assert [c.value for c in vault.get("user.code").active] == ["1234"]
    assert [c.value for c in vault.get("user.timezone").active] == ["CET"]
    again = mem.add_facts([Fact("user.code", "the door code is 4711", value="4711", claim_id=code.claim_id)])
    assert again.decisions == (code,)  # its receipt answers a retry with the decision taken then
