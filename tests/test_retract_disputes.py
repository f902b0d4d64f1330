"""Retraction meeting disputes and import (QA round 93: R1-R10, P1).

Each test reproduces one finding: a retracted claim merged into another store stays
retracted; forget closes disputes as one-by-one retractions do; a dispute waiting for a
person stays open when its incumbent is retracted; a retraction that leaves a dispute
open is published as `dispute_changed`; explain keeps the disputes a retracted claim was
in; search shows a pending disputed value; who decided a retraction rule is the rule."""

from __future__ import annotations

from dispute_steps import say

from vault_ray import Status


def values(view):
    return sorted(c.value for c in view.active)


# -- R1: a merge keeps retracted claims retracted ---------------------------------------------------
def test_merge_keeps_a_retracted_claim_retracted(make_vault, tmp_path):
    src = make_vault("src")
    old = say(src, "a", "vegetarian", entity="user.diet")
    d = say(src, "a", "vegan", seconds=10, entity="user.diet")  # replaces its own earlier claim
    assert old.claim_id in d.superseded
    src.retract(d.claim_id, decided_by="user", note="never said it")
    src.export(tmp_path / "exp")
    dst = make_vault("dst")
    say(dst, "z", "keto", entity="user.allergies")  # a store with claims: merge
    out = dst.import_from(tmp_path / "exp")
    assert out.mode == "merge" and out.retracted == 1
    assert out.statuses.get("active", 0) == 0 and out.statuses["retracted"] == 1
    assert dst.get("user.diet").active == ()  # nothing taken back comes back, nor what it replaced
    assert dst.claim(d.claim_id).status == Status.RETRACTED
    assert dst.claim(old.claim_id).status == Status.SUPERSEDED
    assert dst.search("vegan diet") == [] or all(h.claim.entity != "user.diet" for h in dst.search("vegan diet"))
    again = dst.retract(d.claim_id, decided_by="x")
    assert again.already and again.decided_by == "user" and again.note.startswith("never said it")
    assert dst.import_from(tmp_path / "exp").retracted == 0  # the same export again changes nothing
    assert all(dst.check().values())


def test_merge_replays_a_retraction_before_the_claims_after_it(make_vault, tmp_path):
    src = make_vault("src")
    src.set_strategy("user.location", "authority")
    src.set_authority("a", "user.location", 0.9)
    a = say(src, "a", "Paris")
    src.retract(a.claim_id, decided_by="dana")
    b = say(src, "b", "Berlin", seconds=10)  # after the retraction: meets nothing
    assert b.outcome == "active"
    src.export(tmp_path / "exp")
    dst = make_vault("dst")
    dst.set_strategy("user.location", "authority")
    dst.set_authority("a", "user.location", 0.9)
    say(dst, "z", "keto", entity="user.allergies")
    dst.import_from(tmp_path / "exp")
    assert values(dst.get("user.location")) == ["Berlin"] and not dst.get("user.location").contested
    assert dst.disputes(status="all") == []


def authority_vault(make_vault, entity="user.location", name="store", **weights):
    vault = make_vault(name)
    vault.set_strategy(entity, "authority")
    for agent, w in weights.items():
        vault.set_authority(agent, entity, w)
    return vault


def high_stakes(make_vault):
    """user.budget: a writes $5000, b writes $9000: a dispute that waits for a person."""
    vault = make_vault()
    a = say(vault, "a", "$5000", entity="user.budget")
    b = say(vault, "b", "$9000", seconds=10, entity="user.budget")
    assert b.outcome == "disputed" and vault.dispute(b.dispute_id).needs_user
    return vault, a, b


# -- R10: forget closes disputes as one-by-one retractions would ------------------------------------
def test_forget_never_names_a_claim_it_retracts_as_winner(make_vault):
    vault = authority_vault(make_vault, "user.budget", a=0.9)
    ids = [say(vault, ag, val, seconds=i, entity="user.budget")
           for i, (ag, val) in enumerate([("a", "X1"), ("b", "X2"), ("c", "X2"), ("d", "X3")])]
    opened = {d.id for d in vault.disputes()}
    assert len(opened) == 2
    done = vault.forget("user.budget", decided_by="user", note="gdpr")
    assert [r.claim.id for r in done] == [d.claim_id for d in ids]  # in the order given
    by_id = {r.claim.id: r for r in done}
    assert set(by_id[ids[0].claim_id].disputes) == opened  # the incumbent of both names both
    assert by_id[ids[1].claim_id].disputes == (ids[1].dispute_id,)
    for d in vault.disputes(status="all"):
        assert d.status == "resolved" and d.resolution.winner is None
        assert d.resolution.decided_by == "rule:challenger_retracted"
    resolved = vault.events(since="start", kinds=["dispute_resolved"]).events
    assert resolved and all(e.winner is None and e.how == "rule" for e in resolved)
    assert vault.get("user.budget").active == () and not vault.get("user.budget").contested
    assert all(vault.check().values())


# -- R6: a dispute guarding a person's choice stays open when that choice is retracted --------------
def test_needs_user_dispute_stays_open_when_the_chosen_claim_is_retracted(make_vault):
    vault = authority_vault(make_vault, a=0.5, b=0.9, c=0.95)
    say(vault, "b", "Berlin")
    rome = say(vault, "a", "Rome", seconds=10)
    vault.resolve_dispute(rome.dispute_id, rome.claim_id, decided_by="user")
    madrid = say(vault, "c", "Madrid", seconds=20)
    d = vault.dispute(madrid.dispute_id)
    assert madrid.outcome == "disputed" and d.needs_user
    r = vault.retract(rome.claim_id, decided_by="user", note="actually not Rome")
    assert r.disputes == (d.id,)
    d = vault.dispute(madrid.dispute_id)
    assert d.status == "open" and d.incumbents == () and d.needs_user
    assert vault.claim(madrid.claim_id).status == Status.DISPUTED
    view = vault.get("user.location")
    assert view.active == () and view.contested and [c.claim.id for c in view.candidates] == [madrid.claim_id]
    vault.resolve_dispute(d.id, madrid.claim_id, decided_by="user")  # only a person settles it
    assert values(vault.get("user.location")) == ["Madrid"]


def test_high_stakes_and_needs_user_disputes_behave_alike(make_vault):
    vault, a, b = high_stakes(make_vault)
    vault.retract(a.claim_id, decided_by="dana")
    d = vault.dispute(b.dispute_id)
    assert d.status == "open" and d.incumbents == () and vault.claim(b.claim_id).status == Status.DISPUTED


# -- R2 / R8: the event of a retraction that leaves a dispute open; explain keeps the dispute -------
def test_a_retraction_that_leaves_a_dispute_open_is_no_challenge(make_vault):
    vault, a, b = high_stakes(make_vault)
    vault.retract(a.claim_id, decided_by="dana")
    kinds = [e.kind for e in vault.events(since="start")]
    assert "dispute_challenged" not in kinds and kinds.count("dispute_changed") == 1
    (e,) = vault.events(since="start", kinds=["dispute_changed"]).events
    assert e.dispute_id == b.dispute_id and e.agent == "dana" and e.needs_user
    assert e.detail["retracted"] == [a.claim_id] and e.detail["retracted_by"] == "dana"
    ex = vault.explain(a.claim_id)
    assert [d.id for d in ex.disputes] == [b.dispute_id]
    assert [s.kind for s in ex.steps] == ["claim_added", "dispute_opened", "status_changed", "dispute_changed"]
    text = str(ex)
    assert "challenge repeated" not in text and "dispute opened" in text and "vs ;" not in text


def test_a_retracted_challenger_keeps_its_dispute_in_explain(make_vault):
    vault = authority_vault(make_vault, a=0.9)
    say(vault, "a", "Paris")
    b = say(vault, "b", "Berlin", seconds=10)
    c = say(vault, "c", "Berlin", seconds=20)
    vault.retract(b.claim_id, decided_by="dana")
    d = vault.dispute(b.dispute_id)
    assert d.status == "open" and d.challenger == c.claim_id
    ex = vault.explain(b.claim_id)
    assert [x.id for x in ex.disputes] == [b.dispute_id]
    assert "dispute opened" in str(ex) and "dispute members changed" in str(ex)


# -- R3: search shows the pending value of a dispute whose incumbent was retracted ----------------
def test_search_shows_a_pending_disputed_value(make_vault):
    vault, a, b = high_stakes(make_vault)
    vault.retract(a.claim_id, decided_by="dana")
    hits = vault.search("budget")
    assert [h.claim.id for h in hits] == [b.claim_id] and hits[0].contested
    assert [h.claim.id for h in vault.search("budget", entity="user.budget")] == [b.claim_id]
    assert vault.search("budget", agent="a") == []
    vault.resolve_dispute(b.dispute_id, b.claim_id, decided_by="dana")
    (hit,) = vault.search("budget")
    assert hit.claim.id == b.claim_id and not hit.contested


# -- R5: who decided a retraction rule ----------------------------------------------------------
def test_both_retraction_rules_are_decided_by_the_rule_naming_the_person(make_vault):
    for retract_incumbent in (False, True):
        vault = authority_vault(make_vault, name=f"s{retract_incumbent}", a=0.9)
        a = say(vault, "a", "Paris")
        b = say(vault, "b", "Berlin", seconds=10)
        vault.retract(a.claim_id if retract_incumbent else b.claim_id, decided_by="dana")
        rule = "rule:incumbent_retracted" if retract_incumbent else "rule:challenger_retracted"
        d = vault.dispute(b.dispute_id)
        assert d.resolution.decided_by == rule and "retracted by dana" in d.resolution.note
        (e,) = vault.events(since="start", kinds=["dispute_resolved"]).events
        assert e.agent == rule and e.decided_by == rule and e.detail["retracted_by"] == "dana"
        text = str(vault.explain(b.claim_id))
        assert f"dispute resolved [{b.dispute_id}] by {rule}" in text


# -- R7: a repeated retraction answers the first one's disputes -----------------------------------
def test_retracting_again_names_the_disputes_of_the_first_retraction(make_vault):
    vault, a, b = high_stakes(make_vault)
    first = vault.retract(a.claim_id, decided_by="dana")
    again = vault.retract(a.claim_id, decided_by="dana")
    assert first.disputes == (b.dispute_id,) and again.already and again.disputes == first.disputes
    assert vault.forget("user.budget", decided_by="dana")[0].disputes == (b.dispute_id,)


# -- P1: a consensus write that settles a dispute for the incumbent says so ------------------------
def test_a_write_that_settles_a_consensus_dispute_for_the_incumbent_says_so(make_vault):
    vault = make_vault()
    vault.patch_policy({"strategies": {"user.location": "consensus"}, "consensus_margin": 0.0})
    say(vault, "a", "Paris")
    b = say(vault, "b", "Berlin", seconds=10)
    assert b.outcome == "disputed"
    vault.set_authority("c", "user.location", 1.0)
    d = say(vault, "c", "Paris", seconds=20)
    assert d.outcome == "active" and d.dispute_id == b.dispute_id and b.claim_id in d.superseded
    assert d.reason.startswith("dispute settled by strategy:consensus: ") and d.strategy == "consensus"
    ex = vault.explain(d.claim_id)
    assert [x.id for x in ex.disputes] == [b.dispute_id]
    assert [s.kind for s in ex.steps][-1] == "dispute_resolved" and "dispute opened" in str(ex)
