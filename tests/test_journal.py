"""The claim log's write-ahead journal: an acknowledged write survives kill -9 of the
process before DuckDB has it (DESIGN §7.4), a torn tail is ignored, a replay never
applies a record twice, and a change DuckDB would refuse is refused up front."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from vault_ray import Fact, HashingEmbedder, StorageFailure, StoreLocked, Vault
from vault_ray.models import Claim, Kind, Status, utcnow
from vault_ray.storage import ChangeSet, DuckDBClaimLog
from vault_ray.storage.layout import partition_path

WRITER = textwrap.dedent("""
    import json, os, signal, sys
    from vault_ray import Fact, HashingEmbedder, Vault
    vault = Vault.open(sys.argv[1], embedder=HashingEmbedder(), partitions=4)
    for i in range(int(sys.argv[2])):
        d = vault.agent(f"a{i % 3}").add_facts([Fact(f"user.k{i % 7}", f"the value is v{i}", f"v{i}")]).decisions[0]
        print(json.dumps({"id": d.claim_id, "entity": d.entity, "outcome": str(d.outcome)}), flush=True)
    os.kill(os.getpid(), signal.SIGKILL)  # no close, no flush: only the journal has the last writes
""")


def test_acknowledged_writes_survive_kill_9(tmp_path):
    store = tmp_path / "store"
    proc = subprocess.run([sys.executable, "-c", WRITER, str(store), "40"], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == -9, proc.stderr
    acked = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(acked) == 40
    assert any(p.with_suffix(".journal").exists() for p in (partition_path(store, n) for n in range(4)))
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        stored = {c.id: c for c in vault.claims()}
        assert set(stored) == {a["id"] for a in acked}  # every acknowledged write, nothing else
        assert vault.check() == {p: True for p in range(4)}  # the index holds exactly the active claims
        # the last write on each entity is its current value (recency)
        last = {a["entity"]: a["id"] for a in acked}
        for entity, cid in last.items():
            assert [c.id for c in vault.get(entity).active] == [cid]
    assert not any(p.with_suffix(".journal").exists() for p in (partition_path(store, n) for n in range(4)))


BULK_WRITER = textwrap.dedent("""
    import json, os, signal, sys
    from vault_ray import Fact, HashingEmbedder, Vault
    vault = Vault.open(sys.argv[1], embedder=HashingEmbedder(), partitions=4)
    facts = [Fact(f"user.topic{i}", f"topic {i} note: {' '.join(str(i * j) for j in range(5))}") for i in range(300)]
    result = vault.agent("loader").add_facts(facts, resolve=False)
    print(json.dumps([[d.claim_id, f.text] for d, f in zip(result.decisions, facts)]), flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
""")


def test_a_bulk_write_of_new_entities_keeps_every_vector_across_kill_9(tmp_path):
    """New entities' claims reach the journal with their vectors beside them (not on the
    claim objects): after kill -9 the replay rebuilds the index from those vectors, and
    each text finds its own claim first."""
    store = tmp_path / "store"
    proc = subprocess.run([sys.executable, "-c", BULK_WRITER, str(store)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == -9, proc.stderr
    written = json.loads(proc.stdout.splitlines()[-1])
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        assert vault.check() == {p: True for p in range(4)}
        assert {c.id for c in vault.claims()} == {cid for cid, _ in written}
        for cid, text in written[::15]:
            top = vault.search(text, k=1)[0]
            assert top.claim.id == cid and top.claim.text == text and top.score > 0.5


def claim(cid: str, dim: int = 8) -> Claim:
    vec = np.zeros(dim, np.float32)
    vec[len(cid) % dim] = 1
    return Claim(cid, "user.diet", f"text {cid}", "v", Kind.SEMANTIC, "a", None, utcnow(), utcnow(), Status.ACTIVE,
                 embedding=vec)


def die(log: DuckDBClaimLog) -> None:
    """What a process that dies leaves behind: its files as they are, its locks released."""
    log.journal.close()
    os.close(log._owner)
    if log._tables is not None:
        log._tables.close()


def commit(log: DuckDBClaimLog, *cids: str) -> None:
    log.commit(ChangeSet(new_claims=[claim(c) for c in cids], rids={c: log.allocate_rid() for c in cids},
                         receipts={c: "{}" for c in cids}))


def test_a_torn_tail_is_an_unacknowledged_write_and_is_dropped(tmp_path):
    path = tmp_path / "p.duckdb"
    log = DuckDBClaimLog(path, dim=8)
    commit(log, "c1")
    commit(log, "c2")
    with open(path.with_suffix(".journal"), "ab") as f:  # a crash in the middle of the third append
        f.write(b"\x40\x00\x00\x00\x01\x02\x03")
    die(log)  # nothing flushed to DuckDB
    again = DuckDBClaimLog(path, dim=8)
    assert sorted(c.id for c in again.all_claims()) == ["c1", "c2"]
    commit(again, "c3")  # appending after the cut-off tail works
    again.close()
    assert sorted(c.id for c in DuckDBClaimLog(path, dim=8).all_claims()) == ["c1", "c2", "c3"]


def test_a_replay_after_a_crash_mid_flush_applies_nothing_twice(tmp_path):
    path = tmp_path / "p.duckdb"
    log = DuckDBClaimLog(path, dim=8)
    commit(log, "c1", "c2")
    records = path.with_suffix(".journal").read_bytes()
    log.flush()  # DuckDB has c1 and c2 now, and the journal was emptied
    # as if the process died after DuckDB's commit but before the rotated file was deleted:
    path.with_name(path.name.replace(".duckdb", ".journal.1")).write_bytes(records)
    die(log)
    again = DuckDBClaimLog(path, dim=8)
    assert sorted(c.id for c in again.all_claims()) == ["c1", "c2"]  # no duplicate key error, no double rows
    assert again.count() == 2
    again.close()


def test_a_claim_id_stored_twice_is_refused_before_the_journal(tmp_path):
    log = DuckDBClaimLog(tmp_path / "p.duckdb", dim=8)
    commit(log, "c1")
    log.flush()
    with pytest.raises(StorageFailure, match="already stored"):
        commit(log, "c2", "c1")
    commit(log, "c3")  # the refused change left nothing behind
    assert sorted(c.id for c in log.all_claims()) == ["c1", "c3"]
    log.close()


def test_reads_see_writes_the_background_flush_has_not_applied_yet(make_vault):
    vault = make_vault()
    d = vault.agent("a").add_facts([Fact("user.diet", "The user is vegan", "vegan")]).decisions[0]
    # straight after the acknowledgement: the history (a DuckDB read) flushes first
    assert [c.id for c in vault.history("user.diet")] == [d.claim_id]
    assert vault.claim(d.claim_id).text == "The user is vegan"


def test_a_partition_log_has_one_owner_at_a_time(tmp_path):
    log = DuckDBClaimLog(tmp_path / "p.duckdb", dim=8)
    with pytest.raises(StoreLocked):
        DuckDBClaimLog(tmp_path / "p.duckdb", dim=8)
    log.close()
    DuckDBClaimLog(tmp_path / "p.duckdb", dim=8).close()


def test_records_overwrite_zeros_written_ahead_and_a_torn_record_there_is_dropped(tmp_path):
    from vault_ray.storage.journal import PREALLOC, Journal

    journal = Journal(tmp_path / "p.journal")
    assert not journal.has_records()
    journal.append((1, "first"))
    journal.append((2, "second"))
    size = journal.path.stat().st_size
    assert size >= PREALLOC  # zeros ahead of the records: the next appends overwrite them in place
    journal.append((3, "third"))
    assert journal.path.stat().st_size == size
    assert journal.has_records() and list(journal.records()) == [(1, "first"), (2, "second"), (3, "third")]
    end = journal._end
    journal.close()
    with open(journal.path, "r+b") as f:  # a crash in the middle of the fourth record, over the zeros
        f.seek(end)
        f.write(b"\x40\x00\x00\x00\x01\x02\x03")
    again = Journal(journal.path)
    assert list(again.records()) == [(1, "first"), (2, "second"), (3, "third")]
    again.append((4, "fourth"))  # the torn bytes are cut off before anything is written
    assert list(Journal(journal.path).records()) == [(1, "first"), (2, "second"), (3, "third"), (4, "fourth")]
    big = (5, "x" * (2 * PREALLOC))  # a record larger than the zeros ahead: written at the end
    again.append(big)
    again.append((6, "after"))
    again.close()
    assert list(Journal(journal.path).records())[-2:] == [big, (6, "after")]


def test_a_journal_written_without_zeros_ahead_still_reads(tmp_path):
    """A journal left by an earlier version (records up to the end of the file, no zeros)."""
    import pickle
    import struct
    import zlib

    from vault_ray.storage.journal import MAGIC, Journal

    path = tmp_path / "p.journal"
    frames = b"".join(struct.pack("<II", len(p), zlib.crc32(p)) + p
                      for p in (pickle.dumps((i, f"r{i}"), protocol=5) for i in range(3)))
    path.write_bytes(MAGIC + frames)
    journal = Journal(path)
    assert journal.has_records() and list(journal.records()) == [(0, "r0"), (1, "r1"), (2, "r2")]
    journal.append((3, "r3"))
    journal.close()
    assert list(Journal(path).records()) == [(i, f"r{i}") for i in range(4)]


def test_the_background_apply_waits_while_writes_come_unless_the_backlog_is_old_or_heavy(tmp_path, monkeypatch):
    """A journal is applied to DuckDB after FLUSH_AGE_S when no write is under way, but only
    after FLUSH_BUSY_AGE_S while writes keep coming (an apply competes with them), and at
    once when its records weigh FLUSH_BYTES or more (they are held in memory until applied)."""
    from vault_ray.engine import partitions

    log = DuckDBClaimLog(tmp_path / "p.duckdb", dim=8)
    due = partitions.PartitionSet._flush_due
    assert not due(log, True) and not due(log, False)  # nothing to apply
    commit(log, "c1")
    assert log.backlog() == 1 and log.backlog_bytes() > 0
    monkeypatch.setattr(partitions, "FLUSH_AGE_S", 0.0)
    monkeypatch.setattr(partitions, "FLUSH_BUSY_AGE_S", 3600.0)
    assert due(log, True)  # quiet: applied once FLUSH_AGE_S has passed
    assert not due(log, False)  # writes under way: it waits
    monkeypatch.setattr(partitions, "FLUSH_BYTES", log.backlog_bytes())
    assert due(log, False)  # heavy enough: applied anyway
    log.flush()
    assert log.backlog() == 0 and log.backlog_bytes() == 0 and not due(log, True)
    log.close()


def test_searches_and_gets_hold_the_background_apply_back_as_writes_do(tmp_path, monkeypatch):
    """An apply right after a burst of writes would land on the searches that follow (it takes
    the cores for a fraction of a second): while searches or `get`s keep coming, a journal
    waits as it does while writes come, and is applied once they pause."""
    import time

    from vault_ray.engine import partitions

    monkeypatch.setattr(partitions, "FLUSH_AGE_S", 3600.0)
    monkeypatch.setattr(partitions, "FLUSH_BUSY_AGE_S", 3600.0)
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        vault.agent("a").add_facts([Fact("user.tea", "The user drinks green tea", value="green tea")])
        host = vault._backend.host
        (log,) = [part.log for part in host.parts.values()]
        assert log.backlog() == 1
        monkeypatch.setattr(partitions, "INDEX_QUIET_S", 0.0)  # the write is over
        monkeypatch.setattr(partitions, "READ_QUIET_S", 3600.0)
        monkeypatch.setattr(partitions, "FLUSH_AGE_S", 0.0)  # due at once, were it quiet
        for read in (lambda: vault.search("what tea does the user drink", k=1), lambda: vault.get("user.tea")):
            read()
            host.chores()
            time.sleep(0.6)  # a round of the background thread too
            assert log.backlog() == 1
        monkeypatch.setattr(partitions, "READ_QUIET_S", 0.0)  # the reads paused
        host.chores()
        assert log.backlog() == 0
        assert vault.get("user.tea").active[0].value == "green tea"


def test_a_read_that_comes_during_a_round_of_applies_stops_it_after_the_partition_at_hand(tmp_path, monkeypatch):
    """The background thread asks before each partition: a search arriving while it applies
    one journal leaves the others for the next quiet moment."""
    import time

    from vault_ray.engine import partitions

    monkeypatch.setattr(partitions, "FLUSH_AGE_S", 3600.0)
    monkeypatch.setattr(partitions, "FLUSH_BUSY_AGE_S", 3600.0)
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        vault.agent("a").add_facts([Fact(f"user.topic_{i}", f"note number {i} on topic {i}") for i in range(40)],
                                   resolve=False)
        host = vault._backend.host
        host._stop.set()  # this test runs the rounds itself
        host._wake.set()
        host._chores.join()
        logs = [part.log for part in host.parts.values()]
        assert len(logs) > 2 and all(log.backlog() for log in logs)
        monkeypatch.setattr(partitions, "INDEX_QUIET_S", 0.0)
        monkeypatch.setattr(partitions, "READ_QUIET_S", 5.0)
        monkeypatch.setattr(partitions, "FLUSH_AGE_S", 0.0)
        host._last_read = time.monotonic() - 10  # quiet when the round starts
        applied = []
        for log in logs:
            def flush(log=log, inner=log.flush):
                applied.append(log)
                if not vault.closed:  # (the close at the end flushes too)
                    vault.search("note number 3", k=1)  # a reader arrives meanwhile
                inner()
            monkeypatch.setattr(log, "flush", flush)
        host.chores()
        assert len(applied) == 1 and sum(1 for log in logs if log.backlog()) == len(logs) - 1
        monkeypatch.setattr(partitions, "READ_QUIET_S", 0.0)
        host.chores()
        assert not any(log.backlog() for log in logs)


def _journal_with(tmp_path, n: int):
    from vault_ray.storage.journal import Journal
    journal = Journal(tmp_path / "p0000.journal")
    offsets = []
    for i in range(n):
        offsets.append(journal._end)
        journal.append((i + 1, [f"claim {i}" * 20], {}, {}, [], [], {}))
    journal.close()
    return journal, offsets


@pytest.mark.parametrize("where", ["payload", "length"])
def test_a_damaged_record_with_records_after_it_is_refused_not_taken_for_a_torn_tail(tmp_path, where):
    from vault_ray.storage.journal import Journal
    journal, offsets = _journal_with(tmp_path, 3)
    data = bytearray(journal.path.read_bytes())
    if where == "payload":
        data[offsets[1] + 20] ^= 0xFF
    else:
        data[offsets[1]: offsets[1] + 4] = bytes(4)  # a length of 0, as if the records ended there
    journal.path.write_bytes(bytes(data))
    with pytest.raises(StorageFailure, match=f"journal {journal.path} is damaged"):
        list(Journal(journal.path).records())
    with pytest.raises(StorageFailure, match="damaged"):
        Journal(journal.path).open()  # not truncated to the damaged record: nothing is changed
    assert journal.path.read_bytes() == bytes(data)


def test_a_torn_last_record_is_still_a_torn_tail(tmp_path):
    from vault_ray.storage.journal import Journal
    journal, offsets = _journal_with(tmp_path, 3)
    data = bytearray(journal.path.read_bytes())
    data[offsets[2] + 20] ^= 0xFF
    journal.path.write_bytes(bytes(data))
    assert [r[0] for r in Journal(journal.path).records()] == [1, 2]
    reopened = Journal(journal.path)
    reopened.open()
    reopened.close()
    assert journal.path.stat().st_size == offsets[2]  # cut off before anything is appended


def test_a_damaged_last_record_is_dropped_with_a_warning(tmp_path, caplog):
    """The last record failing its checksum is taken for a torn tail (a crash before the write
    was acknowledged); if the disk damaged it, the write is lost: the log says so."""
    from vault_ray.storage.journal import _PICKLE_START

    path = tmp_path / "p.duckdb"
    log = DuckDBClaimLog(path, dim=8)
    commit(log, "c1")
    commit(log, "c2")
    die(log)  # nothing flushed to DuckDB
    journal = path.with_suffix(".journal")
    data = bytearray(journal.read_bytes())
    last = data.rfind(_PICKLE_START)
    data[last + 5] ^= 0xFF
    journal.write_bytes(bytes(data))
    with caplog.at_level("WARNING"):
        again = DuckDBClaimLog(path, dim=8)
    assert sorted(c.id for c in again.all_claims()) == ["c1"]
    assert any("last record of the journal" in r.getMessage() for r in caplog.records)
    again.close()
