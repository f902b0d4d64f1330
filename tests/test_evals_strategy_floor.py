"""QA9 F9: `eval --from-store --recommend` changes a strategy only on evidence: a pattern with
fewer than MIN_ENTITIES labelled entities, or whose candidates are all equally accurate, keeps
the strategy the user set, and the notes say so."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from vault_ray import Fact, HashingEmbedder, Policy, Vault
from vault_ray.cli import app
from vault_ray.evals.labels import recommend_from_store
from vault_ray.evals.recommend import MIN_ENTITIES, choose, choose_with_floor
from vault_ray.evals.weights import FIT, entity_half
from vault_ray.policy_file import read_policy_file

T0 = 1_700_000_000.0


def totals(entities: int, **accuracy: tuple[float, int]) -> dict[tuple[str, str], dict[str, float]]:
    """(strategy, pattern) -> counts: `strategy__pattern=(accuracy, disputes)` over `entities`."""
    out = {}
    for key, (acc, disputes) in accuracy.items():
        strategy, pattern = key.split("__")
        out[(strategy, pattern.replace("_", "."))] = {
            "final_correct": acc * entities, "entities": entities, "reads_correct": 0, "reads": 0,
            "disputes": disputes, "writes": entities}
    return out


@pytest.mark.parametrize("entities", [1, 2, MIN_ENTITIES - 1])
def test_too_few_labelled_entities_keep_the_current_strategy(entities):
    current = Policy(strategies={"user.timezone": "authority"})
    found = totals(entities, recency__user_timezone=(1.0, 0), authority__user_timezone=(0.0, 1),
                   consensus__user_timezone=(0.0, 1))
    choices, default, notes = choose_with_floor(found, current)
    (c,) = choices
    assert (c.chosen, c.current) == ("authority", "authority") and "labelled entit" in c.kept
    assert default == "recency"  # the default was recency already
    assert notes and "`user.timezone` (authority:" in notes[0] and str(MIN_ENTITIES) in notes[0]
    assert choose(found, current)[0][0].chosen == "recency"  # synthetic runs (no floor) still switch


def test_a_tie_on_accuracy_keeps_the_current_strategy_whatever_the_disputes():
    current = Policy(default_strategy="consensus", strategies={"user.schedule.*": "authority"})
    found = totals(40, recency__user_schedule_x=(0.9, 0), authority__user_schedule_x=(0.9, 12),
                   consensus__user_schedule_x=(0.9, 6))
    found = {(s, "user.schedule.*"): t for (s, _), t in found.items()}
    choices, default, notes = choose_with_floor(found, current)
    assert choices[0].chosen == "authority" and choices[0].kept == "every candidate equally accurate"
    assert default == "consensus" and "the default `*` (consensus: every candidate equally accurate)" in notes[0]


def test_enough_evidence_and_a_difference_change_the_strategy():
    current = Policy(strategies={"user.diet": "authority"})
    found = totals(MIN_ENTITIES, recency__user_diet=(0.8, 0), authority__user_diet=(0.6, 2), consensus__user_diet=(0.6, 2))
    choices, default, notes = choose_with_floor(found, current)
    assert choices[0].chosen == "recency" and not choices[0].kept and not notes


def fit_keys(candidates: list[str], n: int) -> list[str]:
    keys = [k for k in candidates if entity_half(k) == FIT][:n]
    assert len(keys) == n, "not enough fit-half keys to build the store"
    return keys


def disputed_store(path, keys: list[str], strategy_of: dict[str, str]) -> None:
    """Two agents of equal weight contradict each other on each key; a person sides with the later one."""
    with Vault.open(path, embedder=HashingEmbedder(64)) as v:
        for pattern, strategy in strategy_of.items():
            v.set_strategy(pattern, strategy)
        for i, key in enumerate(keys):
            v.agent("scheduler").add_facts([Fact(key, f"{key} is v{i}a", value=f"v{i}a", observed_at=T0 + i)],
                                           resolve=False)
            v.agent("chat").add_facts([Fact(key, f"{key} is v{i}b", value=f"v{i}b", observed_at=T0 + 600 + i)],
                                      resolve=False)
        for d in v.disputes():
            v.resolve_dispute(d.id, next(c for c in (d.challenger, *d.incumbents) if v.claim(c).agent == "chat"),
                              decided_by="user")


@pytest.mark.parametrize(("pattern", "keys"), [
    ("user.timezone", ["user.timezone"]),
    ("user.schedule.*", [f"user.schedule.{w}" for w in ("gym", "dentist", "yoga", "swim", "piano", "chess", "golf")]),
])
def test_a_store_keeps_the_strategy_the_user_set_on_one_or_two_labelled_entities(tmp_path, pattern, keys):
    keys = fit_keys(keys, 1 if pattern == "user.timezone" else 2)
    disputed_store(tmp_path / "s", keys, {pattern: "authority"})
    rec = recommend_from_store(tmp_path / "s", resamples=50)
    (c,) = [c for c in rec.choices if c.pattern == pattern]
    assert c.current == "authority" and c.chosen == "authority" and c.kept, c
    assert rec.policy.strategy_for(keys[0]) == "authority"
    assert any(f"`{pattern}` (authority:" in n for n in rec.notes), rec.notes


def test_cli_from_store_recommend_says_which_strategies_stay(tmp_path):
    (key,) = fit_keys(["user.timezone", "user.tz", "user.zone", "user.home_zone"], 1)
    disputed_store(tmp_path / "s", [key], {key: "authority"})
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["eval", "--from-store", str(tmp_path / "s"), "--out", str(out), "--recommend",
                                      "--policies", "store"], env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert f"`{key}` (authority: 1 labelled entity)" in text, text
    assert read_policy_file(out / "proposal.json").strategy_for(key) == "authority"
    (row,) = [p for p in json.loads((out / "proposal.json").read_text())["proposal"]["patterns"] if p["pattern"] == key]
    assert row["strategy"] == "authority" and row["kept"] == "1 labelled entity"
    assert "(kept: 1 labelled entity)" in (out / "from_store.md").read_text()
