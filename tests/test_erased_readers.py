"""Readers of a store's stored vectors after `Vault.erase` (qa4 finding 5): an erased claim keeps
a zeroed embedding and no content, so `eval --from-store` (a store or its export) and a merge
import leave it out, say how many, and run on the rest."""

from __future__ import annotations

import pytest
from erasing import SECRET, seed
from typer.testing import CliRunner

from vault_ray import Fact, HashingEmbedder, Vault
from vault_ray.cli import app
from vault_ray.errors import StoreError
from vault_ray.evals.from_store import read_claim_log, what_if, whatif_report

HASH = HashingEmbedder(dim=64)


@pytest.fixture
def erased_store(tmp_path):
    """The erasure tests' store (a disputed, resolved user.health; city, diet) with user.health erased."""
    path = tmp_path / "store"
    with Vault.open(path, embedder=HASH, partitions=4) as vault:
        seed(vault)
        assert len(vault.erase("user.health", decided_by="dana", note="asked to")) == 3
        vault.export(tmp_path / "export")
    return path


@pytest.mark.parametrize("where", ["store", "export"])
def test_eval_from_store_leaves_erased_claims_out_and_says_so(erased_store, tmp_path, where):
    source = erased_store if where == "store" else tmp_path / "export"
    out = tmp_path / f"out-{where}"
    result = CliRunner().invoke(app, ["eval", "--from-store", str(source), "--out", str(out)])
    said = " ".join(result.output.split())
    assert result.exit_code == 0, said
    assert "2 claims on 2 entities (3 erased claims left out)" in said
    report = (out / "from_store.md").read_text()
    assert "3 erased claims were left out" in report
    assert "user.health" not in report and "[erased]" not in report and SECRET not in report
    assert "user.city" not in report  # every policy answers as the store did: no entity ends differently


def test_what_if_after_an_erase_on_a_contested_entity_of_another_name(tmp_path):
    with Vault.open(tmp_path / "s", embedder=HASH) as vault:
        vault.agent("a").add_facts([Fact("person.bob.phone", "Bob's phone is 555-1234", value="555-1234")])
        vault.agent("b").add_facts([Fact("person.bob.phone", "Bob's phone is 555-9876", value="555-9876")])
        vault.agent("a").add_facts([Fact("pet.rex.breed", "Rex is a beagle", value="beagle")])
        vault.erase("person.bob.phone", decided_by="dana")
    result = what_if(tmp_path / "s", ["lww", "store", "recency", "authority"])
    assert (result.claims, result.erased, result.missing_vectors) == (1, 2, 0)
    assert result.stored == {"pet.rex.breed": "beagle"}
    assert all(result.differences(p) == [] for p in result.answers)
    assert "2 erased claims were left out" in whatif_report(result, "s")


def test_a_store_whose_every_claim_was_erased_says_so(tmp_path):
    with Vault.open(tmp_path / "s", embedder=HASH) as vault:
        vault.agent("a").add_facts([Fact("user.phone", "The user's phone is 555-1234", value="555-1234")])
        vault.erase("user.phone", decided_by="dana")
    with pytest.raises(StoreError, match="every claim of it was erased"):
        read_claim_log(tmp_path / "s")
    result = CliRunner().invoke(app, ["eval", "--from-store", str(tmp_path / "s"), "--out", str(tmp_path / "o")])
    assert result.exit_code != 0 and "every claim of it was erased" in " ".join(result.output.split())


def test_a_merge_of_an_export_with_an_erasure_leaves_the_erased_claims_out(erased_store, tmp_path):
    with Vault.open(tmp_path / "target", embedder=HASH, partitions=4) as target:
        target.agent("chat").add_facts([Fact("user.pet", "The user has a cat", value="cat")])
        result = target.import_from(tmp_path / "export")
        assert result.mode == "merge" and result.errors == {}
        assert (result.claims, result.erased) == (2, 3)  # city and diet; not the three of user.health
        assert target.history("user.health") == []
        assert target.get("user.city").values == ("lyonville",) and target.get("user.diet").values == ("vegan",)
    # the CLI says it, and a second import is all skipped (the erased claims are no error either time)
    out = CliRunner().invoke(app, ["import", str(tmp_path / "export"), "--store", str(tmp_path / "target"),
                                   "--hashing"])
    said = " ".join(out.output.split())
    assert out.exit_code == 0, said
    assert "nothing new" in said and "3 erased claim(s) left out" in said
