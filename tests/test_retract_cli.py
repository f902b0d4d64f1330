"""`vault-ray retract CLAIM_ID --by NAME [--note]` and `vault-ray forget ENTITY --by NAME`:
short id prefixes, exit codes (2 bad input, 3 not found, 4 store problem)."""

from __future__ import annotations

from typer.testing import CliRunner

from vault_ray import Fact, HashingEmbedder, Status, Vault
from vault_ray.cli import app

runner = CliRunner()


def store_with_claims(tmp_path):
    path = tmp_path / "store"
    with Vault.open(path, embedder=HashingEmbedder()) as vault:
        (d,) = vault.agent("a").add_facts(Fact("user.diet", "The user is vegan", "vegan"), resolve=False).decisions
        vault.agent("a").add_facts(Fact("user.pets", "The user has a cat", "cat"), resolve=False)
    return path, d.claim_id


def run(*args: str):
    return runner.invoke(app, [*args, "--hashing"])


def test_retract_by_a_short_id_then_it_is_gone(tmp_path):
    path, cid = store_with_claims(tmp_path)
    done = run("retract", cid[:12], "--by", "ana", "--note", "never said", "--store", str(path))
    assert done.exit_code == 0, done.output
    assert f"retracted {cid}" in done.output and "by ana" in done.output and "never said" in done.output
    again = run("retract", cid, "--by", "bob", "--store", str(path))
    assert again.exit_code == 0 and "already retracted" in again.output and "by ana" in again.output
    with Vault.open(path, embedder=HashingEmbedder()) as vault:
        assert vault.claim(cid).status == Status.RETRACTED and vault.get("user.diet").active == ()
        assert [c.value for c in vault.get("user.pets").active] == ["cat"]


def test_retract_exit_codes(tmp_path):
    path, cid = store_with_claims(tmp_path)
    assert run("retract", "nope", "--by", "ana", "--store", str(path)).exit_code == 3
    assert run("retract", cid, "--store", str(path)).exit_code == 2  # --by is required
    assert run("retract", cid, "--by", "  ", "--store", str(path)).exit_code == 2
    assert run("retract", cid, "--by", "ana", "--store", str(tmp_path / "none")).exit_code == 3
    (tmp_path / "file").write_text("x")
    assert run("retract", cid, "--by", "ana", "--store", str(tmp_path / "file")).exit_code == 4
    with Vault.open(path, embedder=HashingEmbedder()) as vault:
        assert vault.claim(cid).status == Status.ACTIVE


def test_forget_an_entity(tmp_path):
    path, cid = store_with_claims(tmp_path)
    done = run("forget", "user.diet", "--by", "ana", "--store", str(path))
    assert done.exit_code == 0 and f"retracted {cid}" in done.output
    assert "no live claim" in run("forget", "user.diet", "--by", "ana", "--store", str(path)).output
    assert run("forget", "Bad Entity", "--by", "ana", "--store", str(path)).exit_code == 2
