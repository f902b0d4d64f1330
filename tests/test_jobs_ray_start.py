"""A bulk job whose Ray cannot start here says so in one `error:` line (exit code 4, store or
cluster unreachable) and changes nothing (qa4 finding 6: a start-up timeout on a busy machine
was an 87-line traceback). The failure is real: RAY_TMPDIR names a file, so the local
`ray.init` cannot make its session directory."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from vault_ray import Fact, HashingEmbedder, Vault

pytest.importorskip("ray")


@pytest.mark.parametrize("job", [["reindex", "--embedder", "hashing", "--dim", "32"],
                                 ["normalize", "--embedder", "hashing", "--out", "plan"]])
def test_a_ray_that_cannot_start_is_one_error_line_and_changes_nothing(tmp_path, job):
    store = tmp_path / "store"
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        vault.agent("a").add_facts([Fact("user.city", "The user lives in Paris", value="Paris")])
    before = json.loads((store / "vault.json").read_text())
    (tmp_path / "not-a-dir").write_text("")
    env = {**os.environ, "RAY_TMPDIR": str(tmp_path / "not-a-dir"), "RAY_ADDRESS": "", "COLUMNS": "200"}
    ran = subprocess.run([sys.executable, "-m", "vault_ray.cli", *job, "--store", str(store)], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=300)
    said = " ".join(ran.stderr.split())
    assert ran.returncode == 4, ran.stderr
    assert said.startswith("error: Ray could not start on this machine (NotADirectoryError") and "Traceback" not in said
    assert "nothing was changed" in said and "--address" in said
    assert json.loads((store / "vault.json").read_text()) == before and not (tmp_path / "plan").exists()
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        assert vault.get("user.city").values == ("Paris",)
