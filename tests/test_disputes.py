"""The dispute lifecycle (engine/disputes.py) — resolution and its errors, repeated challenges,
auto-resolve rules, the open-dispute cap, the rate limit — and the `disputes` /
`resolve` commands."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from typer.testing import CliRunner

from vault_ray import (
    AutoResolveRules,
    DisputeCapExceeded,
    DisputeError,
    DisputeNotFound,
    Fact,
    InvalidInput,
    Policy,
    RateLimit,
    RateLimited,
    ScriptedReasoner,
)
from vault_ray.cli import app
from vault_ray.models import utcnow
from vault_ray.ratelimit import RateLimiter

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
AUTHORITY = Policy(default_strategy="authority", authority={"owner": {"*": 0.9}, "chat": {"*": 0.2}})


def say(vault, agent, value, seconds=0.0, entity="user.diet"):
    fact = Fact(entity, f"{entity} is {value}", value=value, observed_at=T0 + timedelta(seconds=seconds))
    (decision,) = vault.agent(agent).add_facts(fact).decisions
    return decision


def state(vault):
    """Everything a failed call must leave untouched."""
    return (
        sorted((c.id, c.status, c.superseded_by) for c in vault.claims()),
        sorted((d.id, d.status, d.challenges, d.supporters) for d in vault.disputes(None)),
        len(vault.events()),
    )


@pytest.fixture
def disputed(make_vault):
    """owner says vegan; chat (lower authority) says vegetarian: one open dispute."""
    vault = make_vault(policy=AUTHORITY)
    incumbent = say(vault, "owner", "vegan", 0)
    challenger = say(vault, "chat", "vegetarian", 10)
    assert challenger.outcome == "disputed"
    return vault, incumbent.claim_id, challenger.claim_id, challenger.dispute_id


# -- resolution ----------------------------------------------------------------------------------
def test_resolving_for_the_challenger(disputed):
    vault, incumbent, challenger, dispute_id = disputed
    before = utcnow()
    d = vault.resolve_dispute(dispute_id, challenger, decided_by="user", note="confirmed in the app")
    assert d.status == "resolved" and d.resolution.winner == challenger
    assert (d.resolution.decided_by, d.resolution.note) == ("user", "confirmed in the app")
    assert d.resolution.at >= before
    assert vault.claim(challenger).status == "active"
    assert (vault.claim(incumbent).status, vault.claim(incumbent).superseded_by) == ("superseded", challenger)
    view = vault.get("user.diet")
    assert not view.contested and view.values == ("vegetarian",)
    assert vault.disputes() == [] and vault.dispute(dispute_id).status == "resolved"
    events = [e for e in vault.events(entity="user.diet") if e.ts >= before.timestamp()]
    assert sorted(e.kind for e in events) == ["dispute_resolved", "status_changed", "status_changed"]
    assert len({e.ts for e in events}) == 1  # one transaction


def test_resolving_for_the_incumbent(disputed):
    vault, incumbent, challenger, dispute_id = disputed
    vault.resolve_dispute(dispute_id, incumbent, decided_by="user")
    assert vault.claim(incumbent).status == "active"
    assert (vault.claim(challenger).status, vault.claim(challenger).superseded_by) == ("superseded", incumbent)
    assert vault.get("user.diet").values == ("vegan",)


def test_keep_both_on_a_many_entity(make_vault):
    vault = make_vault(policy=AUTHORITY)
    likes = say(vault, "owner", "likes:jazz", 0, entity="user.likes")
    dislikes = say(vault, "chat", "dislikes:jazz", 10, entity="user.likes")
    d = vault.resolve_dispute(dislikes.dispute_id, decided_by="user", keep_both=True, note="it depends")
    assert d.resolution.keep_both and d.resolution.winner is None
    assert {vault.claim(likes.claim_id).status, vault.claim(dislikes.claim_id).status} == {"active"}


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda v, inc, ch, d: v.resolve_dispute(d, "not-a-member", decided_by="user"), DisputeError),
        (lambda v, inc, ch, d: v.resolve_dispute(d, decided_by="user", keep_both=True), DisputeError),  # 'one'
        (lambda v, inc, ch, d: v.resolve_dispute(d, ch, decided_by=""), InvalidInput),
        (lambda v, inc, ch, d: v.resolve_dispute(d, decided_by="user"), InvalidInput),
        (lambda v, inc, ch, d: v.resolve_dispute("dsp-0-missing", ch, decided_by="user"), DisputeNotFound),
        (lambda v, inc, ch, d: v.resolve_dispute("garbage", ch, decided_by="user"), DisputeNotFound),
    ],
    ids=["claim-outside", "keep-both-on-one", "no-decider", "no-winner", "unknown", "malformed-id"],
)
def test_bad_resolutions_change_nothing(disputed, call, error):
    vault, incumbent, challenger, dispute_id = disputed
    before = state(vault)
    with pytest.raises(error) as info:
        call(vault, incumbent, challenger, dispute_id)
    assert state(vault) == before
    if error is DisputeError and "outside" in str(info.value):
        assert info.value.dispute_id == dispute_id


def test_a_claim_outside_the_dispute_is_named_in_the_error(disputed):
    vault, _, _, dispute_id = disputed
    other = say(vault, "owner", "PST", 0, entity="user.timezone")
    with pytest.raises(DisputeError, match=other.claim_id):
        vault.resolve_dispute(dispute_id, other.claim_id, decided_by="user")


def test_resolving_a_resolved_dispute_is_an_error(disputed):
    vault, incumbent, challenger, dispute_id = disputed
    vault.resolve_dispute(dispute_id, challenger, decided_by="user")
    before = state(vault)
    with pytest.raises(DisputeError, match="already resolved") as info:
        vault.resolve_dispute(dispute_id, incumbent, decided_by="someone else")
    assert info.value.dispute_id == dispute_id
    assert state(vault) == before and vault.dispute(dispute_id).resolution.winner == challenger
    # who was first, and what they decided: the person trying again need not look it up
    assert "already resolved (by user, " in str(info.value) and f"claim {challenger} won); nothing changed" in str(info.value)


def test_an_incumbent_replaced_by_its_own_agent_can_no_longer_win(disputed):
    vault, incumbent, challenger, dispute_id = disputed
    newer = say(vault, "owner", "pescatarian", 20)  # the owner changes its own mind
    assert newer.op == "REPLACE" and newer.outcome == "active"
    assert sorted(vault.get("user.diet").values) == ["pescatarian", "vegetarian"]  # both still shown
    before = state(vault)
    with pytest.raises(DisputeError, match="superseded"):
        vault.resolve_dispute(dispute_id, incumbent, decided_by="user")
    assert state(vault) == before
    vault.resolve_dispute(dispute_id, challenger, decided_by="user")
    assert vault.get("user.diet").values == ("vegetarian",)
    assert vault.claim(newer.claim_id).superseded_by == challenger


# -- repeated challenges ------------------------------------------------------------------------------
def test_repeating_a_challenge_counts_instead_of_opening_another(disputed):
    vault, incumbent, challenger, dispute_id = disputed
    again = say(vault, "chat", "vegetarian", 20)
    assert again.outcome == "disputed" and again.dispute_id == dispute_id and again.claim_id == challenger
    other = say(vault, "helper", "vegetarian", 30)  # another agent, same value: a supporter
    assert other.dispute_id == dispute_id and other.outcome == "disputed"
    (d,) = vault.disputes()
    assert d.challenges == 3 and d.supporters == (other.claim_id,)
    assert len(vault.disputes(None)) == 1
    view = vault.get("user.diet")
    assert sorted(c.claim.agent for c in view.candidates) == ["chat", "helper", "owner"]


def test_a_heavier_agent_repeating_the_challenge_settles_it_by_the_strategy(disputed):
    vault, incumbent, challenger, dispute_id = disputed
    vault.set_authority("boss", "*", 1.0)
    settled = say(vault, "boss", "vegetarian", 30)
    assert settled.outcome == "active" and settled.dispute_id == dispute_id
    d = vault.dispute(dispute_id)
    assert d.resolution.decided_by == "strategy:authority" and d.resolution.winner == challenger
    assert set(vault.get("user.diet").values) == {"vegetarian"}


# -- auto-resolve rules ---------------------------------------------------------------------------------
def test_reasserted_by_rule_settles_for_the_challenger(make_vault):
    vault = make_vault(policy=AUTHORITY.updated(rules=AutoResolveRules(reasserted_by=3)))
    incumbent = say(vault, "owner", "vegan", 0)
    first = say(vault, "chat", "vegetarian", 1)
    second = say(vault, "chat2", "vegetarian", 2)
    assert second.outcome == "disputed"
    third = say(vault, "chat3", "vegetarian", 3)
    assert third.outcome == "active"
    d = vault.dispute(first.dispute_id)
    assert d.status == "resolved" and d.resolution.decided_by == "rule:reasserted_by_3"
    assert d.resolution.winner == first.claim_id
    assert vault.claim(incumbent.claim_id).superseded_by == first.claim_id
    assert len(vault.get("user.diet").active) == 3


def test_stale_rule_keeps_the_incumbent(make_vault):
    vault = make_vault(policy=AUTHORITY.updated(rules=AutoResolveRules(stale_after_s=3600)))
    incumbent = say(vault, "owner", "vegan", 0)
    challenger = say(vault, "chat", "vegetarian", 1)
    assert vault.apply_rules() == []  # not stale yet
    (d,) = vault.apply_rules(utcnow() + timedelta(hours=2))
    assert d.id == challenger.dispute_id and d.resolution.decided_by == "rule:stale"
    assert d.resolution.winner == incumbent.claim_id
    assert vault.claim(challenger.claim_id).superseded_by == incumbent.claim_id
    assert vault.get("user.diet").values == ("vegan",)
    # the later `now` measured the dispute's age only: the change is recorded at the clock, and so is what follows
    assert d.resolution.at <= utcnow()
    later = say(vault, "owner", "vegetarian", 2)
    assert vault.claim(later.claim_id).recorded_at <= utcnow()
    assert vault.get("user.diet", as_of=utcnow()).values == vault.get("user.diet").values == ("vegetarian",)


def test_stale_rule_spares_re_asserted_challenges(make_vault):
    vault = make_vault(policy=AUTHORITY.updated(rules=AutoResolveRules(stale_after_s=60)))
    say(vault, "owner", "vegan", 0)
    say(vault, "chat", "vegetarian", 1)
    say(vault, "chat", "vegetarian", 2)
    assert vault.apply_rules(utcnow() + timedelta(hours=1)) == []
    assert len(vault.disputes()) == 1


def test_rules_never_touch_high_stakes_disputes(make_vault):
    rules = AutoResolveRules(reasserted_by=2, stale_after_s=60)
    vault = make_vault(policy=AUTHORITY.updated(rules=rules))
    say(vault, "owner", "visa", 0, entity="user.payment.method")
    say(vault, "chat", "paypal", 1, entity="user.payment.method")
    assert vault.apply_rules(utcnow() + timedelta(days=1)) == []
    say(vault, "boss", "paypal", 2, entity="user.payment.method")
    say(vault, "helper", "paypal", 3, entity="user.payment.method")
    (d,) = vault.disputes()
    assert d.needs_user and d.challenges == 3 and len(d.supporters) == 2


# -- the cap on open disputes -------------------------------------------------------------------------
def test_open_dispute_cap_per_agent_per_entity(make_vault):
    # many-valued: on a one-valued entity a new value withdraws the parked one (test_disputes_withdrawn.py)
    vault = make_vault(policy=AUTHORITY.updated(max_open_disputes=1))
    no_nuts_or_fish(vault)
    say(vault, "chat", "peanuts", 1, entity="user.allergies")
    before = state(vault)
    with pytest.raises(DisputeCapExceeded) as info:
        say(vault, "chat", "shellfish", 2, entity="user.allergies")
    assert (info.value.agent, info.value.entity, info.value.cap) == ("chat", "user.allergies", 1)
    assert state(vault) == before
    # another agent, or another entity, is not capped
    assert say(vault, "chat2", "shellfish", 3, entity="user.allergies").outcome == "disputed"
    say(vault, "owner", "PST", 0, entity="user.timezone")
    assert say(vault, "chat", "EST", 1, entity="user.timezone").outcome == "disputed"


def no_nuts_or_fish(vault):
    for food in ("peanuts", "shellfish"):
        say(vault, "owner", f"not:{food}", 0, entity="user.allergies")


def test_a_capped_batch_is_rejected_whole(make_vault):
    vault = make_vault(policy=AUTHORITY.updated(max_open_disputes=1))
    no_nuts_or_fish(vault)
    say(vault, "chat", "peanuts", 1, entity="user.allergies")
    before = state(vault)
    batch = [Fact("user.timezone", "The user is in PST", value="PST"),
             Fact("user.allergies", "The user is allergic to shellfish", value="shellfish")]
    with pytest.raises(DisputeCapExceeded):
        vault.agent("chat").add_facts(batch)
    assert state(vault) == before


# -- the rate limit -------------------------------------------------------------------------------------
def test_rate_limit_rejects_the_excess_write_and_writes_nothing(make_vault):
    vault = make_vault(policy=Policy(rate_limit=RateLimit(rate=0.01, burst=2)))
    say(vault, "chatty", "vegan", 0)
    say(vault, "chatty", "PST", 0, entity="user.timezone")
    before = state(vault)
    with pytest.raises(RateLimited) as info:
        say(vault, "chatty", "likes:jazz", 0, entity="user.likes")
    assert info.value.agent == "chatty" and 90 < info.value.retry_after <= 100
    assert state(vault) == before
    assert say(vault, "quiet", "likes:jazz", 0, entity="user.likes").outcome == "active"  # per agent


def test_a_write_larger_than_the_burst_is_bad_input_not_a_wait(make_vault):
    """Waiting `retry_after` would never let it through: a client that obeys it looped."""
    vault = make_vault(policy=Policy(rate_limit=RateLimit(rate=10, burst=2)))
    facts = [Fact(f"user.topic_{i}", f"topic {i}", value=str(i)) for i in range(3)]
    with pytest.raises(InvalidInput, match="burst of 2"):
        vault.agent("bulk").add_facts(facts)
    assert vault.claims() == []
    assert len(vault.agent("bulk").add_facts(facts[:2]).decisions) == 2


def test_a_refused_write_spends_no_rate_budget(make_vault):
    vault = make_vault(policy=AUTHORITY.updated(max_open_disputes=1, rate_limit=RateLimit(rate=0.001, burst=3)))
    no_nuts_or_fish(vault)
    say(vault, "chat", "peanuts", 10, entity="user.allergies")  # the one dispute chat may have there (1 of 3 tokens)
    for seconds in (20, 30, 40):
        with pytest.raises(DisputeCapExceeded):
            say(vault, "chat", "shellfish", seconds, entity="user.allergies")  # refused: nothing written, nothing spent
    assert say(vault, "chat", "PST", 50, entity="user.timezone").outcome == "active"
    assert say(vault, "chat", "likes:jazz", 60, entity="user.likes").outcome == "active"
    with pytest.raises(RateLimited):
        say(vault, "chat", "French", 70, entity="user.language")


def test_rate_limit_is_off_by_default(vault):
    for i in range(30):
        say(vault, "chatty", f"v{i}", i)
    assert vault.policy.rate_limit is None


def test_token_bucket_refills_at_its_rate():
    now = [0.0]
    limiter = RateLimiter(clock=lambda: now[0])
    limit = RateLimit(rate=2.0, burst=3)
    limiter.take("a", 3, limit)
    with pytest.raises(RateLimited) as info:
        limiter.take("a", 1, limit)
    assert info.value.retry_after == pytest.approx(0.5)
    now[0] = 0.5
    limiter.take("a", 1, limit)
    now[0] = 100.0
    limiter.take("a", 3, limit)  # refills up to the burst, no more
    with pytest.raises(RateLimited):
        limiter.take("a", 1, limit)
    limiter.take("a", 1000, None)  # no limit configured


# -- the CLI ----------------------------------------------------------------------------------------------
def test_cli_disputes_and_resolve(make_vault, tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")  # rich wraps tables to the terminal width
    vault = make_vault("cli", policy=AUTHORITY)
    say(vault, "owner", "vegan", 0)
    challenger = say(vault, "chat", "vegetarian", 10)
    vault.close()
    store = ["--store", str(tmp_path / "cli"), "--hashing"]
    runner = CliRunner()

    listed = runner.invoke(app, ["disputes", *store], terminal_width=250)
    assert listed.exit_code == 0, listed.output
    assert challenger.dispute_id in listed.output
    assert "vegetarian (chat)" in listed.output and "vegan (owner)" in listed.output

    done = runner.invoke(app, ["resolve", challenger.dispute_id, "--winner", challenger.claim_id,
                               "--note", "asked the user", *store])
    assert done.exit_code == 0, done.output
    assert f"resolved {challenger.dispute_id}" in done.output

    again = runner.invoke(app, ["resolve", challenger.dispute_id, "--winner", challenger.claim_id, *store])
    assert again.exit_code == 1 and "already resolved" in again.output
    assert "Traceback" not in again.output

    missing = runner.invoke(app, ["resolve", "dsp-0-nope", "--winner", "x", *store])
    assert missing.exit_code == 3

    none_open = runner.invoke(app, ["disputes", *store])
    assert none_open.exit_code == 0 and "no open disputes" in none_open.output
    resolved = runner.invoke(app, ["disputes", "--status", "resolved", *store], terminal_width=250)
    assert challenger.dispute_id in resolved.output and "resolved: won by vegetarian (chat)" in resolved.output
    assert "decided by" in resolved.output


def test_scripted_reasoner_counts_no_judge_calls_for_disputes(make_vault):
    reasoner = ScriptedReasoner()
    vault = make_vault(reasoner=reasoner, policy=AUTHORITY)
    say(vault, "owner", "vegan", 0)
    say(vault, "chat", "vegetarian", 1)
    assert reasoner.calls["judge"] == 0


def test_resolving_a_many_dispute_keeps_unrelated_values(make_vault):
    """On a 'many' entity, settling likes:jazz vs dislikes:jazz leaves likes:chess alone."""
    from vault_ray import Fact

    vault = make_vault(policy=Policy(strategies={"user.likes": "authority"}, authority={"a": {"*": 0.9}}))
    a, b = vault.agent("a"), vault.agent("b")
    chess = a.add_facts([Fact("user.likes", "The user likes chess", "likes:chess")]).decisions[0]
    jazz = a.add_facts([Fact("user.likes", "The user likes jazz", "likes:jazz")]).decisions[0]
    chal = b.add_facts([Fact("user.likes", "The user dislikes jazz", "dislikes:jazz")]).decisions[0]
    assert chal.outcome == "disputed"
    vault.resolve_dispute(chal.dispute_id, chal.claim_id, decided_by="user")
    active = {c.id for c in vault.get("user.likes").active}
    assert active == {chess.claim_id, chal.claim_id}
    assert {c.id: c.superseded_by for c in vault.history("user.likes")}[jazz.claim_id] == chal.claim_id


def test_dispute_settles_when_the_incumbent_agent_moves_to_the_challenger_value(make_vault):
    from vault_ray import Fact

    vault = make_vault(policy=Policy(strategies={"user.diet": "authority"}, authority={"a": {"*": 0.9}}))
    a, b = vault.agent("a"), vault.agent("b")
    a.add_facts([Fact("user.diet", "The user is vegan", "vegan")])
    chal = b.add_facts([Fact("user.diet", "The user is vegetarian", "vegetarian")]).decisions[0]
    assert chal.outcome == "disputed"
    moved = a.add_facts([Fact("user.diet", "The user is vegetarian now", "vegetarian")]).decisions[0]
    assert moved.op == "REPLACE"
    view = vault.get("user.diet")
    assert not view.contested and vault.disputes() == []
    assert {c.agent for c in view.active} == {"a", "b"} and view.values == ("vegetarian",)
    (settled,) = vault.disputes("resolved")
    assert settled.resolution.decided_by == "rule:incumbents_withdrawn" and settled.resolution.winner == chal.claim_id
