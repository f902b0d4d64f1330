"""A merge import carries the source's erasures (vault_ray/transfer_erase.py; docs/jobs.md).

A claim erased in the source (`Vault.erase`) and held by the target as an earlier copy (a restore
of an older export) is erased in the target by the merge, as `Vault.erase` erases: no read or
search shows it, its text, value, source message and vector are gone from every file of the
target (the tests search the bytes, as `grep -r` would), its skeleton and who erased it stay.
And the other way round: a claim the target erased does not come back from a source that still
holds it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow.dataset as ds
import pytest
from erasing import MESSAGE, OTHER, SECRET, files_holding, seed

from vault_ray import Fact, HashingEmbedder, Status, Vault
from vault_ray.engine.erase import ERASED, is_erased
from vault_ray.storage.layout import partition_of

HASH = HashingEmbedder(dim=64)
PHONE = "+41 79 555 01 23"


def vectors_of(export: Path, entity: str) -> list[bytes]:
    """The stored vectors of `entity`'s claims in an export (what the target's copies carry)."""
    claims = ds.dataset(export / "claims", partitioning="hive").to_table().to_pylist()
    return [c["embedding"] for c in claims if c["entity"] == entity]


def source_and_target(root: Path, index: str = "flat", how: str = "restore") -> dict:
    """A source store (the erasure tests' seed, and a phone number) and its export in a target that
    holds claims of its own: restored into it (then the target's claim written), or merged into it
    (after the target's claim); returns the source's ids."""
    with Vault.open(root / "src", embedder=HASH, partitions=4) as vault:
        ids = seed(vault)
        vault.agent("crm").add_facts([Fact("user.phone", f"The user's phone number is {PHONE}", value=PHONE)])
        vault.export(root / "old")
    with Vault.open(root / "target", embedder=HASH, partitions=4 if how == "restore" else 2, index=index) as target:
        if how == "merge":
            target.agent("chat").add_facts([Fact("user.pet", "The user has a cat", value="cat")])
        assert target.import_from(root / "old").mode == how
        if how == "restore":
            target.agent("chat").add_facts([Fact("user.pet", "The user has a cat", value="cat")])
    return ids


@pytest.mark.parametrize(("index", "how"), [("flat", "restore"), ("hnsw", "restore"), ("hnsw", "merge")])
def test_a_merge_erases_the_copies_the_target_held_of_claims_the_source_erased(tmp_path, index, how):
    ids = source_and_target(tmp_path, index, how)
    vectors = vectors_of(tmp_path / "old", "user.health") + vectors_of(tmp_path / "old", "user.phone")
    target = tmp_path / "target"
    assert files_holding(target, SECRET.encode()) and files_holding(target, PHONE.encode())  # the test can see them
    assert all(files_holding(target, v) for v in vectors)
    with Vault.open(tmp_path / "src", embedder=HASH) as vault:
        assert len(vault.erase("user.health", decided_by="dana", note="GDPR request 17")) == 3
        assert len(vault.erase("user.phone", decided_by="privacy-officer")) == 1
        vault.export(tmp_path / "new")
    with Vault.open(target, embedder=HASH) as vault:
        result = vault.import_from(tmp_path / "new")
        assert result.mode == "merge" and result.errors == {}
        assert (result.erased, result.erased_here, result.claims) == (4, 4, 0)
        for entity in ("user.health", "user.phone"):
            assert vault.get(entity).values == () and not vault.get(entity).candidates
        health = vault.history("user.health")
        assert {c.id for c in health} == {ids["first"].claim_id, ids["challenge"].claim_id, ids["again"].claim_id}
        for c in health:
            assert is_erased(c) and c.text == ERASED and c.value is None and c.status == Status.RETRACTED
            assert c.meta["erased"]["by"] == "dana" and c.meta["erased"]["note"].startswith("GDPR request 17 (erased in")
        (phone,) = vault.history("user.phone")
        assert is_erased(phone) and phone.meta["erased"]["by"] == "privacy-officer"
        kinds = [e.kind for e in vault.events(claim_id=ids["first"].claim_id)]
        assert kinds[-1] == "claim_erased"
        assert vault.claim(ids["city"].claim_id).source is None  # the erased claim's message, dropped everywhere
        assert vault.get("user.city").values == ("lyonville",) and vault.get("user.pet").values == ("cat",)
        for query in (f"the user has {SECRET}", f"The user has {OTHER}", f"phone number {PHONE}"):
            assert all(h.claim.entity not in ("user.health", "user.phone") for h in vault.search(query, k=10))
        assert not vault.disputes(status="open")  # the open one went on without its erased claims
        assert all(vault.check().values())
    for needle in (SECRET, OTHER, MESSAGE, PHONE):
        assert files_holding(target, needle.encode()) == [], needle
    assert not any(files_holding(target, v) for v in vectors)  # nor their vectors (the HNSW graph purged)
    with Vault.open(target, embedder=HASH) as vault:  # reopened: the same answers; the import again changes nothing
        assert vault.get("user.health").values == () and vault.get("user.city").values == ("lyonville",)
        again = vault.import_from(tmp_path / "new")
        assert (again.erased, again.erased_here, again.claims, again.errors) == (4, 0, 0, {})


def test_the_targets_own_claims_of_the_entity_and_the_sources_later_ones_stay(tmp_path):
    """Only the claims the source erased are erased: the target's own claim of the entity and a claim the
    source recorded after its erasure keep their content; the audit text that could quote the erased
    values (event reasons, the dispute's reason) is scrubbed."""
    with Vault.open(tmp_path / "src", embedder=HASH, partitions=4) as vault:
        (first,) = vault.agent("doc").add_facts([Fact("user.health", f"The user has {SECRET}", value=SECRET,
                                                      source=MESSAGE)], resolve=False).decisions
        vault.agent("doc").add_facts([Fact("user.city", "The user lives in Lyonville", value="lyonville",
                                           source=MESSAGE)], resolve=False)
        vault.export(tmp_path / "old")
    with Vault.open(tmp_path / "target", embedder=HASH, partitions=4) as target:
        target.import_from(tmp_path / "old")
        (own,) = target.agent("gp").add_facts([Fact("user.health", "The user has gout", value="gout")],
                                              resolve=False).decisions
    with Vault.open(tmp_path / "src", embedder=HASH) as vault:
        vault.erase("user.health", decided_by="dana")
        (later,) = vault.agent("doc").add_facts([Fact("user.health", "The user has a sprained ankle",
                                                      value="sprained ankle")], resolve=False).decisions
        vault.export(tmp_path / "new")
    with Vault.open(tmp_path / "target", embedder=HASH) as target:
        result = target.import_from(tmp_path / "new")
        assert (result.claims, result.erased, result.erased_here, result.errors) == (1, 1, 1, {})
        by_id = {c.id: c for c in target.history("user.health")}
        assert is_erased(by_id[first.claim_id])
        assert by_id[own.claim_id].text == "The user has gout" and not is_erased(by_id[own.claim_id])
        assert by_id[later.claim_id].value == "sprained ankle"
        assert by_id[own.claim_id].status == Status.SUPERSEDED  # by the later claim (recency), as written
        assert target.get("user.health").values == ("sprained ankle",)
        assert target.search("the user has a sprained ankle", k=1)[0].claim.id == later.claim_id
    assert files_holding(tmp_path / "target", SECRET.encode()) == []
    assert files_holding(tmp_path / "target", MESSAGE.encode()) == []


def test_a_claim_the_target_erased_does_not_come_back_from_a_source_that_holds_it(tmp_path):
    ids = source_and_target(tmp_path)
    with Vault.open(tmp_path / "target", embedder=HASH) as target:
        assert len(target.erase("user.health", decided_by="dana")) == 3
        target.erase("user.phone", decided_by="dana")
    for export in ("old", "fresh"):  # the export restored earlier, and a new one of the unchanged source
        if export == "fresh":
            with Vault.open(tmp_path / "src", embedder=HASH) as vault:
                vault.agent("doc").add_facts([Fact("user.diet", "The user is vegetarian", value="vegetarian")])
                vault.export(tmp_path / "fresh")
        with Vault.open(tmp_path / "target", embedder=HASH) as target:
            result = target.import_from(tmp_path / export)
            assert result.mode == "merge" and result.errors == {} and result.erased_here == 0
            assert target.get("user.health").values == () and target.get("user.phone").values == ()
            assert all(is_erased(c) for c in target.history("user.health"))
            assert all(h.claim.entity != "user.health" for h in target.search(f"the user has {SECRET}", k=10))
            assert target.claim(ids["first"].claim_id).text == ERASED
        for needle in (SECRET, OTHER, PHONE):
            assert files_holding(tmp_path / "target", needle.encode()) == [], (export, needle)
    with Vault.open(tmp_path / "target", embedder=HASH) as target:
        assert target.get("user.diet").values == ("vegetarian",)  # what is new still comes in


def test_an_erasure_of_some_claims_a_crash_cut_short_finishes_on_the_next_open(tmp_path):
    """The merge's erasure is recorded (with its claim ids) before its first change, like any erasure:
    the next open finishes it, and erases those claims only."""
    store = tmp_path / "store"
    with Vault.open(store, embedder=HASH, partitions=4) as vault:
        (gone,) = vault.agent("doc").add_facts([Fact("user.health", f"The user has {SECRET}", value=SECRET)],
                                               resolve=False).decisions
        (kept,) = vault.agent("gp").add_facts([Fact("user.health", "The user has gout", value="gout")],
                                              resolve=False).decisions
    record = {"entity": "user.health", "by": "dana", "note": "merge", "sources": [], "ids": [gone.claim_id]}
    (store / "partitions" / f"p{partition_of('user.health', 4):04d}.erasing").write_text(
        json.dumps({"erasures": [record]}))
    with Vault.open(store, embedder=HASH) as vault:
        by_id = {c.id: c for c in vault.history("user.health")}
        assert is_erased(by_id[gone.claim_id]) and by_id[kept.claim_id].value == "gout"
        assert vault.get("user.health").values == ("gout",)
    assert files_holding(store, SECRET.encode()) == []
    assert not list((store / "partitions").glob("*.erasing"))


def test_the_command_says_how_many_it_erased_in_the_target(tmp_path):
    source_and_target(tmp_path)
    with Vault.open(tmp_path / "src", embedder=HASH) as vault:
        vault.erase("user.health", decided_by="dana")
        vault.export(tmp_path / "new")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parents[1]),
                                                        os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-m", "vault_ray.cli", "import", str(tmp_path / "new"), "--store",
                          str(tmp_path / "target")], capture_output=True, text=True, env=env, timeout=300)
    said = " ".join(out.stdout.split())
    assert out.returncode == 0, out.stdout + out.stderr
    assert "3 erased claim(s) left out" in said and "3 of them erased here too" in said, said
    assert files_holding(tmp_path / "target", SECRET.encode()) == []
    with Vault.open(tmp_path / "target", embedder=HASH) as vault:
        assert vault.get("user.health").values == () and vault.get("user.phone").values == (PHONE,)
