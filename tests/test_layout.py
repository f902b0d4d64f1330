"""The store's directory layout (storage/layout.py) and its control file
(engine/control.py): partitions, settings checked on reopen, the one-process lock,
policy and registry saved and loaded in one place."""

from __future__ import annotations

from dataclasses import replace

import pytest

from vault_ray import EntityRegistry, Policy, RegistryEntry, StoreError, StoreLocked, StoreMismatch
from vault_ray.engine.control import ControlFile
from vault_ray.storage.layout import StoreLock, init_store, partition_number, partition_of, read_meta


def test_partition_of_is_stable_and_spread():
    assert partition_of("user.timezone", 16) == partition_of("user.timezone", 16)
    assert partition_of("user.timezone", 16) == 10  # fixed forever: stores on disk depend on it
    spread = {partition_of(f"user.k{i}", 8) for i in range(200)}
    assert spread == set(range(8))


def test_reopening_checks_the_settings(tmp_path):
    init_store(tmp_path / "s", partitions=4, dim=8, embedder="e")
    assert read_meta(tmp_path / "s").partitions == 4
    for kw, message in (({"partitions": 8}, "4 partitions"), ({"dim": 16}, "8-dimensional"),
                        ({"embedder": "other"}, "'e' embedder")):
        args = {"partitions": None, "dim": 8, "embedder": "e", **kw}
        with pytest.raises(StoreMismatch, match=message):
            init_store(tmp_path / "s", **args)
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "notes.txt").write_text("mine")
    with pytest.raises(StoreError, match="not a vault-ray store"):
        init_store(tmp_path / "junk", partitions=None, dim=8, embedder="e")


def test_the_lock_admits_one_holder(tmp_path):
    first = StoreLock(tmp_path)
    with pytest.raises(StoreLocked, match="already open in this process") as err:  # not "another process"
        StoreLock(tmp_path)
    assert err.value.here
    first.release()
    StoreLock(tmp_path).release()


def test_partition_numbers_from_file_names():
    assert partition_number("x/p0007.duckdb") == 7 and partition_number("p0012") == 12
    assert partition_number("claims.parquet") is None


def test_control_file_given_then_saved_then_defaults(tmp_path):
    control = ControlFile(tmp_path)
    policy, registry = control.load()
    assert policy == Policy() and len(registry) == len(EntityRegistry.builtin())
    mine = Policy(default_strategy="authority")
    reg = EntityRegistry({"user.x": RegistryEntry("user.x", "x")})
    control.save(mine, reg)
    assert control.load() == (mine, reg)
    other = Policy(default_strategy="consensus")
    # given beats saved: a change of it, numbered after it (a version read before no longer passes)
    assert control.load(other)[0] == replace(other, version=mine.version + 1) and control.load(other)[1] == reg
