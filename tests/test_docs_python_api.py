"""docs/python.md, the Python API in one place: it names every public call of `Vault` and
`AgentMemory` (a method added later is listed there too), and its example runs as written."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from vault_ray import AgentMemory, Vault

PAGE = Path(__file__).resolve().parents[1] / "docs" / "python.md"


def public(cls: type) -> list[str]:
    return [name for name, _ in inspect.getmembers(cls) if not name.startswith("_")]


def test_the_page_names_every_public_call_of_vault_and_an_agents_handle():
    text = PAGE.read_text()
    missing = [f"vault.{n}" for n in public(Vault) if not re.search(rf"\b(vault|Vault)\.{n}\b", text)]
    missing += [f"memory.{n}" for n in public(AgentMemory) if n not in ("name", "vault")
                and not re.search(rf"\bmemory\.{n}\(", text)]
    assert missing == []


def test_the_pages_example_runs_as_written(tmp_path, monkeypatch, capsys):
    (block,) = re.findall(r"```python\n(.*?)```", PAGE.read_text(), re.S)
    monkeypatch.chdir(tmp_path)
    names: dict = {}
    exec(compile(block, str(PAGE), "exec"), names)  # noqa: S102 - the page's own code
    assert names["view"].values == ("Google",) and not names["view"].contested
    assert names["decision"].outcome == "active" and names["claim"].meta == {"source": "crm"}
    assert names["hits"][0].claim.id == names["decision"].claim_id
    assert capsys.readouterr().out.startswith("<Vault embedded ")
