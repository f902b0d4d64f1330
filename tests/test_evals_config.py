"""EvalConfig: the `mixed` policy's per-entity strategies come from the config."""

from __future__ import annotations

import json

import pytest

from vault_ray.evals.config import EvalConfig, GeneratorConfig, load_config, parse_mixed
from vault_ray.evals.handmade import scenarios_table, three_write_examples
from vault_ray.evals.policies import build_policy
from vault_ray.evals.replay import replay_block
from vault_ray.evals.scenario import scenarios_from_arrow
from vault_ray.policy import DEFAULT_HIGH_STAKES

GEN = GeneratorConfig()

CUSTOM = """
[eval]
judge_accuracy = 1.0
mixed_on_ambiguous = "dispute"

[eval.mixed]
user.location = "authority"      # unquoted: TOML reads nested tables, joined back into the key
"user.schedule.*" = "consensus"
"user.diet" = "judge"
"*" = "authority"
"""


@pytest.fixture(scope="module")
def examples():
    return scenarios_from_arrow(scenarios_table(three_write_examples()))


def test_defaults_are_the_documented_mixed_policy():
    policy = build_policy("mixed", GEN, EvalConfig()).policy
    assert policy.default_strategy == "recency" and policy.default_on_ambiguous == "judge"
    assert policy.strategies == {"user.timezone": "authority", "user.schedule.*": "authority",
                                 "user.payment.*": "authority", "user.location": "recency", "user.diet": "judge"}
    assert build_policy("mixed", GEN, EvalConfig()).uses_judge


def test_config_file_mixed_table_gives_the_policy(tmp_path):
    path = tmp_path / "world.toml"
    path.write_text(CUSTOM)
    _, ev = load_config(path)
    assert ev.mixed == {"user.location": "authority", "user.schedule.*": "consensus", "user.diet": "judge",
                        "*": "authority"}
    spec = build_policy("mixed", GEN, ev)
    assert spec.policy.default_strategy == "authority" and spec.policy.default_on_ambiguous == "dispute"
    assert spec.policy.strategies == {"user.location": "authority", "user.schedule.*": "consensus",
                                      "user.diet": "judge"}
    assert spec.policy.strategy_for("user.schedule.gym") == "consensus"
    assert spec.policy.strategy_for("user.timezone") == "authority"
    assert spec.uses_judge  # user.diet


def test_json_config_and_round_trip(tmp_path):
    path = tmp_path / "world.json"
    path.write_text(json.dumps({"eval": {"mixed": {"user.diet": "recency", "*": "judge"}}}))
    _, ev = load_config(path)
    assert ev.mixed == {"user.diet": "recency", "*": "judge"}
    # run.json and the Ray job carry EvalConfig as a dict (through JSON): it must rebuild equal
    assert EvalConfig(**ev.to_dict()) == ev
    assert EvalConfig(**json.loads(json.dumps(ev.to_dict()))) == ev
    assert EvalConfig(**EvalConfig().to_dict()) == EvalConfig()


@pytest.mark.parametrize("name", ["authority", "consensus", "recency", "judge"])
def test_mixed_with_one_default_strategy_decides_as_that_policy(name, examples):
    ev = EvalConfig(judge_accuracy=1.0, mixed={"*": name}, mixed_on_ambiguous="dispute")
    mixed = replay_block(examples, build_policy("mixed", GEN, ev), ev)
    alone = replay_block(examples, build_policy(name, GEN, ev), ev)
    assert mixed == alone
    if name == "authority":
        assert [c["disputes"] for c in mixed] == [1, 1, 1] and [c["final_correct"] for c in mixed] == [1, 1, 1]


def test_mixed_per_entity_choice_reaches_the_replay(examples):
    # scenario 1 is user.timezone, 2 user.schedule.gym: judge on the first only
    ev = EvalConfig(judge_accuracy=1.0, mixed={"user.timezone": "judge", "*": "recency"})
    counts = replay_block(examples, build_policy("mixed", GEN, ev), ev)
    judge = replay_block(examples, build_policy("judge", GEN, ev), ev)
    recency = replay_block(examples, build_policy("recency", GEN, ev), ev)
    assert counts[0] == judge[0] and counts[1] == recency[1]
    assert [c["judge_calls"] for c in counts] == [1, 0, 0]


@pytest.mark.parametrize(("mixed", "on_ambiguous", "near", "expected"), [
    ({"*": "authority"}, "judge", 60.0, False),  # on_ambiguous only applies under recency
    ({"*": "recency"}, "judge", 60.0, True),
    ({"*": "recency"}, "judge", 0.0, False),  # no near-simultaneous window: never ambiguous
    ({"*": "recency"}, "dispute", 60.0, False),
    ({"user.diet": "judge", "*": "authority"}, "dispute", 60.0, True),
    ({"user.payment.*": "judge", "*": "authority"}, "dispute", 60.0, False),  # high stakes: always the user
    ({"user.payment.method": "judge", "*": "consensus"}, "dispute", 60.0, False),
    ({"user.payment": "judge", "*": "consensus"}, "dispute", 60.0, False),  # user.payment.* matches user.payment too
    ({"user.payments": "judge", "*": "consensus"}, "dispute", 60.0, True),  # but not a longer word
    ({"*": "judge"}, "dispute", 60.0, True),
])
def test_uses_judge_iff_the_judge_can_be_consulted(mixed, on_ambiguous, near, expected):
    assert "user.payment.*" in DEFAULT_HIGH_STAKES
    ev = EvalConfig(mixed=mixed, mixed_on_ambiguous=on_ambiguous, near_simultaneous_s=near)
    assert build_policy("mixed", GEN, ev).uses_judge is expected


@pytest.mark.parametrize(("mixed", "match"), [
    ({"user.diet": "newest"}, r"strategy for 'user.diet' must be one of recency, authority, consensus, judge"),
    ({"User.Diet": "judge"}, r"invalid pattern 'User.Diet'"),
    ({"user.*.diet": "judge"}, r"invalid pattern 'user.\*.diet'"),
    ({"": "judge"}, r"pattern must be a non-empty string"),
    (["user.diet", "judge"], r"mixed must be a table"),
])
def test_bad_mixed_entries_are_value_errors(mixed, match):
    with pytest.raises(ValueError, match=match):
        EvalConfig(mixed=mixed)


def test_bad_on_ambiguous_and_unknown_keys(tmp_path):
    with pytest.raises(ValueError, match="mixed_on_ambiguous must be one of dispute, judge"):
        EvalConfig(mixed_on_ambiguous="ask")
    path = tmp_path / "world.toml"
    path.write_text("[eval]\njudge_acuracy = 0.8\nblok_size = 10\n")
    with pytest.raises(ValueError, match=r"unknown eval settings: \['blok_size', 'judge_acuracy'\]"):
        load_config(path)
    path.write_text('[eval.mixed]\n"user.timezone" = "authority"\nuser.timezone = "judge"\n')
    with pytest.raises(ValueError, match="given twice"):
        load_config(path)


def test_parse_mixed():
    assert parse_mixed("user.timezone=authority, user.diet = judge,*=recency") == {
        "user.timezone": "authority", "user.diet": "judge", "*": "recency"}
    assert EvalConfig(mixed=parse_mixed("*=consensus")).mixed == {"*": "consensus"}


@pytest.mark.parametrize(("spec", "match"), [
    ("", "no pattern=strategy entry"),
    ("user.timezone", r"'user.timezone' is not pattern=strategy"),
    ("user.timezone=", r"'user.timezone=' is not pattern=strategy"),
    ("=judge", r"'=judge' is not pattern=strategy"),
    ("user.diet=judge,user.diet=recency", "'user.diet' is given twice"),
    ("user.diet=best", "strategy for 'user.diet' must be one of"),
    ("user diet=judge", "invalid pattern 'user diet'"),
])
def test_parse_mixed_errors(spec, match):
    with pytest.raises(ValueError, match=match) as raised:
        parse_mixed(spec)
    assert str(raised.value).startswith("--mixed: "), "the command line's option, as the user typed it"


@pytest.mark.parametrize(("args", "message"), [
    (["--embedder", "word2vec"], "embedder must be one of hashing, local"),
    (["--mixed", "user.diet=coinflip"], "coinflip"),
    (["--mixed", "user.diet"], "user.diet"),
    (["--policies", "lww,nope"], "unknown policy"),
    (["--embedder", "local", "--num-cpus", "1"], "needs at least 2 Ray CPUs"),
    (["--current", "{policy}"], "give --recommend too"),
    (["--recommend", "--current", "{policy}"], "default_strategy must be one of"),
])
def test_cli_eval_refuses_bad_settings_before_any_work(tmp_path, args, message):
    """A bad setting exits 2 with the reason, before scenarios are generated or Ray starts."""
    from typer.testing import CliRunner

    from vault_ray.cli import app

    out = tmp_path / "out"
    policy = tmp_path / "policy.json"
    policy.write_text('{"policy": {"default_strategy": "newest"}}')
    args = [a.replace("{policy}", str(policy)) for a in args]
    result = CliRunner().invoke(app, ["eval", "-n", "5", "--out", str(out), *args])
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.output.split())
    assert not (out / "scenarios").exists()


def test_the_report_names_the_text_vectors_and_the_mixed_table():
    from vault_ray.evals.report import settings_lines

    ev = EvalConfig(embedder="local", embed_actors=2, mixed={"user.diet": "judge", "*": "authority"})
    text = "\n".join(settings_lines(ev.to_dict(), ["lww", "mixed"]))
    assert "the local model (all-MiniLM-L6-v2, 384 dims) in a Ray Data actor pool of 2" in text
    assert "`mixed`: `user.diet` judge, `*` authority; near-simultaneous writes under recency: judge." in text
    plain = "\n".join(settings_lines(EvalConfig().to_dict(), ["lww", "authority"]))
    assert "the hashing embedder (256 dims)" in plain and "mixed" not in plain


@pytest.mark.parametrize(("text", "match"), [
    ('[generator]\nseed = "x"\n', r"\[generator\] seed must be a whole number, got 'x'"),
    ("[eval]\njudge_accuracy = \"high\"\n", r"\[eval\] judge_accuracy must be a number"),
    ("[eval]\nblock_size = true\n", r"\[eval\] block_size must be a whole number"),
    ("[eval\njudge_accuracy = 0.8\n", r"config .*world.toml: "),  # a syntax error names the file
    ("generator = 3\n", "expected \\[generator\\] and \\[eval\\] tables"),
])
def test_a_config_value_of_the_wrong_kind_is_named(tmp_path, text, match):
    path = tmp_path / "world.toml"
    path.write_text(text)
    with pytest.raises(ValueError, match=match):
        load_config(path)


def test_a_failed_eval_leaves_no_empty_output_directory(tmp_path):
    from typer.testing import CliRunner

    from vault_ray.cli import app

    bad = tmp_path / "bad.toml"
    bad.write_text('[generator]\nseed = "x"\n')
    for args in (["--config", str(bad)], ["--policies", " , "]):
        out = tmp_path / "never"
        result = CliRunner().invoke(app, ["eval", "-n", "4", "--out", str(out), *args])
        assert result.exit_code == 2 and "error" in result.output and not out.exists(), result.output
    assert "names no policy" in result.output
