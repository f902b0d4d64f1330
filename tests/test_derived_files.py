"""Derived files (a partition's snapshot, the saved HNSW graph) that are damaged, of an
older format or missing are ignored with a warning and rebuilt from the claim logs; a
claim log that is missing while its snapshot or journal is still there is refused."""

from __future__ import annotations

import logging
import os

import pytest

from vault_ray import Fact, HashingEmbedder, StoreError, Vault
from vault_ray.storage import log_files, snapshot
from vault_ray.storage.journal import Journal
from vault_ray.storage.layout import partition_path

EMB = HashingEmbedder()
FACTS = [Fact(f"user.e{i}", f"fact number {i} about topic {i % 7}", value=str(i), claim_id=f"c{i}") for i in range(60)]


def make(store, index: str = "flat") -> list:
    with Vault.open(store, embedder=EMB, partitions=1, index=index) as vault:
        vault.agent("a").add_facts(FACTS, resolve=False)
        return [(h.claim.id, round(h.score, 4)) for h in vault.search("fact number 7 about topic 0", k=5)]


def flip(path, section: str) -> None:
    """One byte of one section changed, as bit rot would (the file's size and the log's stamp kept)."""
    snap = snapshot.Snapshot(path)
    base, (_, offset, _, _) = snap._base, snap.header["sections"][section]
    snap.close()
    data = bytearray(path.read_bytes())
    data[base + offset] ^= 0xFF
    path.write_bytes(bytes(data))


def warned(caplog, *words: str) -> bool:
    return any(r.levelno == logging.WARNING and all(w in r.getMessage() for w in words) for r in caplog.records)


@pytest.mark.parametrize("section", ["id_keys", "active_vectors", "live"])
def test_a_flipped_byte_in_a_snapshot_is_ignored_and_the_partition_rebuilt_from_its_log(tmp_path, caplog, section):
    before = make(tmp_path / "s")
    snap = partition_path(tmp_path / "s", 0).with_suffix(".snapshot")
    flip(snap, section)
    with caplog.at_level(logging.WARNING, logger="vault_ray"), Vault.open(tmp_path / "s", embedder=EMB) as vault:
        (part,) = vault._backend.host.opened()
        assert part.log.stamp is None  # read from DuckDB, not the damaged file
        assert [(h.claim.id, round(h.score, 4)) for h in vault.search("fact number 7 about topic 0", k=5)] == before
        decisions = vault.agent("a").add_facts(FACTS, resolve=False).decisions  # a retry of every id: applied once
        assert {d.claim_id for d in decisions} == {f.claim_id for f in FACTS} and len(vault.claims()) == len(FACTS)
        assert all(vault.check().values())
    assert warned(caplog, str(snap), "damaged", "rebuilt from its claim log")
    with Vault.open(tmp_path / "s", embedder=EMB) as vault:  # and it opens again, from the snapshot saved at close
        assert vault._backend.host.opened()[0].log.stamp is not None and len(vault.claims()) == len(FACTS)


def test_a_snapshot_written_before_checksums_is_read_from_the_log_instead(tmp_path, caplog):
    before = make(tmp_path / "s")
    snap = partition_path(tmp_path / "s", 0).with_suffix(".snapshot")
    data = snap.read_bytes()
    snap.write_bytes(snapshot.OLD_MAGIC + data[len(snapshot.MAGIC):])
    with caplog.at_level(logging.INFO, logger="vault_ray"), Vault.open(tmp_path / "s", embedder=EMB) as vault:
        assert vault._backend.host.opened()[0].log.stamp is None
        assert [(h.claim.id, round(h.score, 4)) for h in vault.search("fact number 7 about topic 0", k=5)] == before
    assert any("earlier format" in r.getMessage() for r in caplog.records)
    assert snap.read_bytes().startswith(snapshot.MAGIC)  # saved again in the current format


def test_a_missing_snapshot_is_rebuilt_with_a_warning(tmp_path, caplog):
    make(tmp_path / "s")
    snap = partition_path(tmp_path / "s", 0).with_suffix(".snapshot")
    snap.unlink()
    with caplog.at_level(logging.WARNING, logger="vault_ray"), Vault.open(tmp_path / "s", embedder=EMB) as vault:
        assert len(vault.claims()) == len(FACTS)
    assert warned(caplog, str(snap), "no snapshot at", "not closed", "rebuilt from its claim log")


def test_a_new_store_warns_about_nothing(tmp_path, caplog):
    with caplog.at_level(logging.WARNING, logger="vault_ray"):
        make(tmp_path / "s", "hnsw")
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


@pytest.mark.parametrize("damage", ["flip", "delete"])
def test_a_damaged_or_missing_hnsw_graph_is_rebuilt_with_a_warning(tmp_path, caplog, damage):
    before = make(tmp_path / "s", "hnsw")
    graph = tmp_path / "s" / "partitions" / "embedded.hnsw"
    if damage == "flip":
        flip(graph, next(iter(snapshot.Snapshot(graph).header["sections"])))
    else:
        graph.unlink()
    with caplog.at_level(logging.WARNING, logger="vault_ray"), Vault.open(tmp_path / "s", embedder=EMB) as vault:
        assert [(h.claim.id, round(h.score, 4)) for h in vault.search("fact number 7 about topic 0", k=5)] == before
        assert all(vault.check().values())
    assert warned(caplog, str(graph), "damaged" if damage == "flip" else "no saved HNSW index at", "rebuilt")


@pytest.mark.parametrize("left", ["snapshot", "journal"])
def test_a_deleted_claim_log_is_refused_while_its_snapshot_or_journal_is_there(tmp_path, left):
    make(tmp_path / "s")
    log = partition_path(tmp_path / "s", 0)
    snap = log.with_suffix(".snapshot")
    if left == "journal":
        snap.unlink()
        Journal(log.with_suffix(".journal")).append((1, [], {}, {}, [], [], {}))
    kept = {p.name: p.read_bytes() for p in log.parent.iterdir()}
    log.unlink()
    for _ in range(2):  # and again: the failed open held nothing
        with pytest.raises(StoreError, match=f"claim log {log} is missing"):
            Vault.open(tmp_path / "s", embedder=EMB)
    assert {p.name: p.read_bytes() for p in log.parent.iterdir()} == {k: v for k, v in kept.items() if k != log.name}
    assert not os.path.exists(log)


@pytest.mark.parametrize("index", ["flat", "hnsw"])
def test_a_store_copied_with_its_file_times_opens_from_its_snapshot(tmp_path, index):
    """A backup restored with `cp -a` (or `shutil.copytree`) was rebuilt from its logs on its
    first open: the stamp named the file's inode and change time, which a copy cannot keep."""
    import shutil

    before = make(tmp_path / "s", index)
    shutil.copytree(tmp_path / "s", tmp_path / "copy")
    with Vault.open(tmp_path / "copy", embedder=EMB, index=index) as vault:
        assert vault._backend.host.opened()[0].log.stamp is not None  # the snapshot was loaded
        assert [(h.claim.id, round(h.score, 4)) for h in vault.search("fact number 7 about topic 0", k=5)] == before



def test_a_log_whose_header_changed_under_the_same_size_and_time_has_another_stamp(tmp_path):
    """The stamp hashes DuckDB's header blocks (each checkpoint writes a new one): a log put back
    from an earlier checkpoint with the current file's size and time is not taken for the current
    one (its snapshot would show claims the log lacks)."""
    make(tmp_path / "s")
    db = partition_path(tmp_path / "s", 0)
    st, before = os.stat(db), log_files.stamp(str(db))
    data = bytearray(db.read_bytes())
    data[4096 + 8] ^= 0x01  # the first database header's iteration number
    db.write_bytes(bytes(data))
    os.utime(db, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(db).st_size == st.st_size and os.stat(db).st_mtime_ns == st.st_mtime_ns
    assert before is not None and log_files.stamp(str(db)) not in (None, before)
