"""The published artifact is what users get: build the wheel, install it into a
fresh virtual environment and import the package and its mapped subpackages."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(ROOT)],
        check=True,
    )
    (found,) = out.glob("vault_ray-*.whl")
    return found


def test_wheel_maps_root_folders_into_the_package(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    for module in ("vault_ray/__init__.py", "vault_ray/storage/claim_log.py", "vault_ray/actors/__init__.py",
                   "vault_ray/evals/__init__.py", "vault_ray/reasoners/rules.py"):
        assert module in names
    top = {n.split("/")[0] for n in names}
    assert top <= {"vault_ray"} | {n for n in top if n.endswith(".dist-info")}  # nothing generic in site-packages


def test_wheel_declares_runtime_dependencies(wheel):
    with zipfile.ZipFile(wheel) as zf:
        meta = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        text = zf.read(meta).decode()
    requires = [line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("Requires-Dist:")]
    core = {r.split(">")[0].split("=")[0].split(";")[0].strip() for r in requires if "extra ==" not in r}
    assert {"numpy", "pyarrow", "duckdb", "faiss-cpu", "typer", "rich"} <= core
    assert not any(r.startswith("torch") for r in requires)  # never force a (CUDA) torch on users
    extras = {r.split("extra ==")[1].strip(" '\"") for r in requires if "extra ==" in r}
    assert {"local", "cluster", "openai", "evals"} <= extras


def test_wheel_installs_and_imports_in_fresh_venv(wheel, tmp_path):
    """Install the wheel (no deps) into a new venv; third-party dependencies come from
    this environment through a path entry that does not bring its editable install."""
    import site

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / "bin" / "python"
    fresh_site = Path(subprocess.run([str(py), "-c", "import site; print(site.getsitepackages()[0])"],
                                     check=True, capture_output=True, text=True).stdout.strip())
    (fresh_site / "zz_deps.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(fresh_site), str(wheel)],
                   check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    code = (
        "import vault_ray, vault_ray.storage, vault_ray.actors, vault_ray.evals, tempfile;"
        "v = vault_ray.Vault.open(tempfile.mkdtemp(), embedder=vault_ray.HashingEmbedder());"
        "d = v.agent('a').add('I am in PST').decisions[0];"
        "print(vault_ray.__file__, vault_ray.storage.__file__, d.entity, d.outcome); v.close()"
    )
    out = subprocess.run([str(py), "-c", code], check=True, capture_output=True, text=True, env=env, cwd=tmp_path)
    assert out.stdout.count(str(fresh_site)) == 2, out.stdout  # the installed copy, not the checkout
    assert "user.timezone active" in out.stdout
