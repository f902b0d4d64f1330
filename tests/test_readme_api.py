"""The README's Python example ("The API in twenty lines"), run as written, top to bottom, in a
fresh directory with the default (local model) embedder: every name it uses is defined, and the
comments say what the calls give. Then what its comment says of retracting a dispute's winner."""

from __future__ import annotations

import re
from pathlib import Path

from vault_ray import LocalEmbedder, Vault

README = Path(__file__).resolve().parents[1] / "README.md"


def python_blocks(section: str = "") -> list[str]:
    text = README.read_text()
    if section:
        text = text.split(f"## {section}\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", text, re.S)


def test_every_readme_python_block_compiles():
    blocks = python_blocks()
    assert len(blocks) >= 2
    for block in blocks:
        compile(block, str(README), "exec")


def test_the_readme_python_example_runs_as_written(tmp_path, monkeypatch):
    (block,) = python_blocks("The API in twenty lines")
    monkeypatch.chdir(tmp_path)
    names: dict = {}
    exec(compile(block, str(README), "exec"), names)  # noqa: S102 - the README's own code
    d, result, hits, view = names["d"], names["result"], names["hits"], names["view"]
    assert (d.op, d.outcome, d.value) == ("ADD", "disputed", "EST") and d.dispute_id
    assert result.unextracted == ()
    assert hits[0].claim.value == "PST" and hits[0].contested
    assert "EST" in {a.value for a in hits[0].alternatives}
    assert view.contested and set(view.values) == {"PST", "EST"}  # both values, read before the resolution
    with Vault.open(tmp_path / "memory", embedder=LocalEmbedder()) as vault:
        (current,) = vault.get("user.timezone").active
        assert current.value == "EST"  # the resolution
        assert vault.get("user.schedule.gym").active == ()  # retracted: no read sees it
        (gym,) = vault.history("user.schedule.gym")
        assert gym.status == "retracted"  # history keeps it
        # what the comment says of retracting the winner: no value, PST stays superseded
        vault.retract(current.id, decided_by="user")
        assert vault.get("user.timezone").active == ()
        assert {c.value: str(c.status) for c in vault.history("user.timezone")}["PST"].endswith("superseded")
