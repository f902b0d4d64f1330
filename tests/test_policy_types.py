"""A numeric policy setting given as a string (from a config file or an environment variable)
is refused with its type named, not as out of range (qa4 finding 7: `set_authority(agent,
pattern, "0.9")` said the weight "must be in [0, 1], got '0.9'"); nothing changes."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from vault_ray import InvalidPolicy, Policy, RateLimit
from vault_ray.cli import app


def test_a_string_authority_weight_is_named_as_a_string(vault):
    before = vault.policy
    with pytest.raises(InvalidPolicy, match=r"authority weight must be a number in \[0, 1\], got the string '0.9' "
                                            r"\(give the number itself, not a string\)"):
        vault.set_authority("chat", "user.timezone", "0.9")
    with pytest.raises(InvalidPolicy, match=r"must be a number in \[0, 1\], got the string 'high'$"):
        vault.set_authority("chat", "user.*", "high")
    with pytest.raises(InvalidPolicy, match=r"must be a number in \[0, 1\], got 1.5$"):
        vault.set_authority("chat", "user.timezone", 1.5)  # a number out of range still reads as such
    assert vault.policy == before
    vault.set_authority("chat", "user.timezone", 0.9)
    assert vault.policy.weight("chat", "user.timezone") == 0.9


@pytest.mark.parametrize(("patch", "says"), [
    ({"default_weight": "0.5"}, "default_weight must be a number in [0, 1], got the string '0.5'"),
    ({"half_life_days": "30"}, "half_life_days must be a positive number, got the string '30'"),
    ({"consensus_margin": "1"}, "consensus_margin must be a non-negative number, got the string '1'"),
    ({"max_open_disputes": "10"}, "max_open_disputes must be an integer of at least 1, got the string '10'"),
    ({"max_text": 2.5}, "max_text must be an integer of at least 1, got 2.5"),
    ({"rate_limit": {"rate": "2", "burst": 5}}, "rate_limit.rate must be a positive number, got the string '2'"),
    ({"authority": {"chat": {"user.*": "0.3"}}}, "authority weight must be a number in [0, 1], got the string '0.3'"),
])
def test_patch_policy_names_a_string_setting(vault, patch, says):
    before = vault.policy
    with pytest.raises(InvalidPolicy) as caught:
        vault.patch_policy(patch)
    assert says in str(caught.value)
    assert vault.policy == before


def test_built_parts_and_policy_files_say_the_same(tmp_path, vault):
    with pytest.raises(InvalidPolicy, match="rate_limit.burst must be an integer of at least 1, got the string '5'"):
        RateLimit(rate=1.0, burst="5")
    with pytest.raises(InvalidPolicy, match="half_life_days must be a positive number, got None"):
        Policy(half_life_days=None)
    vault.close()
    store = tmp_path / "store"
    path = tmp_path / "policy.json"
    path.write_text(json.dumps({"format": "vault-ray-policy", "version": 1,
                                "policy": {"authority": {"scheduler": {"user.timezone": "0.9"}}}}))
    got = CliRunner().invoke(app, ["policy", "apply", str(path), "--store", str(store), "--hashing"])
    said = " ".join(got.output.split())
    assert got.exit_code != 0 and "got the string '0.9' (give the number itself, not a string)" in said, said
