"""`Txn` (engine/txn.py): the copy-on-write view a group of writes is decided in —
marks and rollback, status changes on new and stored claims, `supersedes`, receipts."""

from __future__ import annotations

import json
from dataclasses import fields
from datetime import UTC, datetime
from itertools import count

import pytest

from vault_ray.engine.state import PartitionState
from vault_ray.engine.txn import Txn, decision_from_json, decision_to_json
from vault_ray.models import Claim, Decision, Kind, Op, Outcome, Status

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def claim(cid: str, status: Status = Status.ACTIVE, entity: str = "user.diet") -> Claim:
    return Claim(cid, entity, f"text {cid}", cid, Kind.SEMANTIC, "a", None, NOW, NOW, status)


def txn_over(*stored: Claim) -> Txn:
    rids = count(100)
    state = PartitionState.of([(c, i) for i, c in enumerate(stored)])
    return Txn(state, lambda: next(rids), NOW)


def test_reads_see_the_txn_over_the_stored_state():
    txn = txn_over(claim("old"))
    txn.add(claim("new"))
    assert {c.id for c in txn.live_on("user.diet")} == {"new", "old"}
    txn.set_status("old", Status.SUPERSEDED, "new", agent="a")
    assert [c.id for c in txn.live_on("user.diet")] == ["new"]
    assert txn.state.claims["old"].status == Status.ACTIVE  # the stored state is untouched until commit


def test_superseding_records_it_on_both_claims():
    txn = txn_over(claim("old"))
    txn.add(claim("new"))
    txn.set_status("old", Status.SUPERSEDED, "new", agent="a")
    changes = txn.changes()
    assert changes.status == {"old": ("superseded", "new")}
    (row,) = changes.new_claims
    assert row.id == "new" and row.supersedes == ("old",)  # the new row carries it, no separate update
    stored = txn_over(claim("x"), claim("y"))
    stored.set_status("y", Status.SUPERSEDED, "x", agent="a")
    assert stored.changes().supersedes == {"x": ("y",)}  # a stored claim's list is updated


def test_a_status_change_of_a_claim_new_in_the_txn_rewrites_its_row():
    txn = txn_over()
    txn.add(claim("c", Status.DISPUTED))
    txn.set_status("c", Status.ACTIVE, None, agent="judge")
    changes = txn.changes()
    assert [c.status for c in changes.new_claims] == [Status.ACTIVE] and changes.status == {}
    assert [e.kind for e in changes.events] == ["claim_added", "status_changed"]


def test_rollback_to_a_mark_forgets_everything_after_it():
    txn = txn_over(claim("old"))
    txn.add(claim("kept"))
    mark = txn.mark()
    txn.add(claim("gone"))
    txn.set_status("old", Status.SUPERSEDED, "gone", agent="b")
    txn.receipts["gone"] = "{}"
    txn.rollback(mark)
    changes = txn.changes()
    assert [c.id for c in changes.new_claims] == ["kept"]
    assert changes.status == {} and changes.receipts == {} and changes.supersedes == {}
    assert [e.claim_id for e in changes.events] == ["kept"]
    assert txn.claim("old").status == Status.ACTIVE and not txn.known("gone")
    txn.add(claim("after"))  # the txn goes on after a rollback
    assert [c.id for c in txn.changes().new_claims] == ["kept", "after"]


def test_an_empty_txn_is_false_and_decisions_round_trip_as_receipts():
    assert not txn_over(claim("x"))
    d = Decision("user.diet", Op.REPLACE, Outcome.ACTIVE, "c2", aligned_from="user.food", superseded=("c1",),
                 strategy="recency", reason="newer")
    assert decision_from_json(decision_to_json(d, "chat")) == (d, "chat", "")
    assert decision_from_json(decision_to_json(d, "chat", "9f0a")) == (d, "chat", "9f0a")
    old = json.dumps({f.name: getattr(d, f.name) for f in fields(Decision)} | {"superseded": list(d.superseded)})
    assert decision_from_json(old) == (d, None, "")  # a receipt written before receipts named the agent


@pytest.mark.parametrize("decision", [
    Decision("user.diet", Op.REPLACE, Outcome.ACTIVE, "c2", aligned_from="user.food", superseded=("c1", "c0"),
             strategy="recency", reason="newer"),
    Decision("user.ort", Op.ADD, Outcome.DISPUTED, "c3", dispute_id="d1", reason='says "Zürich" \\ 東京\n'),
    Decision("user.x", Op.NOOP, Outcome.NOOP, "c4"),
])
def test_a_receipt_is_json_dumps_of_every_decision_field(decision):
    # receipts written before must still compare equal, and a new Decision field must not go missing
    expected = json.dumps({f.name: getattr(decision, f.name) for f in fields(Decision)}
                          | {"superseded": list(decision.superseded), "agent": 'a "quoted" ägent'})
    assert decision_to_json(decision, 'a "quoted" ägent') == expected
    assert decision_to_json(decision, "a", "ab12") == json.dumps(json.loads(expected) | {"agent": "a", "digest": "ab12"})
