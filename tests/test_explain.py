"""`vault.explain(claim_id)` and `vault-ray explain ID` name the real pass,
op, strategy, weights, judge rationale, dispute and resolution."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from typer.testing import CliRunner

from vault_ray import AutoResolveRules, ClaimNotFound, Explanation, Fact, Judgement, Policy, ScriptedReasoner
from vault_ray.cli import app

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def say(vault, agent, value, seconds=0.0, entity="user.diet", session=None):
    fact = Fact(entity, f"The user is {value}", value=value, observed_at=T0 + timedelta(seconds=seconds))
    return vault.agent(agent).add_facts(fact, session=session).decisions[0]


def test_authority_win_names_the_strategy_and_the_weights(make_vault):
    policy = Policy(default_strategy="authority", authority={"sched": {"user.*": 0.9}, "chat": {"*": 0.2}})
    vault = make_vault(policy=policy)
    old = say(vault, "chat", "vegan", 0)
    new = say(vault, "sched", "vegetarian", 10)

    ex = vault.explain(new.claim_id)
    assert isinstance(ex, Explanation) and ex.claim.id == new.claim_id and ex.claim.status == "active"
    (step,) = ex.steps
    assert (step.kind, step.status, step.pass_no, step.op) == ("claim_added", "active", 2, "ADD")
    assert step.strategy == "authority"
    assert step.weights == {"sched": 0.9, "chat": 0.2}
    assert "outweighs" in step.reason

    loser = vault.explain(old.claim_id)
    assert loser.claim.status == "superseded"
    added, superseded = loser.steps
    assert added.status == "active" and superseded.status == "superseded"
    assert superseded.superseded_by == new.claim_id
    assert superseded.cause is not None and superseded.cause.claim_id == new.claim_id
    assert superseded.cause.strategy == "authority" and superseded.cause.weights == {"sched": 0.9, "chat": 0.2}
    assert loser.decided_by is superseded.cause and loser.decided_by.strategy == "authority"

    text = str(loser)
    assert "strategy authority" in text and "chat 0.20, sched 0.90" in text and new.claim_id in text


def test_judge_rationale_and_window(make_vault):
    reasoner = ScriptedReasoner(judge={"The user is vegan": Judgement("PLACEHOLDER", "")})
    vault = make_vault(reasoner=reasoner, policy=Policy(near_simultaneous_s=30, default_on_ambiguous="judge"))
    web = say(vault, "web", "vegetarian", 0, session="web")
    reasoner.scripts["judge"] = {"The user is vegan": Judgement(web.claim_id, "the web form is explicit")}
    mobile = say(vault, "mobile", "vegan", 2, session="mobile")
    ex = vault.explain(mobile.claim_id)
    (step,) = ex.steps
    assert step.status == "superseded" and step.superseded_by == web.claim_id
    assert step.strategy == "recency" and step.rationale == "the web form is explicit"
    assert "near-simultaneous" in step.reason and step.weights == {"web": 0.5, "mobile": 0.5}
    text = ex.text()
    assert "judge: the web form is explicit" in text and "session mobile" in text


def test_consensus_lists_every_supporting_agent(make_vault):
    vault = make_vault(policy=Policy(default_strategy="consensus", default_weight=1.0, consensus_margin=1))
    for i, agent in enumerate("abc"):
        say(vault, agent, "vegan", i)
    lone = say(vault, "d", "vegetarian", 10)
    (step,) = vault.explain(lone.claim_id).steps
    assert step.strategy == "consensus" and set(step.weights) == {"a", "b", "c", "d"}
    assert "3 agent(s)" in step.reason


def test_dispute_and_resolution_are_in_the_chain(make_vault):
    vault = make_vault(policy=Policy(default_strategy="authority", authority={"owner": {"*": 0.9}}))
    inc = say(vault, "owner", "vegan", 0)
    ch = say(vault, "chat", "vegetarian", 1)
    vault.resolve_dispute(ch.dispute_id, ch.claim_id, decided_by="user", note="confirmed by the user")

    ex = vault.explain(ch.claim_id)
    assert [s.kind for s in ex.steps] == ["claim_added", "dispute_opened", "status_changed", "dispute_resolved"]
    assert ex.steps[0].status == "disputed" and ex.steps[0].strategy == "authority"
    assert ex.steps[2].status == "active" and ex.steps[2].decided_by == "user"
    (d,) = ex.disputes
    assert d.id == ch.dispute_id and d.resolution.note == "confirmed by the user"
    assert ex.decided_by.decided_by == "user"

    incumbent = vault.explain(inc.claim_id)
    assert [s.kind for s in incumbent.steps] == ["claim_added", "dispute_opened", "status_changed", "dispute_resolved"]
    assert incumbent.steps[2].superseded_by == ch.claim_id and incumbent.steps[2].dispute_id == ch.dispute_id
    text = str(incumbent)
    assert ch.dispute_id in text and "decided by user: confirmed by the user" in text


def test_rule_and_repeats_are_explained(make_vault):
    policy = Policy(default_strategy="authority", authority={"owner": {"*": 0.9}},
                    rules=AutoResolveRules(reasserted_by=2))
    vault = make_vault(policy=policy)
    say(vault, "owner", "vegan", 0)
    ch = say(vault, "chat", "vegetarian", 1)
    say(vault, "helper", "vegetarian", 2)
    ex = vault.explain(ch.claim_id)
    kinds = [s.kind for s in ex.steps]
    assert kinds == ["claim_added", "dispute_opened", "dispute_challenged", "status_changed", "dispute_resolved"]
    assert ex.decided_by.decided_by == "rule:reasserted_by_2"


def test_unknown_claim(vault):
    with pytest.raises(ClaimNotFound):
        vault.explain("nope")


def test_cli_explain_text_and_json(make_vault, tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    policy = Policy(default_strategy="authority", authority={"sched": {"user.*": 0.9}, "chat": {"*": 0.2}})
    vault = make_vault("cli", policy=policy)
    say(vault, "chat", "vegan", 0)
    new = say(vault, "sched", "vegetarian", 10)
    vault.close()
    store = ["--store", str(tmp_path / "cli"), "--hashing"]
    runner = CliRunner()
    out = runner.invoke(app, ["explain", new.claim_id, *store])
    assert out.exit_code == 0, out.output
    assert "strategy authority" in out.output and "chat 0.20, sched 0.90" in out.output
    data = runner.invoke(app, ["explain", new.claim_id, "--json", *store])
    assert data.exit_code == 0, data.output
    parsed = json.loads(data.output)
    assert parsed["claim"]["id"] == new.claim_id and parsed["steps"][0]["strategy"] == "authority"
    missing = runner.invoke(app, ["explain", "nope", *store])
    assert missing.exit_code == 3 and "no claim" in missing.output


def test_a_replaced_incumbent_keeps_the_dispute_it_stood_in(make_vault):
    """A newer claim takes an incumbent's place in an open dispute: the replaced claim's explanation still
    shows that it was challenged, by whom, and the dispute (what the stored events say, not today's read)."""
    vault = make_vault(policy=Policy(near_simultaneous_s=2))
    pst = say(vault, "scheduler", "PST", 0, entity="user.timezone")
    est = say(vault, "chat", "EST", 1, entity="user.timezone")
    assert est.outcome == "disputed"
    say(vault, "crm", "CET", 20 * 3600, entity="user.timezone")

    ex = vault.explain(pst.claim_id)
    assert ex.claim.status == "superseded"
    assert [d.id for d in ex.disputes] == [est.dispute_id]
    opened = [s for s in ex.steps if s.kind == "dispute_opened"]
    assert len(opened) == 1 and opened[0].dispute_id == est.dispute_id and opened[0].agent == "chat"
    assert est.dispute_id in str(ex)
    # the challenger's explanation names the same dispute
    assert est.dispute_id in [d.id for d in vault.explain(est.claim_id).disputes]
