"""The public event stream read in Python: `vault.events(since=...)`. The schema (kinds
mapped from the log's rows, needs_user, who resolved and how), the cursor (no gap and
no repeat across pages, partitions, concurrent writers and a reopened store), the
filters, and bad cursors."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from scenarios import T0

from vault_ray import AutoResolveRules, Fact, HashingEmbedder, InvalidInput, Policy, Vault
from vault_ray.events import KINDS, EventPage, parse_cursor


def _budget_dispute(vault: Vault) -> str:
    vault.agent("planner").add("My budget is 5000 dollars", observed_at=T0)
    (new,) = vault.agent("chat").add("My budget is 9000 dollars", observed_at=T0 + timedelta(hours=1)).decisions
    assert new.outcome == "disputed"
    return new.dispute_id


def _drain(vault: Vault, since: str, limit: int, **filters) -> tuple[list, str]:
    found, cursor = [], since
    while True:
        page = vault.events(since=cursor, limit=limit, **filters)
        found += page.events
        cursor = page.cursor
        if not page.more:
            return found, cursor


def test_a_high_stakes_write_is_a_dispute_opened_that_needs_the_user(vault):
    start = vault.events(since="now")
    assert isinstance(start, EventPage) and list(start) == []
    dispute_id = _budget_dispute(vault)
    page = vault.events(since=start.cursor, needs_user=True)
    (opened,) = page.events
    assert opened.kind == "dispute_opened" and opened.needs_user is True
    assert opened.dispute_id == dispute_id and opened.entity == "user.budget" and opened.agent == "chat"
    assert opened.cursor != start.cursor and opened.id.count("-") == 1
    # the claims themselves are events too, and need no one
    kinds = [e.kind for e in vault.events(since=start.cursor)]
    assert kinds.count("claim_added") == 2 and "dispute_opened" in kinds
    assert vault.events(since=page.cursor).events == ()


def test_a_resolution_says_who_decided_and_how_and_the_loser_is_superseded(vault):
    dispute_id = _budget_dispute(vault)
    before = vault.events(since="now").cursor
    d = vault.dispute(dispute_id)
    vault.resolve_dispute(dispute_id, d.incumbents[0], decided_by="alice", note="still 5000")
    events = list(vault.events(since=before))
    resolved = next(e for e in events if e.kind == "dispute_resolved")
    assert (resolved.decided_by, resolved.how, resolved.winner, resolved.note) == ("alice", "winner", d.incumbents[0],
                                                                                  "still 5000")
    assert resolved.needs_user is True
    superseded = next(e for e in events if e.kind == "claim_superseded")
    assert superseded.claim_id == d.challenger and superseded.superseded_by == d.incumbents[0]
    assert superseded.dispute_id == dispute_id and superseded.status == "superseded"
    assert {e.kind for e in events} <= set(KINDS)


def test_a_rule_settling_a_dispute_is_how_rule(make_vault):
    vault = make_vault(policy=Policy(default_strategy="authority", rules=AutoResolveRules(reasserted_by=2)))
    vault.agent("a").add_facts(Fact("user.diet", "The user is vegan", "vegan", observed_at=T0))
    vault.agent("b").add_facts(Fact("user.diet", "The user is vegetarian", "vegetarian", observed_at=T0 + timedelta(1)))
    before = vault.events(since="now").cursor
    vault.agent("c").add_facts(Fact("user.diet", "The user is vegetarian", "vegetarian", observed_at=T0 + timedelta(2)))
    resolved = next(e for e in vault.events(since=before, kinds=["dispute_resolved"]))
    assert resolved.how == "rule" and resolved.decided_by.startswith("rule:") and resolved.needs_user is False


def test_pages_of_any_size_give_every_event_once_in_a_total_order(vault):
    for i in range(12):
        vault.agent(f"a{i % 3}").add_facts(Fact(f"user.k{i % 5}", f"value {i}", f"v{i}", observed_at=T0 + timedelta(i)))
    _budget_dispute(vault)
    everything, end = _drain(vault, "start", 5000)
    assert len({e.id for e in everything}) == len(everything) > 12
    assert len({e.id.split("-")[0] for e in everything}) > 1  # the store has several partitions in use
    for limit in (1, 2, 7):
        paged, cursor = _drain(vault, "start", limit)
        assert [e.id for e in paged] == [e.id for e in everything] and cursor == end
    # resuming from any event's cursor gives exactly the events after it
    for i in (0, 5, len(everything) - 1):
        assert [e.id for e in _drain(vault, everything[i].cursor, 3)[0]] == [e.id for e in everything[i + 1:]]


def test_concurrent_writers_lose_no_event_to_a_reader_following_them(vault):
    seen, cursor = [], "start"

    def write(agent: str) -> None:
        for i in range(25):
            vault.agent(agent).add_facts(Fact(f"user.{agent}_{i % 7}", f"{agent} says {i}", f"{i}"), resolve=False)

    writers = [threading.Thread(target=write, args=(a,)) for a in ("x", "y", "z")]
    for w in writers:
        w.start()
    while any(w.is_alive() for w in writers):
        page = vault.events(since=cursor, limit=4)
        seen += page.events
        cursor = page.cursor
    seen += _drain(vault, cursor, 50)[0]
    logged = [e for e in vault.events() if e.kind != "noop"]
    assert len(seen) == len({e.id for e in seen}) == len(logged)
    assert sum(e.kind == "claim_added" for e in seen) == 75


def test_the_cursor_survives_a_restart(tmp_path):
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        vault.agent("a").add_facts(Fact("user.diet", "The user is vegan", "vegan"))
        first = vault.events(since="start")
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        assert vault.events(since=first.cursor).events == ()
        vault.agent("b").add_facts(Fact("user.pets", "The user has a cat", "cat"), resolve=False)
        (after,) = vault.events(since=first.cursor)
        assert after.kind == "claim_added" and after.entity == "user.pets"
        assert [e.id for e in vault.events(since="start")] == [*(e.id for e in first), after.id]


def test_filters_by_kind_entity_pattern_and_needs_user(vault):
    vault.agent("a").add_facts(Fact("user.schedule.gym", "The user goes to the gym at 7", "7am"))
    _budget_dispute(vault)
    assert {e.entity for e in vault.events(since="start", entity="user.schedule.*")} == {"user.schedule.gym"}
    assert {e.kind for e in vault.events(since="start", kinds=["dispute_opened"])} == {"dispute_opened"}
    assert all(e.needs_user is False or e.needs_user is None for e in vault.events(since="start", needs_user=False))
    assert vault.events(since="start", entity="user.diet").events == ()


@pytest.mark.parametrize("cursor", ["v2", "v1.0-", "v1.99-3", "v1.0-1.0-2", "x", "v1.-1-2", "v1.0-1e3", "v1.٣-1"])
def test_a_cursor_of_another_store_or_no_cursor_at_all_is_refused(vault, cursor):
    with pytest.raises(InvalidInput):
        vault.events(since=cursor)


def test_a_cursor_past_a_partitions_end_is_refused(vault):
    """A cursor no read gave (one partition's count raised) would wait past events that
    come later: refused, while the cursor the store gave still reads them."""
    _budget_dispute(vault)
    page = vault.events(since="start")
    head, *pairs = page.cursor.split(".")
    p, n = pairs[0].split("-")
    inflated = ".".join([head, f"{p}-{int(n) + 1000}", *pairs[1:]])
    with pytest.raises(InvalidInput, match="past the end of partition"):
        vault.events(since=inflated)
    unknown = next(q for q in range(vault.info().partitions) if f".{q}-" not in page.cursor)
    with pytest.raises(InvalidInput):  # a partition that has no events yet
        vault.events(since=f"v1.{unknown}-1")
    vault.agent("a").add_facts(Fact("user.pets", "The user has a cat", "cat"), resolve=False)
    assert [e.entity for e in vault.events(since=page.cursor)] == ["user.pets"]


@pytest.mark.parametrize("bad", [{"kinds": ["status_changed"]}, {"limit": 0}, {"limit": True}, {"entity": "User!"},
                                 {"needs_user": "yes"}, {"claim_id": "c1"}])
def test_bad_filters_are_refused(vault, bad):
    with pytest.raises(InvalidInput):
        vault.events(since="start", **bad)


def test_the_log_itself_is_still_there_without_since(vault):
    vault.agent("a").add_facts(Fact("user.diet", "The user is vegan", "vegan"))
    assert [e.kind for e in vault.events(entity="user.diet")] == ["claim_added"]
    with pytest.raises(InvalidInput):
        vault.events(kinds=["claim_added"])
    assert parse_cursor("start", 16) == {} and parse_cursor("v1.3-7", 16) == {3: 7}


def test_the_log_gives_its_times_as_datetimes_too(vault):
    """`Event.ts` stays epoch seconds; `Event.at` is the same time as every other time of the API:
    an aware UTC datetime, the claim's `recorded_at` and the stream's `VaultEvent.ts`."""
    vault.agent("a").add_facts(Fact("user.diet", "The user is vegan", "vegan"))
    (logged,), (streamed,) = vault.events(entity="user.diet"), vault.events(since="start").events
    claim = vault.claim(logged.claim_id)
    assert isinstance(logged.ts, float) and logged.at.utcoffset() == timedelta(0)
    assert abs(logged.at - claim.recorded_at) < timedelta(milliseconds=1)
    assert logged.at == streamed.ts and logged.at.timestamp() == logged.ts
