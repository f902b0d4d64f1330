"""The reindex's storage step without Ray: vectors staged beside the current ones, the
switch committed by vault.json, and the claim logs adopting the staged vectors when
they open (so a crash right after the commit point is finished on the next open)."""

from __future__ import annotations

import numpy as np
import pytest
from scenarios import authority_dispute, recency_supersede

from vault_ray import HashingEmbedder, StorageFailure, StoreMismatch, Vault
from vault_ray.backends import EmbeddedBackend
from vault_ray.reasoners.rules import RuleReasoner
from vault_ray.storage import StoreReader
from vault_ray.storage.layout import read_meta, set_embedder

NEW = HashingEmbedder(dim=32)


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "store"
    with Vault.open(path, embedder=HashingEmbedder(dim=64), partitions=4) as vault:
        authority_dispute(vault)
        recency_supersede(vault)
    return path


def backend(path) -> EmbeddedBackend:
    meta = read_meta(path)
    return EmbeddedBackend(path, partitions=None, dim=meta.dim, embedder_name=meta.embedder, reasoner=RuleReasoner(),
                           policy=None, registry=None)


def stage(b: EmbeddedBackend, *, leave: int = 0) -> int:
    """Stage NEW's vectors for every claim but the last `leave` ones; returns how many were staged."""
    staged = 0
    for p in range(b.partitions):
        work = b.unstaged(p, NEW.name, NEW.dim)
        if work is None or not work.num_rows:
            continue
        ids, texts = work.column("id").to_pylist(), work.column("text").to_pylist()
        keep = max(0, len(ids) - leave) if staged == 0 else len(ids)
        staged += b.stage_vectors(p, NEW.name, NEW.dim, ids[:keep], NEW.embed(texts[:keep]))
    return staged


def stored_vectors(path) -> dict[str, bytes]:
    claims = StoreReader(path).claims(["id", "embedding"])
    return dict(zip(claims.column("id").to_pylist(), claims.column("embedding").to_pylist(), strict=True))


def test_staged_vectors_leave_the_store_on_its_embedder_until_the_switch(store):
    before = stored_vectors(store)
    b = backend(store)
    assert stage(b, leave=1) == len(before) - 1
    assert sum(b.unstaged(p, NEW.name, NEW.dim).num_rows for p in range(4) if b.unstaged(p, NEW.name, NEW.dim)) == 1
    gaps = b.commit_embedder(NEW.name, NEW.dim)
    assert sum(gaps.values()) == 1  # refused: one claim has no new vector
    b.close()
    assert read_meta(store).embedder == "hashing-64" and stored_vectors(store) == before
    with Vault.open(store, embedder=HashingEmbedder(dim=64)) as vault:  # still fully usable on the old embedder
        assert vault.search("what timezone is the user in?", k=1)[0].claim.text == "The user is in PST"
        assert all(vault.check().values())


def test_the_switch_adopts_the_staged_vectors_and_rebuilds_the_index(store):
    b = backend(store)
    stage(b)
    assert b.commit_embedder(NEW.name, NEW.dim) == {}
    assert b.info().embedder == NEW.name and b.search(NEW.embed(["what timezone is the user in?"]), 1)[0]
    b.close()
    claims = StoreReader(store).claims(["id", "text", "embedding"]).to_pylist()
    for c in claims:  # every claim, active or not, now holds NEW's vector
        assert c["embedding"] == NEW.embed([c["text"]])[0].tobytes()
    with Vault.open(store, embedder=NEW) as vault:
        hit = vault.search("what timezone is the user in?", k=1)[0]
        assert hit.claim.text == "The user is in PST" and hit.contested
        assert all(vault.check().values())
    with pytest.raises(StoreMismatch, match="vault-ray reindex"):
        Vault.open(store, embedder=HashingEmbedder(dim=64))


def test_a_crash_after_the_commit_point_is_finished_when_the_store_next_opens(store):
    b = backend(store)
    stage(b)
    set_embedder(store, NEW.name, NEW.dim)  # the commit point; the process dies before any log adopts
    b.host.close_all()
    b._lock.release()
    assert {len(v) for v in stored_vectors(store).values()} == {64 * 4}  # nothing adopted yet
    with Vault.open(store, embedder=NEW) as vault:
        assert vault.search("what timezone is the user in?", k=1)[0].claim.text == "The user is in PST"
        assert all(vault.check().values())
    assert {len(v) for v in stored_vectors(store).values()} == {32 * 4}


def test_a_broken_switch_is_refused_loudly(store):
    """vault.json names an embedder some claims have no vector of: never half-open."""
    b = backend(store)
    stage(b, leave=1)
    b.close()
    set_embedder(store, NEW.name, NEW.dim)
    with pytest.raises(StorageFailure, match="no hashing-32 vector"):
        Vault.open(store, embedder=NEW)


def test_an_abandoned_reindex_to_another_embedder_is_dropped(store):
    claims = len(stored_vectors(store))
    b = backend(store)
    stage(b)
    assert b.drop_staged((NEW.name, NEW.dim)) == 0  # the reindex being run keeps its vectors
    assert b.drop_staged(("hashing-16", 16)) == claims
    assert sum(t.num_rows for p in range(4) if (t := b.unstaged(p, NEW.name, NEW.dim)) is not None) == claims
    with pytest.raises(StoreMismatch):
        b.stage_vectors(0, NEW.name, NEW.dim, ["x"], np.zeros((1, 8), np.float32))
    b.close()
