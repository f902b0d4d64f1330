"""`vault-ray serve --store PATH --hashing` serves a store whose hashing vectors are not 384 wide (a
`reindex --embedder hashing --dim D` made it so): the replicas embed at the store's size, so reads
and writes work, where a 384-wide embedder was refused (QA9 F2's other half)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time

import httpx

from vault_ray import Fact, HashingEmbedder, Vault
from vault_ray.tokens import TokenStore

ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p), "HF_HUB_OFFLINE": "1",
       "COLUMNS": "400", "PYTHONUNBUFFERED": "1"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_serve_hashing_uses_the_stores_size(tmp_path):
    store = tmp_path / "store"
    with Vault.open(store, embedder=HashingEmbedder(128)) as v:
        v.agent("crm").add_facts([Fact("user.city", "I live in Oslo", value="Oslo")])
    token, _ = TokenStore.for_store(store).add("scheduler")
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "vault_ray.cli", "serve", "--store", str(store), "--port", str(port),
                             "--hashing", "--shards", "1", "--namespace", "size128", "--num-cpus", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=ENV, start_new_session=True)
    out: list[str] = []
    try:
        end = time.monotonic() + 300
        while time.monotonic() < end:
            line = proc.stdout.readline()  # type: ignore[union-attr]
            if not line and proc.poll() is not None:
                break
            out.append(line)
            if "Ctrl-C stops it" in line:
                break
        assert any("Ctrl-C stops it" in line for line in out), "".join(out)[-3000:]
        # Serve's start is quiet too: no "Connecting to existing Serve app" (actors/serve/starting.py)
        assert not any("Connecting to existing Serve app" in line for line in out), "".join(out)
        headers = {"Authorization": f"Bearer {token}"}
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", headers=headers, timeout=60) as http:
            view = http.get("/v1/entities/user.city")
            assert view.status_code == 200, view.text
            assert [c["value"] for c in view.json()["active"]] == ["Oslo"]
            wrote = http.post("/v1/facts", json={"facts": [{"entity": "user.diet", "text": "I am vegan", "value": "vegan"}]})
            assert wrote.status_code == 200, wrote.text
            found = http.get("/v1/search", params={"q": "vegan"})
            assert found.status_code == 200 and any(h["claim"]["value"] == "vegan" for h in found.json()), found.text
    finally:
        with contextlib.suppress(ProcessLookupError):  # it may have stopped on its own (a refusal)
            os.killpg(proc.pid, signal.SIGINT)
        try:
            rest, _ = proc.communicate(timeout=120)  # what it printed as it stopped (stderr joined)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            rest, _ = proc.communicate()
    assert "graceful_shutdown failed" not in rest, rest  # a normal stop is quiet (actors/serve/stopping.py)
    with Vault.open(store, embedder=HashingEmbedder(128)) as v:
        assert [c.value for c in v.get("user.diet").active] == ["vegan"]
