"""`vault-ray eval --out` naming a file (or a path under one) is one error line, exit code 2,
the file untouched, before anything runs (qa2: a FileExistsError traceback), as `normalize
--out` already refused it."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from vault_ray import Fact, HashingEmbedder, Vault
from vault_ray.cli import app

runner = CliRunner()


@pytest.fixture
def store(tmp_path):
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(), partitions=2) as vault:
        vault.agent("a").add_facts([Fact("user.diet", "The user is vegan", value="vegan")])
    return str(tmp_path / "s")


@pytest.mark.parametrize("under", ["", "/sub", "/sub/deeper"])
@pytest.mark.parametrize("mode", [["-n", "5"], ["--from-store", "STORE"], ["--from-store", "STORE", "--recommend"]])
def test_an_out_that_is_a_file_is_one_error_line(store, tmp_path, mode, under):
    notes = tmp_path / "notes.txt"
    notes.write_text("mine\n")
    args = ["eval", *(store if a == "STORE" else a for a in mode), "--out", f"{notes}{under}"]
    result = runner.invoke(app, args, env={"COLUMNS": "200"})
    said = " ".join(result.output.split())
    assert result.exit_code == 2 and said.startswith("error: --out") and "is a file, not a directory" in said, said
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) <= 2
    assert notes.read_text() == "mine\n" and sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt", "s"]


def test_normalize_refuses_the_same_out(store, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("mine\n")
    result = runner.invoke(app, ["normalize", "--store", store, "--hashing", "--out", str(notes / "plan")])
    assert result.exit_code == 2 and "is a file, not a directory" in " ".join(result.output.split())
