"""The README's HTTP quickstart, run exactly as written: the first bash block of "Serve
an agent fleet" (start `vault-ray serve`, make tokens, write, search, see the dispute,
resolve it, stop the server) in a fresh directory, under `set -euo pipefail`. Only
the port is chosen here, through VAULT_RAY_PORT, which the block reads. The directory holds
what the README's Python example ("The API in twenty lines") left, as a newcomer's would. Before the server
stops, the section's Python block (`VaultClient`) runs as written too, with the scheduler's
token in VAULT_RAY_TOKEN and the URL on the chosen port."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from vault_ray import LocalEmbedder, Vault

from .served import free_port

README = Path(__file__).resolve().parents[2] / "README.md"


def section() -> str:
    return README.read_text().split("## Serve an agent fleet", 1)[1].split("\n## ", 1)[0]


def quickstart() -> str:
    return re.search(r"```bash\n(.*?)```", section(), re.S).group(1)  # type: ignore[union-attr]


def client_block() -> str:
    return re.search(r"```python\n(.*?)```", section(), re.S).group(1)  # type: ignore[union-attr]


def test_the_readme_quickstart_runs_as_written(tmp_path):
    script, client = quickstart(), client_block()
    assert "vault-ray serve --store ./fleet &" in script and "kill $SERVER" in script
    assert '"http://127.0.0.1:8000"' in client and 'os.environ["VAULT_RAY_TOKEN"]' in client
    (tmp_path / "client.py").write_text(client.replace('"http://127.0.0.1:8000"', 'os.environ["VAULT"]')
                                        + "\nprint('client hits:', [(h.claim.value, h.contested) for h in hits])\n")
    stop = "kill $SERVER; wait $SERVER"
    assert stop in script
    script = script.replace(stop, f'VAULT="$VAULT" VAULT_RAY_TOKEN="$A" "{sys.executable}" client.py\n{stop}', 1)
    ray_tmp = tempfile.mkdtemp(prefix="vrq", dir="/tmp")  # short: Ray's socket paths have a length limit
    env = {**os.environ, "VAULT_RAY_PORT": str(free_port()), "RAY_TMPDIR": ray_tmp,
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop("RAY_ADDRESS", None)
    # a newcomer runs the README top to bottom in one directory: "The API in twenty lines" first
    api = re.search(r"```python\n(.*?)```", README.read_text().split("## The API in twenty lines", 1)[1], re.S)
    first = subprocess.run([sys.executable, "-c", api.group(1)], cwd=tmp_path, env=env,  # type: ignore[union-attr]
                           capture_output=True, text=True, timeout=300)
    assert first.returncode == 0 and (tmp_path / "memory").is_dir(), first.stderr[-3000:]
    proc = subprocess.Popen(["bash", "-c", "set -euo pipefail\n" + script], cwd=tmp_path, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=420)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the script's own process group: the server it started too
        out, err = proc.communicate()
        raise AssertionError(f"the quickstart did not finish:\n{out[-3000:]}\n{err[-3000:]}") from None
    finally:
        shutil.rmtree(ray_tmp, ignore_errors=True)
    assert proc.returncode == 0, f"{out[-3000:]}\n{err[-3000:]}"
    assert '"outcome":"active"' in out and '"outcome":"disputed"' in out
    assert '"contested":true' in out and '"status":"resolved"' in out
    assert "vault-ray serves" in out + err and "/docs" in out + err  # the server told where it listens
    assert "client hits: [('EST', True)" in out  # the client's PST waits on the person's EST: contested

    with Vault.open(tmp_path / "fleet", embedder=LocalEmbedder()) as vault:  # stopped: the store is free
        (dispute,) = vault.disputes("resolved")
        (waiting,) = vault.disputes()  # the client's PST, against what a person decided: it waits for one
        assert waiting.needs_user and waiting.challenger_agent == "scheduler"
        assert dispute.status == "resolved" and dispute.resolution.decided_by == "ops"
        assert dispute.resolution.note == "moved to New York"
        (current,) = vault.get("user.timezone").active
        assert (current.value, current.agent) == ("EST", "chat")
        assert {c.agent for c in vault.history("user.timezone")} == {"scheduler", "chat"}
        assert [c.value for c in vault.history("user.timezone") if c.agent == "scheduler"] == ["PST", "PST"]
        assert vault.get("user.schedule.gym").values == ("7am",)  # the client's add_facts
        assert vault.policy.strategy_for("user.timezone") == "authority"  # the admin's PATCH
        assert vault.policy.weight("scheduler", "user.timezone") == 0.9 and vault.policy.high_stakes  # the rest kept
