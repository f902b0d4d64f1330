"""The claim log of one partition (DuckDB): commits, reads, export, events."""

from __future__ import annotations

import numpy as np
import pyarrow.parquet as pq
import pytest

from vault_ray import Fact, HashingEmbedder, StorageFailure
from vault_ray.models import Claim, Event, Kind, Status, utcnow
from vault_ray.storage import ChangeSet, DuckDBClaimLog


def claim(cid: str, status: Status = Status.ACTIVE, dim: int = 8) -> Claim:
    vec = np.zeros(dim, np.float32)
    vec[hash(cid) % dim] = 1
    return Claim(cid, "user.diet", f"text {cid}", "v", Kind.SEMANTIC, "a", None, utcnow(), utcnow(), status,
                 embedding=vec)


def test_commit_round_trip_and_live_load(tmp_path):
    log = DuckDBClaimLog(tmp_path / "p.duckdb", dim=8)
    changes = ChangeSet(new_claims=[claim("c1"), claim("c2", Status.DISPUTED), claim("c3", Status.SUPERSEDED)])
    changes.rids = {"c1": log.allocate_rid(), "c2": log.allocate_rid(), "c3": log.allocate_rid()}
    changes.events.append(Event(1.0, "user.diet", "claim_added", claim_id="c1", status="active"))
    log.commit(changes)
    log.commit(ChangeSet(status={"c1": ("superseded", "c2")}))
    log.close()
    log = DuckDBClaimLog(tmp_path / "p.duckdb", dim=8)
    image = log.load()
    assert image.live["id"].to_pylist() == ["c2"] and image.live["rid"].to_pylist() == [1]
    rids, vectors = image.disputed  # a disputed claim keeps its vector in memory
    assert rids.tolist() == [1] and np.array_equal(vectors[0], claim("c2").embedding)
    assert image.vectors is not None and len(image.vectors[0]) == 0  # nothing active
    assert log.get_claims(["c1"])["c1"].superseded_by == "c2"
    assert [e.kind for e in log.events(entity="user.diet")] == ["claim_added"]
    assert log.allocate_rid() == 3  # rids continue after reopen
    log.close()


def test_a_new_log_hands_over_the_empty_image_its_file_holds(tmp_path):
    """A log made by this open is not read (it holds nothing): its image is the one DuckDB gives for an empty file."""
    log = DuckDBClaimLog(tmp_path / "p.duckdb", dim=8)
    new = log.load()
    log.close()  # without the index's vectors: no snapshot saved, the next open reads the file
    log = DuckDBClaimLog(tmp_path / "p.duckdb", dim=8)
    assert log.stamp is None and not (tmp_path / "p.snapshot").exists()
    read = log.load()
    assert new.live.schema == read.live.schema and new.live.num_rows == read.live.num_rows == 0
    assert (new.disputes, new.gone) == (read.disputes, read.gone) == ([], [])
    for mine, theirs in [(new.disputed, read.disputed), (new.vectors, read.vectors)]:
        assert mine is not None and theirs is not None
        assert [(a.dtype, a.shape) for a in mine] == [(a.dtype, a.shape) for a in theirs] == [("int64", (0,)),
                                                                                             ("float32", (0, 8))]
    assert log.allocate_rid() == 0
    log.close()


def test_failed_commit_changes_nothing(tmp_path):
    log = DuckDBClaimLog(tmp_path / "p.duckdb", dim=8)
    first = ChangeSet(new_claims=[claim("c1")], rids={"c1": log.allocate_rid()})
    log.commit(first)
    dup = ChangeSet(new_claims=[claim("c2"), claim("c1")], rids={"c2": log.allocate_rid(), "c1": 99})
    with pytest.raises(StorageFailure):
        log.commit(dup)  # duplicate primary key: the whole transaction rolls back
    assert [c.id for c in log.all_claims()] == ["c1"]
    log.close()


def test_export_parquet_has_every_table(vault, tmp_path):
    vault.agent("a").add_facts([Fact("user.diet", "The user is vegan", "vegan")])
    vault.agent("b").add_facts([Fact("user.diet", "The user is vegetarian", "vegetarian")])
    paths = vault.export(tmp_path / "export").paths
    tables = {p.split("/export/", 1)[1].split("/", 1)[0] for p in paths if p.endswith(".parquet")}
    assert tables == {"claims", "disputes", "events", "receipts"}
    claims = pq.read_table([p for p in paths if "/claims/" in p][0])
    assert claims.num_rows == 2
    assert set(claims.column("status").to_pylist()) == {"active", "superseded"}
    events = pq.read_table([p for p in paths if "/events/" in p][0])
    assert "status_changed" in events.column("kind").to_pylist()


def test_every_change_writes_an_event_row(vault):
    a = vault.agent("a").add("I'm in PST").decisions[0]
    b = vault.agent("b").add("I'm in EST").decisions[0]
    events = vault.events(entity="user.timezone")
    kinds = [(e.kind, e.claim_id, e.status) for e in events]
    assert ("claim_added", a.claim_id, "active") in kinds
    assert ("claim_added", b.claim_id, "active") in kinds
    assert ("status_changed", a.claim_id, "superseded") in kinds
    changed = next(e for e in events if e.kind == "status_changed")
    assert changed.agent == "b" and changed.detail["strategy"] == "recency"


def test_index_rebuilt_from_log_holds_only_active(tmp_path):
    from vault_ray import Vault

    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(), partitions=2) as vault:
        for i in range(30):
            vault.agent(f"agent{i % 3}").add_facts([Fact(f"user.thing{i % 7}", f"value {i}", f"v{i % 4}")])
        active = {c.id for c in vault.claims() if c.status == "active"}
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        assert vault.check() == {0: True, 1: True}  # the index holds exactly the log's active claims
        hits = vault.search("value", k=50)
        assert {h.claim.id for h in hits} == active


def test_supersedes_names_what_a_claim_replaced(tmp_path):
    from vault_ray import Vault

    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        old = vault.agent("a").add_facts([Fact("user.diet", "The user is vegan", "vegan")]).decisions[0]
        new = vault.agent("b").add_facts([Fact("user.diet", "The user eats fish", "pescatarian")]).decisions[0]
        assert new.superseded == (old.claim_id,)
        assert vault.claim(new.claim_id).supersedes == (old.claim_id,)
        assert vault.claim(old.claim_id).superseded_by == new.claim_id
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:  # persisted, not only in memory
        assert vault.claim(new.claim_id).supersedes == (old.claim_id,)


def test_extracted_claims_keep_what_was_said(tmp_path):
    from vault_ray import Vault

    turn = "Actually I moved to Berlin, and I'm vegan now"
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        decisions = vault.agent("a").add(turn).decisions
        assert len(decisions) == 2
        for d in decisions:
            claim = vault.claim(d.claim_id)
            assert claim.source == turn and claim.text != turn  # the rewrite, and what was said
            assert f"said: {turn!r}" in str(vault.explain(d.claim_id))
        direct = vault.agent("b").add_facts([Fact("user.pets", "The user has a cat", "cat")]).decisions[0]
        assert vault.claim(direct.claim_id).source is None
        paths = vault.export(tmp_path / "export").paths
    sources = {s for p in paths if "/claims/" in p for s in pq.read_table(p).column("source").to_pylist()}
    assert sources == {turn, None}
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        assert {vault.claim(d.claim_id).source for d in decisions} == {turn}


def test_a_log_written_before_sources_is_upgraded_on_open(tmp_path):
    import duckdb

    log = DuckDBClaimLog(tmp_path / "p.duckdb", dim=8)
    log.commit(ChangeSet(new_claims=[claim("c1")], rids={"c1": log.allocate_rid()}))
    log.close()
    con = duckdb.connect(str(tmp_path / "p.duckdb"))
    con.execute("ALTER TABLE claims DROP COLUMN source")  # the layout of a store from before
    con.close()
    log = DuckDBClaimLog(tmp_path / "p.duckdb", dim=8)
    assert log.get_claims(["c1"])["c1"].source is None
    log.commit(ChangeSet(new_claims=[claim("c2")], rids={"c2": log.allocate_rid()}))
    assert [c.id for c in log.all_claims()] == ["c1", "c2"]
    log.close()
