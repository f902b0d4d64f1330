"""QA round 98 (a new user's walkthrough of the README and docs): what the CLI prints.

M1: `erase` run again on an erased entity says who erased it first, never the new caller.
M3: the `events` table shows a claim event's claim id (and the dispute id beside it).
M4: ids a user must type next are never cut in a piped (80-column) table; `--json` on the
    webhook and cluster status commands.
L1: `resolve --winner ""` is refused as empty."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from vault_ray import Fact, HashingEmbedder, Vault
from vault_ray.cli import app


@pytest.fixture
def store(tmp_path):
    return tmp_path / "store"


def run(store, *args: str):
    result = CliRunner().invoke(app, [*args, "--store", str(store), "--hashing"])
    return result


def budget(store, *values: str, agent: str = "a") -> list[str]:
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        return [vault.agent(agent).add_facts([Fact("user.budget", f"budget is {v}", value=v)]).decisions[0].claim_id
                for v in values]


def test_erase_again_names_the_first_eraser_and_changes_nothing(store):
    ids = budget(store, "500", "700")
    first = run(store, "erase", "user.budget", "--by", "dana", "--note", "privacy request", "--yes")
    assert first.exit_code == 0, first.output
    assert "2 claim(s) erased by dana: privacy request" in first.output
    again = run(store, "erase", "user.budget", "--by", "eve", "--note", "again", "--yes")
    assert again.exit_code == 0, again.output
    assert "eve" not in again.output and "again" not in again.output.replace("already", "")
    assert all(f"already erased {i}" in again.output for i in ids)
    assert "by dana at" in again.output and "privacy request" in again.output
    assert "nothing new to erase" in again.output
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        erased = [e for e in vault.events(entity="user.budget") if e.kind == "claim_erased"]
        assert len(erased) == 2 and {e.agent for e in erased} == {"dana"}


def test_erase_of_a_new_claim_after_an_erasure_tells_both_apart(store):
    """A claim written after the first erasure is erased now, by the new caller; the old ones were not."""
    (old,) = budget(store, "500")
    assert run(store, "erase", "user.budget", "--by", "dana", "--yes").exit_code == 0
    (new,) = budget(store, "900", agent="b")
    out = run(store, "erase", "user.budget", "--by", "eve", "--note", "second request", "--yes").output
    assert f"erased {new}" in out and f"already erased {old}" in out and "by dana at" in out
    assert "1 claim(s) erased by eve: second request" in out and "1 claim(s) erased before" in out


def test_erase_of_a_retracted_claim_says_it_is_erased_now(store):
    """A claim retracted (not erased) before is erased by this run: the retractor is not the eraser."""
    (cid,) = budget(store, "500")
    assert run(store, "retract", cid, "--by", "xavier").exit_code == 0
    out = run(store, "erase", "user.budget", "--by", "dana", "--yes").output
    assert f"erased {cid}" in out and "already" not in out and "1 claim(s) erased by dana" in out
