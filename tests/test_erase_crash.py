"""An erasure a crash cuts short finishes itself on the next open (QA: the erase crash window).

`Vault.erase` retracts the entity's claims in one transaction and then removes their content
from the files. A process killed between the two left the content on disk until someone
called `erase` again. Now the erasure is recorded durably before its first change, and the
next `Vault.open` finishes it (with a warning): the content is gone from every file's bytes."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from erasing import MESSAGE, SECRET, files_holding

from vault_ray import Fact, HashingEmbedder, Vault
from vault_ray.engine.erase import is_erased
from vault_ray.storage.layout import partition_of, partition_path

KILLED = textwrap.dedent("""
    import json, os, signal, sys
    from vault_ray import Fact, HashingEmbedder, Vault
    import vault_ray.engine.erase as engine_erase
    import vault_ray.storage.erase as storage_erase
    store, where = sys.argv[1], sys.argv[2]
    vault = Vault.open(store, embedder=HashingEmbedder(), partitions=4)
    doc = vault.agent("doc")
    ids = [doc.add_facts([Fact("user.health", f"The user has {SECRET} stage {i}", value=f"{SECRET}{i}",
                                source=MESSAGE if i == 0 else None)], resolve=False).decisions[0].claim_id
           for i in range(3)]
    doc.add_facts([Fact("user.city", "The user lives in Lyonville", value="lyonville", source=MESSAGE)], resolve=False)
    vault.close()  # the secret is in the DuckDB files now, not only in a journal
    vault = Vault.open(store, embedder=HashingEmbedder())

    def die(*args, **kwargs):
        print(json.dumps({"ids": ids}), flush=True)
        os.kill(os.getpid(), signal.SIGKILL)

    if where == "rewrite":  # after the retraction's commit, before the content leaves the files
        storage_erase.EraseSide.erase = die
    else:  # after the owner's files were rewritten, before the other claims lose the source message
        engine_erase.drop_sources = die
    vault.erase("user.health", decided_by="ana", note="privacy request 7")
    print("not killed", flush=True)
""")


def killed_during_erase(store: Path, where: str) -> list[str]:
    code = f"SECRET, MESSAGE = {SECRET!r}, {MESSAGE!r}\n{KILLED}"
    proc = subprocess.run([sys.executable, "-c", code, str(store), where], capture_output=True, text=True,
                          timeout=180, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert proc.returncode == -9, (proc.stdout, proc.stderr)
    return json.loads(proc.stdout.splitlines()[-1])["ids"]


@pytest.mark.parametrize("where", ["rewrite", "sources"])
def test_an_erasure_cut_short_by_kill_9_is_finished_by_the_next_open(tmp_path, caplog, where):
    store = tmp_path / "store"
    ids = killed_during_erase(store, where)
    assert files_holding(store, SECRET.encode())  # the crash window: the content is still on disk
    with caplog.at_level(logging.WARNING, logger="vault_ray"), Vault.open(store, embedder=HashingEmbedder()) as vault:
        assert any("erasure of user.health" in r.getMessage() and "interrupted" in r.getMessage()
                   for r in caplog.records)
        history = vault.history("user.health")
        assert [c.id for c in history] == ids and all(is_erased(c) for c in history)
        assert all(c.meta["erased"]["by"] == "ana" and c.meta["erased"]["note"] == "privacy request 7" for c in history)
        assert vault.get("user.health").active == ()
        assert vault.get("user.city").active[0].value == "lyonville"
        assert vault.get("user.city").active[0].source is None  # the erased claims' message left it too
        erased = vault.events(since="start", kinds=["claim_erased"]).events
        assert sorted(e.claim_id for e in erased) == sorted(ids)  # once each, whoever finished it
        assert all(vault.check().values())
    assert files_holding(store, SECRET.encode()) == []
    path = partition_path(store, partition_of("user.health", 4))
    assert SECRET.encode() not in path.read_bytes()  # the DuckDB file itself
    assert list((store / "partitions").glob("*.erasing*")) == []  # nothing left to finish
    with caplog.at_level(logging.WARNING, logger="vault_ray"):
        caplog.clear()
        Vault.open(store, embedder=HashingEmbedder()).close()
        assert not any("interrupted" in r.getMessage() for r in caplog.records)  # finished once


def test_an_erasure_that_returned_leaves_nothing_to_finish(tmp_path):
    store = tmp_path / "store"
    with Vault.open(store, embedder=HashingEmbedder(), partitions=2) as vault:
        vault.agent("doc").add_facts([Fact("user.health", f"The user has {SECRET}", value=SECRET)], resolve=False)
        assert len(vault.erase("user.health", decided_by="ana")) == 1
        assert list((store / "partitions").glob("*.erasing*")) == []
        assert vault.erase("user.nothing", decided_by="ana") == []
    assert files_holding(store, SECRET.encode()) == []


def test_an_unreadable_record_of_unfinished_erasures_is_a_clear_error(tmp_path):
    from vault_ray.errors import StoreError

    store = tmp_path / "store"
    with Vault.open(store, embedder=HashingEmbedder(), partitions=2) as vault:
        vault.agent("doc").add_facts([Fact("user.health", "The user is fine", value="fine")], resolve=False)
    number = partition_of("user.health", 2)
    (store / "partitions" / f"p{number:04d}.erasing").write_text("{not json")
    with pytest.raises(StoreError, match="unfinished erasures"):
        Vault.open(store, embedder=HashingEmbedder())
