"""--from-store --recommend: labels from a store's resolved disputes and long-lived values,
and the proposal made from them."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from vault_ray import Fact, HashingEmbedder, Policy, Vault
from vault_ray.cli import app
from vault_ray.evals.from_store import read_claim_log
from vault_ray.evals.labels import recommend_from_store, store_labels
from vault_ray.policy_file import read_policy_file

T0 = 1_700_000_000.0
DAY = 86_400.0


def fact(entity: str, value: str, at: float) -> Fact:
    return Fact(entity, f"{entity} is {value}", value=value, observed_at=at)


def test_labels_are_resolved_disputes_and_values_that_stood(tmp_path):
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(64), policy=Policy(default_strategy="authority")) as v:
        a, b = v.agent("a"), v.agent("b")
        a.add_facts([fact("user.diet", "vegan", T0), fact("user.town", "paris", T0), fact("user.zone", "cet", T0),
                     fact("user.gym", "monday", T0)], resolve=False)
        b.add_facts([fact("user.diet", "keto", T0 + 60), fact("user.zone", "pst", T0 + 60)], resolve=False)
        b.add_facts([fact("user.gym", "monday", T0 + 9 * DAY)], resolve=False)  # agrees: no contradiction
        diet, tz = (next(d for d in v.disputes() if d.entity == e) for e in ("user.diet", "user.zone"))
        v.resolve_dispute(diet.id, diet.challenger, decided_by="user")  # keto, decided by a person
        assert v.get("user.zone").contested  # tz stays open: no label
    labels = store_labels(read_claim_log(tmp_path / "s"))
    assert {e: (x.value, x.source, x.decided_by) for e, x in labels.items()} == {
        "user.diet": ("keto", "dispute", "user"),
        "user.town": ("paris", "long-lived", ""),  # 9 days before the latest observation, never contradicted
        "user.gym": ("monday", "long-lived", ""),
    }
    assert set(store_labels(read_claim_log(tmp_path / "s"), min_age_s=10 * DAY)) == {"user.diet"}


def test_a_resolution_contradicted_later_is_no_label(tmp_path):
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(64), policy=Policy(default_strategy="authority")) as v:
        v.agent("a").add_facts([fact("user.diet", "vegan", T0)], resolve=False)
        v.agent("b").add_facts([fact("user.diet", "keto", T0 + 60)], resolve=False)
        (d,) = v.disputes()
        v.resolve_dispute(d.id, d.challenger, decided_by="user")
        v.agent("a").add_facts([fact("user.diet", "vegan", T0 + 120)], resolve=False)
    assert "user.diet" not in store_labels(read_claim_log(tmp_path / "s"), min_age_s=0.0)


@pytest.fixture(scope="module")
def disputed_store(tmp_path_factory):
    """A store whose equal-weight authority policy left every contradiction to a person:
    the scheduler is right about schedules, the chat agent about food, and who wrote first
    alternates. A person resolved every dispute."""
    path = tmp_path_factory.mktemp("store") / "store"
    values = {"scheduler": "a", "chat": "b"}
    with Vault.open(path, embedder=HashingEmbedder(64), policy=Policy(default_strategy="authority"),
                    partitions=2) as v:
        for first, second, parity in (("scheduler", "chat", 0), ("chat", "scheduler", 1)):
            for agent, delay in ((first, 0), (second, 60)):
                v.agent(agent).add_facts([fact(f"user.{kind}.x{i}", values[agent], T0 + i * 3600 + delay)
                                          for i in range(parity, 24, 2) for kind in ("schedule", "food")],
                                         resolve=False)
        for d in v.disputes():
            right = "scheduler" if ".schedule." in d.entity else "chat"
            winner = next(c for c in (d.challenger, *d.incumbents) if v.claim(c).agent == right)
            v.resolve_dispute(d.id, winner, decided_by="user")
    return path


def test_the_store_recommendation_learns_who_is_right_where(disputed_store):
    rec = recommend_from_store(disputed_store, resamples=500)
    weights = rec.policy.authority
    assert weights["scheduler"]["user.schedule.*"] > 0.8 > 0.2 > weights["chat"]["user.schedule.*"]
    assert weights["chat"]["user.food.*"] > 0.8 > 0.2 > weights["scheduler"]["user.food.*"]
    assert {c.pattern: c.chosen for c in rec.choices} == {"user.food.*": "consensus", "user.schedule.*": "consensus"}
    gain = rec.gain("final_accuracy")
    assert gain.proposed == 1.0 and gain.current < 0.7 and gain.outside_noise and rec.unit == "entities"
    assert "48 resolved disputes" in rec.source and "favour" in rec.source


def test_cli_from_store_recommend_writes_the_proposal_and_says_where_labels_come_from(disputed_store, tmp_path):
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["eval", "--from-store", str(disputed_store), "--out", str(out), "--recommend",
                                      "--policies", "store"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    report = (out / "from_store.md").read_text()
    assert "## Recommendation" in report and "no ground truth in a store" in report
    assert "| `user.schedule.*` | authority | **consensus** |" in report
    policy = read_policy_file(out / "proposal.json")
    assert policy.strategy_for("user.food.x1") == "consensus"
    proposal = json.loads((out / "proposal.json").read_text())["proposal"]
    assert proposal["unit"] == "entities" and proposal["gains"][0]["pattern"] == "*"


def test_a_store_without_labels_gets_a_clear_error(tmp_path):
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(64)) as v:
        v.agent("a").add_facts([fact("user.diet", "vegan", T0)], resolve=False)
    result = CliRunner().invoke(app, ["eval", "--from-store", str(tmp_path / "s"), "--out", str(tmp_path / "o"),
                                      "--recommend"], env={"COLUMNS": "300"})
    assert result.exit_code == 2 and "has no labels to learn from" in result.output
    assert not (tmp_path / "o").exists()  # nothing written, not even the directory


def test_a_store_proposal_keeps_the_users_weights_where_it_has_no_labels_and_adds_no_no_ops(tmp_path):
    """QA 89: chat distrusted on user.timezone (0.2) and labelled only on user.boat (a fit-half entity, where it is right); many
    long-lived entities whose best strategy is the default."""
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(64)) as v:
        v.set_strategy("user.timezone", "authority")
        v.set_authority("chat", "user.timezone", 0.2)
        v.set_strategy("user.boat", "authority")  # equal weights: a dispute, settled by a person
        v.agent("a").add_facts([fact("user.boat", "sloop", T0)], resolve=False)
        v.agent("chat").add_facts([fact("user.boat", "ketch", T0 + 60)], resolve=False)
        (d,) = v.disputes()
        v.resolve_dispute(d.id, next(c for c in (d.challenger, *d.incumbents) if v.claim(c).agent == "chat"),
                          decided_by="user")
        v.agent("b").add_facts([fact(f"user.pet_{i}", f"rex{i}", T0 + i) for i in range(12)], resolve=False)
        v.agent("a").add_facts([fact("user.zone", "cet", T0 + 9 * DAY)], resolve=False)
    rec = recommend_from_store(tmp_path / "s", resamples=50)
    assert rec.weights.reports("chat", "user.boat") == 1 and rec.weights.weights["chat"]["*"] > 0.2
    assert rec.policy.weight("chat", "user.timezone") == 0.2
    assert rec.policy.strategy_for("user.timezone") == "authority"
    assert not [p for p in rec.policy.strategies if p.startswith("user.pet_")], rec.policy.strategies
    assert rec.policy.strategies.get("user.timezone") == "authority"
