"""Events (episodic claims) on every surface (QA F5, F9, F7): the same words at another time
are another event, while a retry stays a NOOP; an event beside a fact is no value of the
entity (the view, the HTTP schema, the client, the MCP and CLI texts label it an event with
its time); and a `many` entity's item disputes read one line each in `get_entity`."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from mcp import Client
from mcp_clients import call
from typer.testing import CliRunner

from vault_ray import Fact, HashingEmbedder, Kind, Vault, VaultClient
from vault_ray.cli import app
from vault_ray.mcp import VaultMemory, build_server
from vault_ray.models import Op, Outcome
from vault_ray.tokens import Principal

T0 = datetime.now(UTC) - timedelta(days=30)


def gym(at: datetime, text: str = "Went to the gym", value: str | None = None, entity: str = "user.workout") -> Fact:
    return Fact(entity, text, value=value, kind=Kind.EPISODIC, observed_at=at)


def mcp_reads(vault: Vault, *calls: tuple[str, dict]) -> list[str]:
    async def run():
        memory = lambda: VaultMemory(vault, Principal("reader", "agent", ""))  # noqa: E731
        async with Client(build_server(memory), raise_exceptions=True) as client:
            return [await call(client, name, **args) for name, args in calls]

    return asyncio.run(run())


# -- F5: a recurring event is another event; a retry is not ---------------------------------------
@pytest.mark.parametrize("later", [timedelta(days=7), timedelta(days=1), timedelta(hours=3)])
def test_the_same_words_at_another_time_are_another_event(make_vault, later):
    vault = make_vault()
    (first,) = vault.agent("a").add_facts([gym(T0)]).decisions
    (again,) = vault.agent("a").add_facts([gym(T0 + later)]).decisions
    assert again.op == Op.ADD and again.outcome == Outcome.ACTIVE and again.claim_id != first.claim_id
    view = vault.get("user.workout")
    assert [c.observed_at for c in view.events] == [T0, T0 + later]
    hits = vault.search("went to the gym", k=5)
    assert len(hits) == 2 and all(h.agreeing == () for h in hits)  # two visits, not one said twice


def test_a_retry_or_a_reextraction_of_the_same_event_stays_known(make_vault):
    vault = make_vault("s")
    (first,) = vault.agent("a").add_facts([gym(T0, "I went to the gym", "gym")]).decisions
    retry = vault.agent("a").add_facts([gym(T0 + timedelta(minutes=2), "i went to the gym!", "Gym")]).decisions[0]
    assert retry.op == Op.NOOP and retry.claim_id == first.claim_id
    vault.close()
    again = make_vault("s")  # a re-run of extraction a month later, with the message's own time
    (rerun,) = again.agent("a").add_facts([gym(T0, "I went to the gym", "gym")]).decisions
    assert rerun.op == Op.NOOP and rerun.claim_id == first.claim_id
    keyed = Fact("user.workout", "I went to the gym", value="gym", kind=Kind.EPISODIC, claim_id="gym-1")
    (once,) = again.agent("a").add_facts([keyed]).decisions
    (twice,) = again.agent("a").add_facts([keyed]).decisions  # a given claim id answers its first decision
    assert once.op == Op.ADD and twice.claim_id == once.claim_id and twice.outcome == once.outcome
    assert len(again.get("user.workout").events) == 2


def test_another_agents_record_of_one_event_agrees_and_of_another_does_not(make_vault):
    vault = make_vault()
    vault.agent("a").add_facts([gym(T0)])
    (same,) = vault.agent("b").add_facts([gym(T0 + timedelta(minutes=10))]).decisions
    (next_week,) = vault.agent("b").add_facts([gym(T0 + timedelta(days=7))]).decisions
    assert same.op == Op.ADD and next_week.op == Op.ADD  # another agent's record is its own provenance
    hits = sorted(vault.search("went to the gym", k=5), key=lambda h: h.claim.observed_at)
    assert len(hits) == 2
    assert sorted([hits[0].claim.agent, *(c.agent for c in hits[0].agreeing)]) == ["a", "b"]
    assert hits[1].claim.observed_at == T0 + timedelta(days=7) and hits[1].agreeing == ()


# -- F9: an event is no value of its entity -----------------------------------------------------------
def timezone_with_an_event(vault: Vault) -> tuple[str, str]:
    (pst,) = vault.agent("scheduler").add_facts([Fact("user.timezone", "The user is in PST", value="PST")]).decisions
    (mst,) = vault.agent("chat").add_facts([Fact("user.timezone", "The user changed planes in Denver (MST)", value="MST",
                                                 kind=Kind.EPISODIC, observed_at=T0)]).decisions
    return pst.claim_id, mst.claim_id


def test_the_view_keeps_the_facts_values_and_lists_events_apart(make_vault):
    vault = make_vault()
    pst, mst = timezone_with_an_event(vault)
    view = vault.get("user.timezone")
    assert view.values == ("PST",) and [c.id for c in view.events] == [mst] and view.events[0].observed_at == T0
    assert {c.id for c in view.active} == {pst, mst}  # `active` as before: every active claim, with its kind
    # a dispute on the entity: the event is no candidate, and still no value
    vault.set_strategy("user.timezone", "authority")
    vault.set_authority("scheduler", "user.timezone", 0.9)
    vault.agent("chat").add_facts([Fact("user.timezone", "The user is in EST", value="EST")])
    contested = vault.get("user.timezone")
    assert contested.contested and sorted(contested.values) == ["EST", "PST"]
    assert mst not in {c.claim.id for c in contested.candidates} and [c.id for c in contested.events] == [mst]
    assert [c.id for c in vault.get("user.timezone", as_of=datetime.now(UTC)).events] == [mst]


def test_only_events_is_no_current_value(make_vault):
    vault = make_vault()
    vault.agent("a").add_facts([gym(T0), gym(T0 + timedelta(days=2), "Went swimming", entity="user.workout")])
    view = vault.get("user.workout")
    assert view.values == () and [c.text for c in view.events] == ["Went to the gym", "Went swimming"]
    (text,) = mcp_reads(vault, ("get_entity", {"entity": "user.workout"}))
    lines = text.splitlines()
    assert lines[0] == "user.workout: no current value (only events, below)."
    assert lines[1].startswith("user.workout: 2 events") and lines[2].startswith("- event: Went to the gym")


def test_the_mcp_texts_label_an_event_with_its_time(make_vault):
    vault = make_vault()
    pst, mst = timezone_with_an_event(vault)
    entity, recall, history = mcp_reads(vault, ("get_entity", {"entity": "user.timezone"}),
                                        ("recall", {"query": "Denver time zone", "k": 5}),
                                        ("history", {"entity": "user.timezone"}))
    first, *rest = entity.splitlines()
    assert first.startswith("user.timezone = PST") and "MST" not in first
    event = next(x for x in rest if mst in x)
    assert event.startswith("- event: MST") and T0.strftime("%Y-%m-%d %H:%M UTC") in event
    assert f"user.timezone event: MST — \"The user changed planes in Denver (MST)\" (chat, {T0:%Y-%m-%d %H:%M} UTC" in recall
    assert "user.timezone = MST" not in recall and "user.timezone = PST" in recall
    assert next(x for x in history.splitlines() if mst in x).startswith("- event: MST")


def test_the_http_view_and_the_client_carry_the_events(served_app):
    pst, mst = timezone_with_an_event(served_app.vault)
    token = served_app.token("reader")
    view = httpx.get(f"{served_app.url}/v1/entities/user.timezone", headers={"Authorization": f"Bearer {token}"}).json()
    assert [c["id"] for c in view["events"]] == [mst] and view["events"][0]["kind"] == "episodic"
    assert {c["id"] for c in view["active"]} == {pst, mst}  # the old field as before
    with VaultClient(served_app.url, token) as client:
        got = client.get("user.timezone")
        assert got.values == ("PST",) and [c.id for c in got.events] == [mst]
        (hit,) = [h for h in client.search("changed planes in Denver", k=5) if h.claim.id == mst]
        assert hit.claim.kind == Kind.EPISODIC and not hit.contested


def test_the_cli_labels_events(tmp_path):
    path = tmp_path / "store"
    with Vault.open(path, embedder=HashingEmbedder()) as vault:
        timezone_with_an_event(vault)
    runner = CliRunner()
    got = runner.invoke(app, ["get", "user.timezone", "--store", str(path), "--hashing"], env={"COLUMNS": "200"})
    assert got.exit_code == 0 and "event: MST" in got.output and "PST" in got.output
    found = runner.invoke(app, ["search", "changed planes in Denver", "--store", str(path), "--hashing"],
                          env={"COLUMNS": "200"})
    assert found.exit_code == 0 and f"(event, {T0:%Y-%m-%d %H:%M:%S})" in found.output


# -- F7: one line per item dispute --------------------------------------------------------------------
def family(vault: Vault) -> dict[str, str]:
    vault.set_cardinality("user.family", "many")
    vault.set_strategy("user.family", "authority")
    for agent in ("a", "c"):
        vault.set_authority(agent, "user.family", 0.9)
    disputes = {}
    for agent, text, value in [("a", "The user's wife is Ann", "wife:ann"), ("b", "The user's wife is Bea", "wife:bea"),
                               ("c", "The user's son is Carl", "child:carl"),
                               ("d", "The user has no son Carl", "not:child:carl"),
                               ("a", "The user likes tea", "likes:tea")]:
        (d,) = vault.agent(agent).add_facts([Fact("user.family", text, value=value)]).decisions
        if d.dispute_id:
            disputes[value] = d.dispute_id
    assert set(disputes) == {"wife:bea", "not:child:carl"}
    return disputes


def test_get_entity_gives_each_item_dispute_its_own_line(make_vault):
    vault = make_vault()
    disputes = family(vault)
    (text,) = mcp_reads(vault, ("get_entity", {"entity": "user.family"}))
    lines = text.splitlines()
    assert lines[0].startswith("user.family: CONTESTED: agents disagree on 2 separate items")
    contests = [x for x in lines if x.startswith("CONTESTED: ")]
    assert len(contests) == 2 and not any(" vs " in x for x in lines if not x.startswith("CONTESTED: "))
    wife = next(x for x in contests if disputes["wife:bea"] in x)
    child = next(x for x in contests if disputes["not:child:carl"] in x)
    assert "wife:ann (a" in wife and "wife:bea (b" in wife and "child" not in wife and wife.count(" vs ") == 1
    assert "child:carl (c" in child and "not:child:carl (d" in child and "wife" not in child
    assert disputes["not:child:carl"] not in wife and disputes["wife:bea"] not in child
    assert "Not in dispute: likes:tea." in lines


def test_two_challengers_of_one_value_are_one_contest(authority):
    """On a `one` entity every value competes for the one slot: disputes sharing a value read as one line."""
    authority.agent("scheduler").add_facts([Fact("user.timezone", "The user is in PST", value="PST")])
    authority.agent("chat").add_facts([Fact("user.timezone", "The user is in EST", value="EST")])
    authority.agent("phone").add_facts([Fact("user.timezone", "The user is in CST", value="CST")])
    (text,) = mcp_reads(authority, ("get_entity", {"entity": "user.timezone"}))
    first = text.splitlines()[0]
    assert first.startswith("user.timezone: CONTESTED: ") and all(v in first for v in ("PST", "EST", "CST"))
    assert sum(x.startswith("CONTESTED") for x in text.splitlines()) == 0
