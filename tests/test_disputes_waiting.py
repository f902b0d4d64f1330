"""A dispute that waits for a person after its incumbent was retracted (QA: waiting disputes).

A high-stakes or `needs_user` dispute stays open with no incumbent when a person retracts the
incumbent: the person said "not that value", not "the challenger's". Until a person decides,
an agent must not win by default: a new contradicting value is held in the dispute
(`disputed`, not active), the pending value again is support, and no rule closes it
(`rule:incumbents_withdrawn`, `reasserted_by`, `stale`). Also: a dispute a retraction closed
for its challenger names the retracted incumbent in its row and in its event's record alike."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import dispute_steps
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vault_ray import AutoResolveRules, HashingEmbedder, Status, Vault


def say(vault, agent, value, seconds=0.0, entity="user.budget"):
    return dispute_steps.say(vault, agent, value, seconds, entity)


def high_stakes_without_incumbent(vault):
    """user.budget (high stakes): a says $5000, b challenges with $9000, a person retracts a's."""
    a = say(vault, "a", "$5000")
    b = say(vault, "b", "$9000", 10)
    vault.retract(a.claim_id, decided_by="dana", note="not 5000")
    d = vault.dispute(b.dispute_id)
    assert d.status == "open" and d.incumbents == () and d.needs_user
    return a, b


def person_chose(vault):
    """user.location (authority): a person chose a's Rome; c's Madrid challenges it (needs_user);
    the person then retracts Rome."""
    rome, madrid = dispute_steps.person_chose_rome(vault)
    vault.retract(rome.claim_id, decided_by="user", note="not Rome after all")
    return madrid


def values(claims):
    return sorted(c.value for c in claims)


def test_a_new_value_joins_a_high_stakes_dispute_waiting_without_incumbent(vault):
    _, b = high_stakes_without_incumbent(vault)
    c = say(vault, "c", "$7000", 20)
    assert c.outcome == "disputed" and c.dispute_id == b.dispute_id
    assert vault.claim(c.claim_id).status == Status.DISPUTED
    view = vault.get("user.budget")
    assert view.active == () and view.contested  # nobody decided: no current value
    assert {x.claim.id for x in view.candidates} == {b.claim_id, c.claim_id}
    d = vault.dispute(b.dispute_id)
    assert d.status == "open" and d.challenger == b.claim_id and d.incumbents == (c.claim_id,)
    assert [x.id for x in vault.disputes()] == [b.dispute_id]  # one dispute, not a second one
    kinds = [e.kind for e in vault.events(since="start", entity="user.budget").events]
    assert kinds[-1] == "dispute_changed"
    vault.resolve_dispute(d.id, c.claim_id, decided_by="dana")  # a person decides, for either value
    assert values(vault.get("user.budget").active) == ["$7000"]
    assert vault.claim(b.claim_id).status == Status.SUPERSEDED


def test_a_new_value_is_held_in_a_needs_user_dispute_too(vault):
    madrid = person_chose(vault)
    oslo = say(vault, "d", "Oslo", 30, entity="user.location")
    assert oslo.outcome == "disputed" and oslo.dispute_id == madrid.dispute_id
    view = vault.get("user.location")
    assert view.active == () and view.contested
    assert {x.claim.value for x in view.candidates} == {"Madrid", "Oslo"}
    hits = vault.search("location Oslo", k=5)  # the values a person has to decide on are not invisible
    assert {h.claim.value for h in hits} == {"Madrid", "Oslo"} and all(h.contested for h in hits)
    at = datetime.now(UTC)
    assert {h.claim.value for h in vault.search("location Oslo", k=5, as_of=at)} == {"Madrid", "Oslo"}


def test_an_agent_rewriting_the_pending_value_does_not_close_a_needs_user_dispute(vault):
    madrid = person_chose(vault)
    say(vault, "d", "Oslo", 30, entity="user.location")
    again = say(vault, "d", "Madrid", 40, entity="user.location")  # d takes back Oslo, says Madrid
    d = vault.dispute(madrid.dispute_id)
    assert d.status == "open" and d.resolution is None
    assert again.outcome == "disputed" and again.dispute_id == d.id
    assert vault.get("user.location").active == ()
    assert all(e.decided_by != "rule:incumbents_withdrawn"
               for e in vault.events(since="start", kinds=["dispute_resolved"]).events)
    vault.resolve_dispute(d.id, madrid.claim_id, decided_by="user")
    assert values(vault.get("user.location").active) == ["Madrid", "Madrid"]  # c and d agree


def test_support_for_the_pending_value_is_counted_but_settles_nothing(make_vault):
    vault = make_vault()
    vault.set_policy(vault.policy.updated(rules=AutoResolveRules(reasserted_by=2, stale_after_s=1)))
    madrid = person_chose(vault)
    e = say(vault, "e", "Madrid", 30, entity="user.location")
    assert e.outcome == "disputed" and e.dispute_id == madrid.dispute_id
    d = vault.dispute(madrid.dispute_id)
    assert d.status == "open" and d.supporters == (e.claim_id,) and d.challenges == 2
    assert vault.apply_rules(now=datetime.now(UTC) + timedelta(days=30)) == []  # nor the stale rule
    assert vault.dispute(d.id).status == "open" and vault.get("user.location").active == ()


def test_the_stale_rule_does_not_let_a_held_value_win(make_vault):
    vault = make_vault()
    vault.set_policy(vault.policy.updated(rules=AutoResolveRules(stale_after_s=1)))
    _, b = high_stakes_without_incumbent(vault)
    say(vault, "c", "$7000", 20)
    assert vault.apply_rules(now=datetime.now(UTC) + timedelta(days=30)) == []
    assert vault.dispute(b.dispute_id).status == "open" and vault.get("user.budget").active == ()


def test_a_retracted_challenger_hands_the_challenge_to_a_held_value(vault):
    _, b = high_stakes_without_incumbent(vault)
    c = say(vault, "c", "$7000", 20)
    vault.retract(b.claim_id, decided_by="dana", note="not 9000 either")
    d = vault.dispute(b.dispute_id)
    assert d.status == "open" and d.challenger == c.claim_id and d.incumbents == ()
    assert vault.claim(c.claim_id).status == Status.DISPUTED and vault.get("user.budget").active == ()
    vault.resolve_dispute(d.id, c.claim_id, decided_by="dana")
    assert values(vault.get("user.budget").active) == ["$7000"]


def test_the_challengers_agent_changing_its_mind_keeps_the_dispute_waiting(vault):
    _, b = high_stakes_without_incumbent(vault)
    mine = say(vault, "b", "$8000", 30)  # b takes back $9000: its new value waits for the person too
    d = vault.dispute(b.dispute_id)
    assert mine.outcome == "disputed" and d.status == "open" and d.challenger == mine.claim_id
    assert vault.claim(b.claim_id).status == Status.SUPERSEDED
    assert vault.claim(b.claim_id).superseded_by == mine.claim_id
    assert vault.get("user.budget").active == ()


def test_as_of_and_a_reopen_show_the_held_values(tmp_path):
    store = tmp_path / "s"
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        _, b = high_stakes_without_incumbent(vault)
        before = datetime.now(UTC)
        c = say(vault, "c", "$7000", 20)
        now_view = vault.get("user.budget")
        assert vault.get("user.budget", as_of=before).candidates[0].claim.id == b.claim_id
        assert len(vault.get("user.budget", as_of=before).candidates) == 1
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        assert vault.get("user.budget") == now_view
        assert vault.get("user.budget", as_of=datetime.now(UTC)) == now_view
        assert vault.dispute(b.dispute_id).incumbents == (c.claim_id,)
        assert all(vault.check().values())


def test_a_dispute_closed_for_its_challenger_names_the_retracted_incumbent_in_row_and_record(tmp_path):
    store = tmp_path / "s"
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        vault.set_strategy("user.location", "authority")
        vault.set_authority("a", "user.location", 0.9)
        vault.set_authority("b", "user.location", 0.5)
        a = say(vault, "a", "Paris", entity="user.location")
        b = say(vault, "b", "Berlin", 10, entity="user.location")
        vault.retract(a.claim_id, decided_by="dana")
        d = vault.dispute(b.dispute_id)
        assert d.status == "resolved" and d.resolution.decided_by == "rule:incumbent_retracted"
        assert d.incumbents == (a.claim_id,)  # the closed dispute still names the retracted incumbent
        (ev,) = vault.events(since="start", kinds=["dispute_resolved"]).events
        assert ev.detail["dispute_state"]["incumbents"] == [a.claim_id]  # and so does its record (as_of)
        assert vault.claim(a.claim_id).status == Status.RETRACTED  # resolving did not touch it
        assert [x.id for x in vault.explain(a.claim_id).disputes] == [d.id]
        listed = {x.id: x for x in vault.disputes(status="all")}
        assert listed[d.id].incumbents == (a.claim_id,)
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        assert vault.dispute(b.dispute_id).incumbents == (a.claim_id,)
        assert values(vault.get("user.location").active) == ["Berlin"]


# -- invariants over random writes and retractions on waiting disputes ------------------------------
ops = st.lists(st.tuples(st.sampled_from(["say", "say", "say", "retract", "resolve"]), st.sampled_from("abcd"),
                         st.sampled_from(["$1", "$2", "$3"])), min_size=3, max_size=14)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(steps=ops)
def test_invariants_hold_while_disputes_wait_for_a_person(tmp_path_factory, steps):
    with Vault.open(tmp_path_factory.mktemp("inv"), embedder=HashingEmbedder(64)) as vault:
        for i, (op, agent, value) in enumerate(steps):
            live = [c for c in vault.history("user.budget") if c.status.live]
            if op == "say":
                say(vault, agent, value, i)
            elif op == "retract" and live:
                vault.retract(live[i % len(live)].id, decided_by="dana")
            elif op == "resolve" and vault.disputes():
                d = vault.disputes()[0]
                vault.resolve_dispute(d.id, d.challenger, decided_by="dana")
            claims = {c.id: c for c in vault.history("user.budget")}
            active = [c for c in claims.values() if c.status == Status.ACTIVE]
            assert len({c.value for c in active}) <= 1  # invariant 1
            held: set[str] = set()
            for d in vault.disputes(status="all"):
                assert all(m in claims for m in (d.challenger, *d.incumbents, *d.supporters))  # invariant 2
                if d.status == "open":
                    assert claims[d.challenger].status == Status.DISPUTED
                    assert d.needs_user  # high stakes: every dispute waits for a person
                    held.update(m for m in (d.challenger, *d.incumbents, *d.supporters)
                                if claims[m].status == Status.DISPUTED)
                    if all(claims[m].status == Status.DISPUTED for m in d.incumbents):  # none stands
                        assert active == []  # nobody decided: no agent's value is current
                    assert claims[d.challenger].value not in {c.value for c in active}  # the sides differ
                else:
                    assert d.resolution is not None and d.resolution.decided_by in (
                        "dana", "rule:challenger_retracted", "rule:challenger_withdrawn", "rule:joined",
                        "rule:sides_agree")  # what took the incumbent's place says the challenger's value
                    # its values joined another dispute that waits: closed for none
                    assert d.resolution.decided_by != "rule:joined" or d.resolution.winner is None
            assert {c.id for c in claims.values() if c.status == Status.DISPUTED} == held
            assert all(vault.check().values())  # invariant 3


def test_the_disputes_table_marks_a_held_value(vault):
    from vault_ray.render import disputes_table

    _, b = high_stakes_without_incumbent(vault)
    say(vault, "c", "$7000", 20)
    text = "\n".join(cell for row in disputes_table(vault.disputes(), vault).rows for cell in row)
    assert "$7000 (c)" in text and "held (none standing)" in text


def two_waiting_disputes(vault):
    """user.budget (high stakes): a's $5000 is challenged by b's $9000 and by c's $7000 (two
    disputes, each waiting for a person); a person retracts a's value, so neither has an
    incumbent left."""
    a = say(vault, "a", "$5000")
    b = say(vault, "b", "$9000", 10)
    c = say(vault, "c", "$7000", 20)
    assert b.dispute_id != c.dispute_id
    vault.retract(a.claim_id, decided_by="dana")
    assert vault.get("user.budget").active == ()
    return b, c


def test_two_disputes_a_retraction_leaves_waiting_are_one_question(vault):
    """Both challenges lost their incumbent at once: the person is asked once, $9000 or $7000. The
    later dispute's value is held in the first, and it closes for no value (`rule:joined`)."""
    b, c = two_waiting_disputes(vault)
    first = vault.dispute(b.dispute_id)
    assert first.status == "open" and first.needs_user and first.incumbents == (c.claim_id,)
    joined = vault.dispute(c.dispute_id)
    assert joined.status == "resolved" and joined.resolution.decided_by == "rule:joined"
    assert joined.resolution.winner is None and b.dispute_id in joined.resolution.note
    assert vault.claim(c.claim_id).status == Status.DISPUTED and vault.get("user.budget").active == ()
    assert {x.claim.id for x in vault.get("user.budget").candidates} == {b.claim_id, c.claim_id}
    assert all(vault.check().values())
    vault.resolve_dispute(b.dispute_id, c.claim_id, decided_by="dana")  # the person picks either value
    assert [x.value for x in vault.get("user.budget").active] == ["$7000"] and vault.disputes() == []
    assert vault.claim(b.claim_id).status == Status.SUPERSEDED



def test_every_value_that_joins_a_waiting_dispute_counts_as_a_challenge(vault):
    """The `challenges` count of a dispute that waits with no standing value goes up for each write
    that joins it: a held value, support of the pending value, an agent's new value in place of its own."""
    madrid = person_chose(vault)
    assert vault.dispute(madrid.dispute_id).challenges == 1
    say(vault, "d", "Oslo", 30, entity="user.location")  # held: the other side
    assert vault.dispute(madrid.dispute_id).challenges == 2
    say(vault, "e", "Lisbon", 40, entity="user.location")  # another held value
    assert vault.dispute(madrid.dispute_id).challenges == 3
    say(vault, "b", "Madrid", 50, entity="user.location")  # support of the pending value
    assert vault.dispute(madrid.dispute_id).challenges == 4
    say(vault, "d", "Porto", 60, entity="user.location")  # d's new value in place of its Oslo
    d = vault.dispute(madrid.dispute_id)
    assert d.challenges == 5 and d.status == "open" and vault.get("user.location").active == ()
    assert [x.challenges for x in vault.disputes("open")] == [5]  # the listing says the same
