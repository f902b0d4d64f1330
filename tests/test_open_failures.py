"""A store whose files are damaged or cannot be written fails with the project's errors
(StorageFailure, StoreError) naming the file, changes nothing, and holds nothing
afterwards: the next open in the same process is not refused with StoreLocked."""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess
import threading
import time

import pytest

from vault_ray import Fact, HashingEmbedder, StorageFailure, StoreError, StoreLocked, Vault, VaultError
from vault_ray.storage.layout import partition_path

EMB = HashingEmbedder()


def make(store, n: int = 300, partitions: int = 4) -> None:
    with Vault.open(store, embedder=EMB, partitions=partitions) as vault:
        vault.agent("a").add_facts([Fact(f"user.e{i}", f"fact {i}", value=str(i), claim_id=f"c{i}")
                                    for i in range(n)], resolve=False)


def files(store) -> dict[str, bytes]:
    return {str(p.relative_to(store)): p.read_bytes() for p in sorted(store.rglob("*")) if p.is_file() and p.name != ".lock"}


def test_a_truncated_claim_log_is_a_storage_failure_naming_it_and_a_failed_open_holds_nothing(tmp_path):
    store = tmp_path / "s"
    make(store)
    log = partition_path(store, 1)
    good = log.read_bytes()
    os.truncate(log, len(good) // 2)
    before = files(store)
    for _ in range(2):  # the same error again, not StoreLocked: the first attempt let go of every log
        with pytest.raises(StorageFailure, match=str(log)):
            Vault.open(store, embedder=EMB)
    assert files(store) == before
    log.write_bytes(good)  # the log restored: the store opens at once, in this process
    with Vault.open(store, embedder=EMB) as vault:
        assert len(vault.claims()) == 300


@pytest.mark.parametrize("name", ["control.json", "vault.json"])
@pytest.mark.parametrize("text", ["{not json", "", "\xff\xfe"])
def test_an_unreadable_settings_file_is_a_store_error_naming_it(tmp_path, name, text):
    store = tmp_path / "s"
    make(store, 20)
    (store / name).write_text(text, encoding="latin-1")
    before = files(store)
    with pytest.raises(StoreError, match=name):
        Vault.open(store, embedder=EMB)
    assert files(store) == before
    with pytest.raises(StoreError, match=name):  # and not StoreLocked
        Vault.open(store, embedder=EMB)


@pytest.mark.parametrize("text", ["[]", '"x"', "null", "{}", '{"other": 1}', '{"policy": []}', '{"registry": {}}'])
def test_a_control_file_of_the_wrong_shape_is_a_store_error(tmp_path, text):
    """Valid JSON that is no policy-and-registry object opened silently with the defaults."""
    store = tmp_path / "s"
    make(store, 20)
    (store / "control.json").write_text(text)
    with pytest.raises(StoreError, match="control.json"):
        Vault.open(store, embedder=EMB)


def test_a_control_file_deleted_from_a_store_with_claims_is_said_in_a_warning(tmp_path, caplog):
    store = tmp_path / "s"
    with Vault.open(store, embedder=EMB) as vault:
        vault.set_strategy("user.timezone", "authority")
        vault.agent("boss").add_facts([Fact("user.timezone", "The user is in PST", value="PST")])
    (store / "control.json").unlink()
    with caplog.at_level(logging.WARNING, logger="vault_ray"), Vault.open(store, embedder=EMB) as vault:
        assert vault.policy.strategy_for("user.timezone") != "authority"  # the defaults, as the warning says
    assert any("control.json is missing although the store holds claims" in r.getMessage() for r in caplog.records)
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="vault_ray"):
        Vault.open(tmp_path / "new", embedder=EMB).close()  # a new store: nothing to say
    assert not [r for r in caplog.records if "control.json" in r.getMessage()]


def test_a_lock_file_that_is_a_directory_is_a_store_error_naming_it(tmp_path):
    store = tmp_path / "s"
    make(store, 20)
    (store / ".lock").unlink()
    (store / ".lock").mkdir()
    with pytest.raises(StoreError, match=r"\.lock"):
        Vault.open(store, embedder=EMB)


def test_close_while_threads_write_leaves_nothing_held(tmp_path):
    store = tmp_path / "s"
    vault = Vault.open(store, embedder=EMB, partitions=16)
    acked: list[str] = []
    errors: list[BaseException] = []

    def writer(t: int) -> None:
        for n in range(100_000):
            try:
                vault.agent(f"a{t}").add_facts([Fact(f"user.t{t}.e{n}", f"t{t} n{n}", value=str(n),
                                                     claim_id=f"t{t}-{n}")])
                acked.append(f"t{t}-{n}")
            except VaultError as exc:
                errors.append(exc)
                return

    threads = [threading.Thread(target=writer, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    time.sleep(0.5)
    vault.close()
    for t in threads:
        t.join()
    assert errors and all(type(e).__name__ == "StoreClosed" for e in errors)
    with Vault.open(store, embedder=EMB) as again:  # at once, in this process: no log stays held
        ids = {c.id for c in again.claims()}
    assert set(acked) <= ids


@pytest.fixture
def tiny_disk(tmp_path):
    mount = tmp_path / "tiny"
    mount.mkdir()
    try:
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(mount)], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("needs a small tmpfs (mount, as root)")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_a_full_disk_fails_writes_with_storage_failure_and_leaves_a_store_that_opens(tiny_disk):
    store = tiny_disk / "store"
    acked, errors = [], []
    vault = Vault.open(store, embedder=EMB)
    for n in range(100_000):
        try:
            vault.agent(f"a{n % 3}").add_facts([Fact(f"user.e{n % 300}", f"fact number {n} " + "pad " * 20,
                                                     value=str(n), claim_id=f"c{n}")])
            acked.append(f"c{n}")
        except VaultError as exc:
            errors.append(exc)
            if len(errors) > 30:
                break
    assert all(isinstance(e, StorageFailure) and not isinstance(e, StoreLocked) for e in errors), errors[:3]
    with contextlib.suppress(StorageFailure):  # a journal or snapshot that could not be written: said, the data kept
        vault.close()
    assert not [p.name for p in (store / "partitions").iterdir() if p.suffix == ".duckdb" and p.stat().st_size == 0]
    subprocess.run(["mount", "-o", "remount,size=60m", str(tiny_disk)], check=True)
    with Vault.open(store, embedder=EMB) as vault:  # in this process, at once
        ids = {c.id for c in vault.claims()}
    assert set(acked) <= ids and acked


def test_a_store_on_a_read_only_file_system_is_refused_with_a_store_error(tiny_disk):
    store = tiny_disk / "store"
    make(store, 20, partitions=1)
    before = files(store)
    subprocess.run(["mount", "-o", "remount,ro", str(tiny_disk)], check=True)
    with pytest.raises(StoreError, match=r"\.lock.*[Rr]ead-only"):
        Vault.open(store, embedder=EMB)
    assert files(store) == before


def test_a_call_cut_short_between_partition_commits_completes_exactly_once_on_retry(tmp_path):
    """What a process killed between two partitions' commits leaves (docs/design.md, "Atomicity
    across partitions"): one partition has its share of the call, the others not. A retry of
    the whole call with the same ids applies the rest and answers the share with its decisions."""
    from vault_ray.storage.layout import partition_of
    store = tmp_path / "s"
    facts = [Fact(f"user.e{i}", f"fact {i}", value=str(i), claim_id=f"c{i}") for i in range(40)]
    share = [f for f in facts if partition_of(f.entity, 4) == 0]
    assert 0 < len(share) < len(facts)
    with Vault.open(store, embedder=EMB, partitions=4) as vault:
        first = {d.claim_id: d for d in vault.agent("a").add_facts(share, resolve=False).decisions}
    with Vault.open(store, embedder=EMB) as vault:
        retried = vault.agent("a").add_facts(facts, resolve=False).decisions
        assert len(vault.claims()) == len(facts)
        assert all(d == first[d.claim_id] for d in retried if d.claim_id in first)
        assert len(vault.agent("a").add_facts(facts, resolve=False).decisions) == len(facts)
        assert len(vault.claims()) == len(facts)


@pytest.mark.parametrize("change", [{"partitions": 1}, {"partitions": 0}, {"partitions": "4"}, {"partitions": None},
                                    {"index": "ivf"}, {"format": "2"}, {"dim": True}])
def test_store_settings_out_of_shape_are_a_store_error(tmp_path, change):
    """partitions 1 on a 4-partition store opened with 3 partitions' claims out of reach (and
    wrote new ones beside them); 0 divided by zero; a string was a raw TypeError."""
    import json

    store = tmp_path / "s"
    make(store, 40)
    meta = json.loads((store / "vault.json").read_text())
    (store / "vault.json").write_text(json.dumps({**meta, **change}))
    before = files(store)
    with pytest.raises(StoreError, match="vault.json"):
        Vault.open(store, embedder=EMB)
    assert files(store) == before


def test_a_directory_that_is_no_store_is_left_as_it_was(tmp_path):
    """A failed open of a directory holding only an empty data/ left a .lock behind."""
    (tmp_path / "s" / "data").mkdir(parents=True)
    for _ in range(2):
        with pytest.raises(StoreError, match="not a vault-ray store"):
            Vault.open(tmp_path / "s", embedder=EMB)
        assert sorted(p.name for p in (tmp_path / "s").iterdir()) == ["data"]


def test_a_failed_open_keeps_a_lock_file_it_did_not_make(tmp_path):
    store = tmp_path / "s"
    make(store, 5)
    assert (store / ".lock").exists()
    with pytest.raises(StoreError):
        Vault.open(store, embedder=HashingEmbedder(64))  # another dimension: StoreMismatch
    assert (store / ".lock").exists()
