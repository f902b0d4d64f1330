"""Reopening from the snapshot saved beside each claim log: used only while fresh (the
log stays canonical), a store of the previous format is upgraded in place with a
message, and the index kind is a persisted store setting."""

from __future__ import annotations

import json
import logging

import duckdb
import numpy as np
import pytest

from vault_ray import Fact, HashingEmbedder, InvalidInput, StoreError, Vault
from vault_ray.storage import hnsw, snapshot
from vault_ray.storage.layout import FORMAT, partition_path

EMB = HashingEmbedder()


def fill(vault: Vault, n: int = 30) -> dict[str, str]:
    out = {}
    for i in range(n):
        d = vault.agent(f"a{i % 3}").add_facts([Fact(f"user.k{i % 9}", f"the value is v{i}", f"v{i}")]).decisions[0]
        out[d.claim_id] = d.entity
    return out


def answers(vault: Vault) -> tuple:
    """What a reader sees. Hits tied at the cut may be any of the tied claims (an HNSW graph
    orders ties its own way), so the hits above the fifth's score are compared by id, the rest by score."""
    hits = [(h.claim.id, round(h.score, 4)) for h in vault.search("the value is v7", k=5)]
    cut = hits[-1][1] if hits else 0.0
    return ([hit if hit[1] > cut else hit[1] for hit in hits],
            {e: vault.get(e) for e in (f"user.k{i}" for i in range(9))}, sorted(c.id for c in vault.claims()))


def test_reopen_reads_the_snapshot_and_gives_the_same_answers(tmp_path):
    with Vault.open(tmp_path / "s", embedder=EMB, partitions=4) as vault:
        fill(vault)
        before = answers(vault)
    snapshots = sorted((tmp_path / "s" / "partitions").glob("*.snapshot"))
    assert len(snapshots) == 4
    with Vault.open(tmp_path / "s", embedder=EMB) as vault:
        assert all(part.log.stamp is not None for part in vault._backend.host.opened())  # opened from the snapshots
        assert answers(vault) == before
        assert all(vault.check().values())


def test_a_log_changed_behind_the_snapshot_wins(tmp_path):
    with Vault.open(tmp_path / "s", embedder=EMB, partitions=1) as vault:
        d = vault.agent("a").add_facts([Fact("user.diet", "The user is vegan", "vegan")]).decisions[0]
    con = duckdb.connect(str(partition_path(tmp_path / "s", 0)))  # another tool edits the canonical log
    con.execute("UPDATE claims SET text = 'The user is vegan (edited)'").fetchall()
    con.close()
    with Vault.open(tmp_path / "s", embedder=EMB) as vault:
        (part,) = vault._backend.host.opened()
        assert part.log.stamp is None  # the stale snapshot was not used
        assert [c.text for c in vault.get("user.diet").active] == ["The user is vegan (edited)"]
        assert vault.claim(d.claim_id).text == "The user is vegan (edited)"


def test_a_format_1_store_is_upgraded_in_place_with_a_message(tmp_path, caplog):
    store = tmp_path / "old"
    with Vault.open(store, embedder=EMB, partitions=2) as vault:
        written = fill(vault, 12)
        before = answers(vault)
    # what a store written before the journal looks like: DuckDB files only, format 1
    for number in range(2):
        path = partition_path(store, number)
        for extra in path.parent.glob(f"{path.stem}.*"):
            if extra.suffix != ".duckdb":
                extra.unlink()
        con = duckdb.connect(str(path))
        con.execute("DROP TABLE journal").fetchall()
        con.close()
    meta = json.loads((store / "vault.json").read_text())
    meta.pop("index")
    (store / "vault.json").write_text(json.dumps({**meta, "format": 1}))
    with caplog.at_level(logging.WARNING, logger="vault_ray"), Vault.open(store, embedder=EMB) as vault:
        assert answers(vault) == before
        assert set(written) <= {c.id for c in vault.claims()}
        fill(vault, 3)  # and it takes new writes
    assert any("upgraded the store" in r.getMessage() and "format 1 to 2" in r.getMessage() for r in caplog.records)
    meta = json.loads((store / "vault.json").read_text())
    assert meta["format"] == FORMAT == 2 and meta["index"] == "flat"


def test_a_store_of_a_newer_format_is_refused(tmp_path):
    Vault.open(tmp_path / "s", embedder=EMB).close()
    meta = json.loads((tmp_path / "s" / "vault.json").read_text())
    (tmp_path / "s" / "vault.json").write_text(json.dumps({**meta, "format": FORMAT + 1}))
    with pytest.raises(StoreError, match="upgrade vault-ray"):
        Vault.open(tmp_path / "s", embedder=EMB)


def test_the_hnsw_index_is_a_store_setting_and_its_graph_is_saved(tmp_path):
    with Vault.open(tmp_path / "s", embedder=EMB, partitions=4, index="hnsw") as vault:
        assert vault.info().index == "hnsw"
        fill(vault)
        before = answers(vault)
    assert json.loads((tmp_path / "s" / "vault.json").read_text())["index"] == "hnsw"
    assert (tmp_path / "s" / "partitions" / "embedded.hnsw").exists()
    with Vault.open(tmp_path / "s", embedder=EMB) as vault:  # no index given: the store's setting
        assert vault.info().index == "hnsw"
        assert answers(vault) == before
        assert all(vault.check().values())
    with Vault.open(tmp_path / "s", embedder=EMB, index="flat") as vault:  # a switch rebuilds from the logs
        assert vault.info().index == "flat" and answers(vault) == before


def test_a_reopened_hnsw_store_reads_its_saved_graph_and_keeps_it_current(tmp_path, monkeypatch):
    graphs = []
    read = hnsw._read_faiss
    monkeypatch.setattr(hnsw, "_read_faiss", lambda data: graphs.append(len(data)) or read(data))
    with Vault.open(tmp_path / "s", embedder=EMB, partitions=4, index="hnsw") as vault:
        fill(vault, 60)
        before, active = answers(vault), vault._backend.host.active_count()
    assert not graphs and active > 1  # a new store builds its graph
    graph = tmp_path / "s" / "partitions" / "embedded.hnsw"
    saved = graph.stat()
    with Vault.open(tmp_path / "s", embedder=EMB) as vault:
        assert len(graphs) == 1 and graphs[0] > active * EMB.dim * 4  # the saved graph, read, not rebuilt
        assert answers(vault) == before
    assert (graph.stat().st_ino, graph.stat().st_mtime_ns) == (saved.st_ino, saved.st_mtime_ns)  # nothing to save again
    with Vault.open(tmp_path / "s", embedder=EMB) as vault:
        vault.agent("a9").add_facts([Fact("user.k3", "the value is now v99", "v99")])
        after = answers(vault)
    with Vault.open(tmp_path / "s", embedder=EMB) as vault:  # the graph saved at close holds the new write
        assert len(graphs) == 3 and answers(vault) == after
        assert [h.claim.value for h in vault.search("the value is now v99", k=1)] == ["v99"]


def test_a_snapshot_array_is_a_copy_or_a_view_that_close_outlives(tmp_path):
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    snapshot.write(tmp_path / "x.snap", {}, {}, {"a.m": data})
    snap = snapshot.read(tmp_path / "x.snap")
    copied, viewed = snap.array("a.m"), snap.arrays("a.", copy=False)["m"]
    assert (copied == data).all() and (viewed == data).all() and viewed.shape == (3, 4)
    assert copied.flags.writeable and not viewed.flags.writeable  # a view of the mapping is read-only
    snap.close()  # with a view alive: no error, the mapping goes with the view
    del viewed
    assert (copied == data).all()


def test_an_unknown_index_kind_is_refused(tmp_path):
    with pytest.raises(InvalidInput, match="index must be one of"):
        Vault.open(tmp_path / "s", embedder=EMB, index="ivf")
    assert not (tmp_path / "s" / "vault.json").exists()
