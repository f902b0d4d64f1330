"""`eval --from-store --recommend` proposes an authority weight only from enough labelled
reports (weights.MIN_REPORTS per agent and pattern; an agent's `*` from MIN_PATTERNS or more
patterns), says so, and keeps the store's own weights otherwise: one resolved dispute does
not flip who is trusted everywhere."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from vault_ray import Fact, HashingEmbedder, Vault
from vault_ray.cli import app
from vault_ray.evals.weights import MIN_PATTERNS, MIN_REPORTS
from vault_ray.policy_file import read_policy_file


def test_one_resolved_dispute_proposes_no_weights_and_the_output_says_why(tmp_path):
    store = tmp_path / "store"
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        vault.set_strategy("user.timezone", "authority")
        vault.set_authority("scheduler", "user.timezone", 0.9)
        vault.set_authority("chat", "user.timezone", 0.2)
        vault.agent("scheduler").add_facts([Fact("user.timezone", "The user is in PST", "PST")])
        est = vault.agent("chat").add_facts([Fact("user.timezone", "The user is in EST", "EST")]).decisions[0]
        vault.resolve_dispute(est.dispute_id, est.claim_id, decided_by="user", note="moved")
        current = vault.policy.authority
    out = tmp_path / "out"
    done = CliRunner().invoke(app, ["eval", "--from-store", str(store), "--recommend", "--out", str(out),
                                    "--policies", "store"], env={"COLUMNS": "200"})
    assert done.exit_code == 0, done.output
    proposed = read_policy_file(out / "proposal.json")
    assert proposed.authority == current  # scheduler 0.9, chat 0.2 on user.timezone; no `*` learned from one pattern
    said = " ".join(done.output.split())
    assert f"at least {MIN_REPORTS} labelled reports per agent and pattern" in said
    assert f"from {MIN_PATTERNS} or more patterns" in said and "chat on user.timezone (1 report)" in said
    evidence = json.loads((out / "proposal.json").read_text())["proposal"]
    assert any("too few, so not proposed" in note for note in evidence["notes"])
    assert "too few, so not proposed" in (out / "from_store.md").read_text()
