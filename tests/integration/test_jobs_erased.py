"""The bulk jobs on a store where `erase` was used (qa4 finding 5): a reindex stages no vector of
the marker text for an erased claim (it keeps zeros, as the erasure left it) and switches; a
normalize run builds no profile of an erased label (its claims have no content to compare)."""

from __future__ import annotations

from erasing import seed

from vault_ray import Fact, HashingEmbedder, Vault
from vault_ray.evals.normalize import normalize
from vault_ray.evals.reindex import reindex
from vault_ray.storage import StoreReader


def erased_store(path):
    with Vault.open(path, embedder=HashingEmbedder(dim=64), partitions=4) as vault:
        seed(vault)
        vault.agent("doc").add_facts([Fact("user.health_status", "The user's health status is poor", value="poor")])
        vault.erase("user.health", decided_by="dana")
        vault.erase("user.health_status", decided_by="dana")
    return path


def test_reindex_after_an_erase_switches_and_keeps_the_erased_vectors_zero(ray_session, tmp_path):
    path = erased_store(tmp_path / "store")
    result = reindex("hashing", store=path, dim=32)
    assert (result.embedder, result.dim, result.claims) == ("hashing-32", 32, 6)
    assert result.embedded == 2  # city and diet; the four erased claims were staged as zeros
    assert (result.erased, result.staged_before) == (4, 0)  # by this run: no earlier run staged any
    claims = StoreReader(path).claims(["entity", "embedding"]).to_pylist()
    assert {len(c["embedding"]) for c in claims} == {4 * 32}
    assert all((c["embedding"] == bytes(128)) == c["entity"].startswith("user.health") for c in claims)
    with Vault.open(path, embedder=HashingEmbedder(dim=32)) as vault:
        assert vault.search("where does the user live", k=1)[0].claim.value == "lyonville"
        assert vault.get("user.health").values == ()


def test_normalize_after_an_erase_leaves_the_erased_labels_out(ray_session, tmp_path):
    path = erased_store(tmp_path / "store")
    result = normalize(store=path, out=tmp_path / "plan", embedder="hashing")
    assert result.labels == 2 and result.merges == 0  # user.city and user.diet only
    assert "user.health" not in (tmp_path / "plan" / "plan.md").read_text()


def test_a_merge_into_a_cluster_store_erases_its_copies_of_claims_the_source_erased(cluster, tmp_path):
    """docs/jobs.md: a merge carries the source's erasures, through the owner shard (and every shard
    for the erased claims' source messages), as `Vault.erase` in cluster mode does."""
    from erasing import MESSAGE, OTHER, SECRET, files_holding

    from vault_ray.actors import shutdown
    from vault_ray.engine.erase import is_erased

    with Vault.open(tmp_path / "src", embedder=HashingEmbedder(), partitions=4) as source:
        ids = seed(source)
        source.export(tmp_path / "old")
    target = cluster(shards=2, partitions=4)
    assert target.import_from(tmp_path / "old").mode == "restore"
    with Vault.open(tmp_path / "src", embedder=HashingEmbedder()) as source:
        source.erase("user.health", decided_by="dana", note="request 9")
        source.export(tmp_path / "new")
    result = target.import_from(tmp_path / "new")
    assert (result.mode, result.erased, result.erased_here, result.errors) == ("merge", 3, 3, {})
    assert target.get("user.health").active == () and all(is_erased(c) for c in target.history("user.health"))
    assert all(h.claim.entity != "user.health" for h in target.search(f"the user has {SECRET}", k=10))
    assert target.claim(ids["city"].claim_id).source is None  # at whichever shard holds it
    assert target.import_from(tmp_path / "new").erased_here == 0
    shutdown(namespace=target.info().namespace)
    for needle in (SECRET, OTHER, MESSAGE):
        assert files_holding(tmp_path / "store", needle.encode()) == [], needle
    assert files_holding(tmp_path / "store", b"vegan")


def test_a_first_reindex_says_the_erased_claims_it_staged_as_zeros_not_an_earlier_run(ray_session, tmp_path):
    """qa9 F4: the summary counted the erased claims this run staged as "staged by an earlier run"."""
    from typer.testing import CliRunner

    from vault_ray.cli import app

    path = erased_store(tmp_path / "store")
    result = CliRunner().invoke(app, ["reindex", "--store", str(path), "--embedder", "hashing", "--dim", "48"],
                                env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    assert "4 erased claim(s) staged as zeros" in result.output and "earlier run" not in result.output
    assert "hashing-64 (64) -> hashing-48 (48)" in result.output
    again = CliRunner().invoke(app, ["reindex", "--store", str(path), "--embedder", "hashing", "--dim", "40"],
                               env={"COLUMNS": "300"})  # from a store reindexed once: the erased claims again
    assert again.exit_code == 0 and "4 erased claim(s) staged as zeros" in again.output, again.output
    assert "earlier run" not in again.output
