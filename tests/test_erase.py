"""Erasure (`Vault.erase`): forgetting that a privacy request can rely on.

Every claim of the entity is retracted and its content (text, value, source message, meta,
embedding) is gone from every file of the store, and from an export: the tests search the
bytes of every file under the store directory (and the export) after close, as `grep -r`
would. What stays is the provenance skeleton and who erased it, when and why."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import duckdb
import numpy as np
import pytest
from erasing import OTHER, SECRET, files_holding, seed
from test_staged_vectors import NEW, backend, stage

from vault_ray import HashingEmbedder, InvalidEntity, InvalidInput, Status, Vault
from vault_ray.engine.erase import ERASED, is_erased
from vault_ray.storage.layout import partition_of, partition_path


def embedding_of(store: Path, partitions: int, entity: str) -> list[bytes]:
    path = partition_path(store, partition_of(entity, partitions))
    con = duckdb.connect(str(path), read_only=True)
    try:
        return [r[0] for r in con.execute("SELECT embedding FROM claims WHERE entity = $1", [entity]).fetchall()]
    finally:
        con.close()


def test_erase_leaves_no_trace_of_the_content_in_any_file(tmp_path):
    store, export = tmp_path / "store", tmp_path / "export"
    with Vault.open(store, embedder=HashingEmbedder(), partitions=2, index="hnsw") as vault:
        ids = seed(vault)
    vectors = embedding_of(store, 2, "user.health")
    assert files_holding(store, SECRET.encode()) and files_holding(store, OTHER.encode())  # the test can see it
    assert all(files_holding(store, v) for v in vectors)
    graph = str(store / "partitions" / "embedded.hnsw")
    assert any(graph in files_holding(store, v) for v in vectors)  # the saved graph holds the active one
    assert (store / "partitions" / "embedded.hnsw").exists()
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        before = vault.history("user.health")
        done = vault.erase("user.health", decided_by="privacy-officer", note="GDPR request 17")
        assert [r.claim.id for r in done] == [c.id for c in before] and len(done) == 3
        for r in done:
            c = r.claim
            assert c.text == ERASED and c.value is None and c.source is None and is_erased(c)
            assert c.status == Status.RETRACTED and r.decided_by == "privacy-officer" and r.note == "GDPR request 17"
            assert c.meta == {"erased": {"by": "privacy-officer", "at": c.meta["erased"]["at"], "note": "GDPR request 17"}}
        # reads never see it; the skeleton keeps provenance
        assert vault.get("user.health").active == () and not vault.get("user.health").candidates
        assert vault.get_many(["user.health"])["user.health"].active == ()
        assert all(h.claim.entity != "user.health" for h in vault.search(f"the user has {SECRET}", k=10))
        past = vault.get("user.health", as_of=before[0].recorded_at)
        assert past.active == () and not past.candidates
        history = vault.history("user.health")
        assert [(c.id, c.agent, c.observed_at) for c in history] == [(c.id, c.agent, c.observed_at) for c in before]
        assert [c.supersedes for c in history] == [c.supersedes for c in before]
        assert all(c.status == Status.RETRACTED and c.text == ERASED for c in history)
        erased = [e for e in vault.events(entity="user.health") if e.kind == "claim_erased"]
        assert len(erased) == 3 and {e.detail["note"] for e in erased} == {"GDPR request 17"}
        assert all(e.agent == "privacy-officer" for e in erased)
        for text in (str(vault.events(entity="user.health")), str(vault.explain(ids["first"].claim_id)),
                     str(vault.disputes()), str(history)):
            assert SECRET not in text and OTHER not in text
        assert not vault.disputes(status="open")
        # the other entities are untouched, but a shared source message is gone from them too
        city = vault.get("user.city").active[0]
        assert city.text == "The user lives in Lyonville" and city.source is None
        assert vault.get("user.diet").active[0].value == "vegan"
        assert all(vault.check().values())
        vault.export(export)
    assert files_holding(store, SECRET.encode()) == [] and files_holding(store, OTHER.encode()) == []
    assert files_holding(export, SECRET.encode()) == [] and files_holding(export, OTHER.encode()) == []
    assert files_holding(store, b"Lyonville") and files_holding(store, b"vegan")  # what was not erased stays
    for v in vectors:
        assert files_holding(store, v) == [] and files_holding(export, v) == []
    with Vault.open(store, embedder=HashingEmbedder()) as vault:  # durable, and the reopened store reads right
        assert all(c.text == ERASED for c in vault.history("user.health"))
        assert vault.get("user.diet").active[0].value == "vegan" and all(vault.check().values())
        assert vault.get("user.city").active[0].source is None


def test_erase_again_changes_nothing_and_unknown_answers_nothing(vault):
    seed(vault)
    first = vault.erase("user.health", decided_by="ana", note="request")
    events = vault.events(entity="user.health")
    again = vault.erase("user.health", decided_by="bob")
    assert [r.claim for r in again] == [r.claim for r in first]
    assert all(r.already and r.decided_by == "ana" and r.note == "request" for r in again)
    assert vault.events(entity="user.health") == events
    assert vault.erase("user.never_seen", decided_by="ana") == []
    assert vault.forget("user.health", decided_by="ana") == []  # forget of an erased entity: nothing live


@pytest.mark.parametrize("by", ["", "   ", None, 3])
def test_erase_needs_a_name_and_changes_nothing_without_one(vault, by):
    seed(vault)
    with pytest.raises(InvalidInput):
        vault.erase("user.health", decided_by=by)
    assert any(SECRET in c.text for c in vault.history("user.health"))


@pytest.mark.parametrize("entity", ["User Health!", "", "a" * 200, None])
def test_erase_of_a_bad_entity_is_invalid_input(vault, entity):
    seed(vault)
    with pytest.raises(InvalidInput):
        vault.erase(entity, decided_by="ana")
    with pytest.raises(InvalidEntity):
        vault.erase("User Health!", decided_by="ana")
    assert vault.get("user.health").active


def test_an_erased_claims_staged_vectors_are_zeroed_and_a_reindex_still_adopts(tmp_path):
    path = tmp_path / "store"
    with Vault.open(path, embedder=HashingEmbedder(dim=64), partitions=4) as vault:
        seed(vault)
    b = backend(path)
    try:
        assert stage(b) > 0
        done = b.erase("user.health", decided_by="ana", note="", now=__import__("vault_ray.models").models.utcnow())
        assert done and all(r.claim.text == ERASED for r in done)
        part = b.host.owner("user.health")
        con = part.log._connect()._con
        rows = con.execute("SELECT s.embedding FROM staged_vectors s JOIN claims c ON s.claim_id = c.id "
                           "WHERE c.entity = 'user.health'").fetchall()
        assert len(rows) == 3 and all(r[0] == bytes(4 * NEW.dim) for r in rows)
        assert part.log.unstaged(NEW.name, NEW.dim).num_rows == 0  # a reindex still finds one per claim
    finally:
        b.close()
    assert files_holding(path, SECRET.encode()) == []


ERASER = textwrap.dedent("""
    import json, os, signal, sys
    from vault_ray import Fact, HashingEmbedder, Vault
    vault = Vault.open(sys.argv[1], embedder=HashingEmbedder(), partitions=4)
    a = vault.agent("a")
    for i in range(5):
        a.add_facts([Fact("user.health", f"The user has zqxdiabetes stage {i}", value=f"zqxdiabetes{i}")], resolve=False)
        a.add_facts([Fact(f"user.k{i}", f"the value is v{i}", value=f"v{i}")], resolve=False)
    done = vault.erase("user.health", decided_by="ana", note="request")
    after = a.add_facts([Fact("user.after", "written after the erasure", value="after")], resolve=False).decisions[0]
    print(json.dumps({"erased": [r.claim.id for r in done], "after": after.claim_id}), flush=True)
    os.kill(os.getpid(), signal.SIGKILL)  # no close: the journal, DuckDB and the files as erase left them
""")


def test_an_erasure_survives_kill_9(tmp_path):
    store = tmp_path / "store"
    proc = subprocess.run([sys.executable, "-c", ERASER, str(store)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert proc.returncode == -9, proc.stderr
    out = json.loads(proc.stdout)
    assert len(out["erased"]) == 5
    assert files_holding(store, SECRET.encode()) == []  # nothing on disk, even before a reopen
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        history = vault.history("user.health")
        assert [c.id for c in history] == out["erased"] and all(is_erased(c) for c in history)
        assert vault.get("user.health").active == ()
        assert vault.get("user.after").active[0].id == out["after"]
        assert [vault.get(f"user.k{i}").active[0].value for i in range(5)] == [f"v{i}" for i in range(5)]
        assert all(vault.check().values())
    assert files_holding(store, SECRET.encode()) == []


def test_hnsw_purge_leaves_no_removed_vector_in_the_graph():
    from vault_ray.storage.hnsw import HnswIndex

    rng = np.random.default_rng(3)
    vecs = rng.normal(size=(50, 8)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    index = HnswIndex(8)
    index.add(np.arange(50), vecs)
    index.settle()
    index.remove([7])
    assert index.tombstones() == 1
    index.purge()
    assert index.tombstones() == 0 and 7 not in index.ids() and len(index) == 49
    assert vecs[7].tobytes() not in index.export()["faiss"].tobytes()
    assert index.search(vecs[8:9], 1)[1][0][0] == 8


def test_the_erase_command_asks_first_and_prints_what_it_erased(tmp_path):
    from typer.testing import CliRunner

    from vault_ray.cli import app

    path = tmp_path / "store"
    with Vault.open(path, embedder=HashingEmbedder()) as vault:
        ids = seed(vault)
    runner = CliRunner()

    def run(*args: str, answer: str | None = None):
        return runner.invoke(app, [*args, "--store", str(path), "--hashing"], input=answer)

    no = run("erase", "user.health", "--by", "ana", answer="n\n")
    assert no.exit_code == 1 and "nothing erased" in no.output
    unanswered = run("erase", "user.health", "--by", "ana", answer="")  # a script without --yes: stdin at its end
    assert unanswered.exit_code == 1 and "Aborted" not in unanswered.output
    assert unanswered.stderr.splitlines()[-1] == "nothing erased: no answer to the question (--yes erases without asking)"
    assert run("erase", "User Health", "--by", "ana", "--yes").exit_code == 2
    assert run("erase", "user.health", "--by", "  ", "--yes").exit_code == 2
    bad = run("erase", "user.health", "--yes")  # --by is required
    assert bad.exit_code == 2
    with Vault.open(path, embedder=HashingEmbedder()) as vault:
        assert any(SECRET in c.text for c in vault.history("user.health"))  # nothing changed
    done = run("erase", "user.health", "--by", "ana", "--note", "request 17", answer="y\n")
    assert done.exit_code == 0, done.output
    assert f"erased {ids['first'].claim_id}" in done.output and "3 claim(s) erased by ana: request 17" in done.output
    assert SECRET not in done.output
    quiet = run("erase", "user.nothing", "--by", "ana", "--yes")
    assert quiet.exit_code == 0 and "no claim to erase" in quiet.output
    assert files_holding(path, SECRET.encode()) == []


def test_erase_in_a_store_whose_path_holds_quotes(tmp_path):
    """The rewrite ATTACHes a file named after the store: a quote in the path broke its SQL."""
    store = tmp_path / "it's a \"store\""
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        seed(vault)
        assert vault.erase("user.health", decided_by="user")
    assert files_holding(store, SECRET.encode()) == []


def test_a_point_in_time_read_from_before_the_erasure_shows_nothing_of_it(tmp_path):
    """Dispute events carry the whole dispute for `as_of` reads: the erasure scrubs its reason and
    note there too, and a past read shows no dispute between erased claims (no crash, no skeleton)."""
    import time

    store = tmp_path / "s"
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        seed(vault)
        (d,) = vault.disputes()
        before = time.time()
        time.sleep(0.02)
        vault.resolve_dispute(d.id, winner=d.challenger, decided_by="user", note=f"not {SECRET}")
        assert vault.get("user.health", as_of=before).contested
        vault.erase("user.health", decided_by="user")
        past = vault.get("user.health", as_of=before)
        assert not past.active and not past.candidates and not past.disputes and not past.contested
        assert all(h.claim.entity != "user.health" for h in vault.search(SECRET, as_of=before))
    assert files_holding(store, SECRET.encode()) == []
