"""A bulk job that starts Ray itself removes the session directory that Ray leaves behind
(RAY_TMPDIR/ray/session_*: they piled up on a shared host, one per run) once its Ray has stopped:
only its own, never another session there. A job that fails keeps its session and says where on
stderr (Ray's logs are a bug report's evidence)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from vault_ray import Fact, HashingEmbedder, Vault

pytestmark = pytest.mark.slow


@pytest.fixture
def ray_tmp() -> Iterator[Path]:
    """A RAY_TMPDIR of the test's own (short: Ray's socket paths have a length limit), holding another
    session, as a shared host's /tmp/ray does: another user's job, a `vault-ray up` head."""
    root = Path(tempfile.mkdtemp(prefix="vrs", dir="/tmp"))
    other = root / "ray" / "session_2026-01-01_00-00-00_000000_1"
    (other / "logs").mkdir(parents=True)
    (other / "logs" / "raylet.out").write_text("another run's log\n")
    yield root
    shutil.rmtree(root, ignore_errors=True)


def job(store: Path, ray_tmp: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {**os.environ, "RAY_TMPDIR": str(ray_tmp), "COLUMNS": "200", **env}
    environ.pop("RAY_ADDRESS", None)
    return subprocess.run([sys.executable, "-m", "vault_ray.cli", *args, "--store", str(store)], env=environ,
                          capture_output=True, text=True, timeout=300)


def sessions(ray_tmp: Path) -> list[str]:
    return sorted(p.name for p in (ray_tmp / "ray").iterdir())


def a_store(path: Path) -> Path:
    with Vault.open(path, embedder=HashingEmbedder(dim=64)) as vault:
        vault.agent("a").add_facts([Fact("user.city", "The user lives in Paris", value="Paris"),
                                    Fact("user.diet", "The user is vegetarian", value="vegetarian")])
    return path


def test_a_job_that_started_ray_removes_its_session_and_no_other(tmp_path, ray_tmp):
    store = a_store(tmp_path / "store")
    ran = job(store, ray_tmp, "reindex", "--embedder", "hashing")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "reindexed 2 claims" in " ".join(ran.stdout.split())
    assert "note:" not in ran.stderr
    # its own session is gone (and the session_latest link that pointed at it); the other one is whole
    assert sessions(ray_tmp) == ["session_2026-01-01_00-00-00_000000_1"]
    assert (ray_tmp / "ray" / "session_2026-01-01_00-00-00_000000_1" / "logs" / "raylet.out").read_text()
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        assert vault.get("user.city").values == ("Paris",)


def test_a_failed_job_keeps_its_session_and_says_where(tmp_path, ray_tmp):
    store = a_store(tmp_path / "store")
    # the embedding service does not answer: the job fails once Ray runs its stages
    ran = job(store, ray_tmp, "reindex", "--embedder", "openai:text-embedding-3-small", "--dim", "64",
              OPENAI_API_KEY="sk-test", OPENAI_BASE_URL="http://127.0.0.1:9/v1")
    assert ran.returncode != 0, ran.stdout + ran.stderr
    # one line says why, as for an error of the job's own process: no traceback of Ray's, no Ray Data log
    assert "error: embedding with text-embedding-3-small failed: Connection error." in ran.stderr, ran.stderr
    assert "Traceback" not in ran.stderr and "UserCodeException" not in ran.stderr, ran.stderr
    assert "Failed to apply UDF" not in ran.stderr and "ERROR" not in ran.stderr, ran.stderr
    (kept,) = [name for name in sessions(ray_tmp) if name.startswith("session_2") and not name.endswith("_1")]
    said = " ".join(ran.stderr.split())
    assert f"note: Ray's logs of this run are kept in {ray_tmp / 'ray' / kept / 'logs'}" in said, said
    assert (ray_tmp / "ray" / kept / "logs").is_dir()
    assert "session_2026-01-01_00-00-00_000000_1" in sessions(ray_tmp)
    with Vault.open(store, embedder=HashingEmbedder(dim=64)) as vault:  # the store stays on its embedder
        assert vault.get("user.city").values == ("Paris",)
