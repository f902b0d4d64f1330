"""Every option `--help` lists for the commands a reader of docs/http.md and docs/cluster.md
starts (`serve`, `up`, `down`, `status`, `rebalance`) is named on that page: an option the page
lacks cannot be found by reading it (QA: `serve --partitions/--num-cpus/--tokens` and most of
`up`'s options were missing); and every method of `VaultClient` is named in docs/http.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vault_ray.cli import app

DOCS = Path(__file__).resolve().parents[1] / "docs"


def options_of(command: str) -> set[str]:
    shown = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "250"}).output
    return set(re.findall(r"^│\s*\*?\s*(?:-\w,?\s+)?(--[a-z][a-z-]*)", shown, re.M)) - {"--help"}


@pytest.mark.parametrize(("command", "page"), [("serve", "http.md"), ("up", "cluster.md"), ("down", "cluster.md"),
                                               ("status", "cluster.md"), ("rebalance", "cluster.md")])
def test_every_option_of_help_is_on_the_page(command, page):
    options = options_of(command)
    assert "--store" in options or "--address" in options  # the help was read
    text = (DOCS / page).read_text()
    assert sorted(o for o in options if not re.search(re.escape(o) + r"\b", text)) == []


def test_every_method_of_the_client_is_on_the_http_page():
    """docs/http.md's "The client" names every public method of `VaultClient` (QA: `whoami`, `registry`,
    `set_policy`, `set_cardinality`, `set_rules` were on no page)."""
    from vault_ray import VaultClient

    text = (DOCS / "http.md").read_text()
    methods = {m for m in dir(VaultClient) if not m.startswith("_") and callable(getattr(VaultClient, m))} - {"close"}
    assert {"add", "whoami", "registry"} <= methods
    assert sorted(m for m in methods if f"memory.{m}(" not in text) == []
