"""`vault-ray reindex` of a store without claims: switched, and said in words (a QA run
printed "embedded at nan claims/s")."""

from __future__ import annotations

from typer.testing import CliRunner

from vault_ray import HashingEmbedder, Vault
from vault_ray.cli import app


def test_reindexing_an_empty_store_says_there_was_nothing_to_embed(ray_session, tmp_path):
    Vault.open(tmp_path / "empty", embedder=HashingEmbedder(), partitions=2).close()
    result = CliRunner().invoke(app, ["reindex", "--store", str(tmp_path / "empty"), "--embedder", "hashing",
                                      "--dim", "64"])
    said = " ".join(result.output.split())
    assert result.exit_code == 0, said
    assert "reindexed 0 claims: hashing-384 (384) -> hashing-64 (64); no claims to embed" in said and "nan" not in said
    with Vault.open(tmp_path / "empty", embedder=HashingEmbedder(dim=64)) as vault:
        assert vault.info().embedder == "hashing-64"
