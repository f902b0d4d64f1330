"""`StoreReader` (storage/reader.py): the read-only view of a store's claim logs that
evaluations and bulk jobs use — from a store directory, one partition file, or an export."""

from __future__ import annotations

import pytest

from vault_ray import Fact, HashingEmbedder, StoreError, Vault
from vault_ray.storage import StoreReader


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "store"
    with Vault.open(path, embedder=HashingEmbedder(dim=16), partitions=3) as vault:
        for i in range(9):
            vault.agent(f"a{i % 2}").add_facts(Fact(f"user.k{i % 4}", f"value {i}", f"v{i}"))
        vault.export(tmp_path / "export")
        expected = sorted(c.id for c in vault.claims())
    return path, tmp_path / "export", expected


def test_a_store_an_export_and_a_partition_file_read_alike(store):
    path, export, expected = store
    from_store, from_export = StoreReader(path), StoreReader(export)
    assert sorted(from_store.claims().column("id").to_pylist()) == expected
    assert from_export.claims().equals(from_store.claims())
    assert from_store.meta == {"partitions": 3, "dim": 16, "embedder": "hashing-16", "format": 2, "index": "flat"}
    assert from_export.meta == {"partitions": 3, "dim": 16, "embedder": "hashing-16"}  # the manifest's store section
    first = sorted((path / "partitions").glob("p*.duckdb"))[0]
    one = StoreReader(first).claims()
    assert set(one.column("partition").to_pylist()) == {int(first.stem[1:])}


def test_claims_come_in_recording_order_with_their_partition(store):
    claims = StoreReader(store[0]).claims(["id", "entity"])
    assert claims.column_names[:2] == ["id", "entity"] and "partition" in claims.column_names
    recorded = claims.column("recorded_at").to_pylist()
    assert recorded == sorted(recorded)


def test_tables_filter_and_refuse_unknown_names(store):
    reader = StoreReader(store[0])
    events = reader.table("events", ["kind", "claim_id"], where="kind=claim_added")
    assert events.num_rows == 9 and set(events.column("kind").to_pylist()) == {"claim_added"}
    assert reader.table("disputes", where="status=open").num_rows == 0
    with pytest.raises(StoreError, match="no table"):
        reader.table("secrets")


def test_not_a_claim_log_and_a_held_store_are_refused_with_a_hint(tmp_path, store):
    with pytest.raises(StoreError, match="holds no claim log"):
        StoreReader(tmp_path / "nothing-here")
    with Vault.open(store[0], embedder=HashingEmbedder(dim=16)), pytest.raises(StoreError, match="export"):
        StoreReader(store[0]).claims()
