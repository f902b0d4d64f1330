"""Changing an entity's cardinality from `many` to `one` (QA qa2 F7): refused, naming the
entities and their values, while an entity holds active values at odds as one value; a
one-value entity never shows two current values that nothing flags (DESIGN.md §7.1)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from vault_ray import Fact, InvalidPolicy, Kind, Policy, RegistryEntry

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def say(vault, agent, entity, value, hours=0, **kw):
    fact = Fact(entity=entity, text=f"{entity} is {value}", value=value, observed_at=T0 + timedelta(hours=hours), **kw)
    return vault.agent(agent).add_facts([fact]).decisions[0]


def many(make_vault, *keys):
    policy = Policy()
    for key in keys:
        policy = policy.with_cardinality(key, "many")
    return make_vault(policy=policy)


@pytest.mark.parametrize("change", [
    lambda v: v.set_cardinality("user.sports", "one"),
    lambda v: v.patch_policy({"cardinality": {"user.sports": None}}),  # back to the default, 'one'
    lambda v: v.patch_policy({"cardinality": {"user.sports": "one"}}),
    lambda v: v.set_policy(Policy()),
])
def test_a_change_that_would_leave_two_values_on_a_one_entity_is_refused(make_vault, change):
    vault = many(make_vault, "user.sports")
    say(vault, "a", "user.sports", "tennis")
    say(vault, "b", "user.sports", "golf", hours=1)
    before = vault.policy
    with pytest.raises(InvalidPolicy) as err:
        change(vault)
    message = str(err.value)
    assert "user.sports holds 'tennis', 'golf'" in message and "retract" in message and "Nothing was changed" in message
    assert err.value.field == "cardinality"
    assert vault.policy == before and vault.policy.cardinality_for("user.sports") == "many"  # nothing changed
    view = vault.get("user.sports")
    assert sorted(view.values) == ["golf", "tennis"] and not view.contested
    # a third agent's value is still one more item, not a recency win over both
    assert say(vault, "c", "user.sports", "chess", hours=2).superseded == ()
    assert sorted(vault.get("user.sports").values) == ["chess", "golf", "tennis"]


def test_a_registered_many_entity_made_one_by_the_policy_is_refused(make_vault):
    vault = make_vault()  # user.pets is 'many' in the built-in registry
    say(vault, "a", "user.pets", "dog:Rex")
    say(vault, "b", "user.pets", "cat:Tom", hours=1)
    vault.patch_policy({"cardinality": {"user.pets": None}})  # nothing to remove: unchanged, accepted
    with pytest.raises(InvalidPolicy, match="user.pets holds 'dog:Rex', 'cat:Tom'"):
        vault.set_cardinality("user.pets", "one")
    assert vault.policy.cardinality_for("user.pets", vault.registry.cardinality("user.pets")) == "many"


def test_a_pattern_lists_every_entity_it_would_break_and_spares_the_rest(make_vault):
    vault = make_vault(policy=Policy().with_cardinality("user.*", "many"))
    say(vault, "a", "user.sports", "tennis")
    say(vault, "a", "user.sports", "golf", hours=1)  # one agent's two items
    say(vault, "a", "user.likes", "likes:jazz")
    say(vault, "b", "user.likes", "likes:blues")
    say(vault, "a", "user.city", "Lisbon")
    say(vault, "b", "user.city", "Lisbon")  # agreeing: corroboration, no conflict under 'one'
    say(vault, "a", "user.trips", "Paris", kind=Kind.EPISODIC)
    say(vault, "a", "user.trips", "Rome", hours=1, kind=Kind.EPISODIC)  # events never count
    with pytest.raises(InvalidPolicy) as err:
        vault.set_cardinality("user.*", "one")
    message = str(err.value)
    assert "2 entities" in message and "user.sports holds 'tennis', 'golf'" in message
    assert "user.likes holds 'likes:jazz', 'likes:blues'" in message
    assert "user.location" not in message and "user.trips" not in message
    with pytest.raises(InvalidPolicy, match="user.sports holds") as err:
        vault.set_policy(Policy(default_cardinality="one"))  # the default too, where no pattern keeps it 'many'
    assert "user.likes" not in str(err.value)  # 'many' in the built-in registry: unchanged
    vault.patch_policy({"cardinality": {"user.likes": "many", "user.sports": "many"}})
    vault.set_cardinality("user.*", "one")  # what would break stays 'many' by its own key: accepted
    assert vault.policy.cardinality_for("user.location") == "one" and vault.policy.cardinality_for("user.likes") == "many"


def test_after_retracting_the_values_that_no_longer_hold_the_change_goes_through(make_vault):
    vault = many(make_vault, "user.pets")
    say(vault, "a", "user.pets", "dog:Rex")
    tom = say(vault, "b", "user.pets", "cat:Tom", hours=1)
    vault.retract(tom.claim_id, decided_by="user")
    vault.set_cardinality("user.pets", "one")
    assert vault.policy.cardinality_for("user.pets") == "one" and vault.get("user.pets").values == ("dog:Rex",)
    # now one value: another agent's other value meets the strategy (recency: the newer wins)
    d = say(vault, "c", "user.pets", "hamster", hours=2)
    assert vault.get("user.pets").values == ("hamster",) and len(d.superseded) == 1


def test_one_active_value_beside_an_open_item_dispute_is_no_obstacle(make_vault):
    vault = many(make_vault, "user.music")
    vault.set_strategy("user.music", "authority")
    say(vault, "a", "user.music", "likes:jazz")
    opened = say(vault, "b", "user.music", "dislikes:jazz", hours=1)  # equal weights: a dispute
    blues = say(vault, "a", "user.music", "likes:blues", hours=2)
    assert opened.dispute_id is not None
    with pytest.raises(InvalidPolicy, match="user.music holds 'likes:jazz', 'likes:blues'"):
        vault.set_cardinality("user.music", "one")
    vault.retract(blues.claim_id, decided_by="user")
    vault.set_cardinality("user.music", "one")  # one active value, its challenger parked: a valid 'one' entity
    view = vault.get("user.music")
    assert [c.value for c in view.active] == ["likes:jazz"] and view.contested
    assert sorted(view.values) == ["dislikes:jazz", "likes:jazz"]
    assert vault.dispute(opened.dispute_id).status.value == "open"


def test_one_to_many_and_other_changes_are_not_checked_against_claims(make_vault):
    vault = make_vault(policy=Policy(default_strategy="authority"))
    say(vault, "a", "user.diet", "vegan")
    d = say(vault, "b", "user.diet", "not:vegan", hours=1)
    vault.set_cardinality("user.diet", "many")  # widening never leaves values at odds uncontested
    vault.set_strategy("user.diet", "recency")
    assert vault.dispute(d.dispute_id).status.value == "open" and vault.get("user.diet").contested
    vault.set_cardinality("user.pets", "one")
    say(vault, "b", "user.pets", "dog:rex")
    other = say(vault, "c", "user.pets", "cat:tom", hours=1)  # two items once widened: kept both (widen.py)
    vault.set_cardinality("user.pets", "many")
    assert not vault.get("user.pets").contested and vault.dispute(other.dispute_id).resolution.keep_both


def test_a_registry_entry_that_makes_an_entity_one_is_refused_too(make_vault):
    vault = make_vault()
    vault.register(RegistryEntry("user.instruments", "instruments the user plays", cardinality="many"))
    say(vault, "a", "user.instruments", "piano")
    say(vault, "b", "user.instruments", "guitar", hours=1)
    with pytest.raises(InvalidPolicy, match="user.instruments holds 'piano', 'guitar'"):
        vault.register(RegistryEntry("user.instruments", "the one instrument the user plays", cardinality="one"))
    assert vault.registry.cardinality("user.instruments") == "many"
    assert sorted(vault.get("user.instruments").values) == ["guitar", "piano"]


def test_the_refusal_over_http_is_a_422_naming_the_entity(make_vault, tmp_path):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from vault_ray.actors.serve.app import create_app
    from vault_ray.actors.serve.service import local_service
    from vault_ray.tokens import TokenStore

    vault = many(make_vault, "user.pets")
    say(vault, "a", "user.pets", "dog:Rex")
    say(vault, "b", "user.pets", "cat:Tom", hours=1)
    vault.register(RegistryEntry("user.instruments", "instruments the user plays", cardinality="many"))
    say(vault, "a", "user.instruments", "piano")
    say(vault, "b", "user.instruments", "guitar", hours=1)
    tokens = TokenStore(tmp_path / "tokens.json")
    admin = {"Authorization": f"Bearer {tokens.add('ops', 'admin')[0]}"}
    with TestClient(create_app(local_service(vault, tokens))) as http:
        refused = http.put("/v1/registry/user.instruments", json={"description": "the instrument", "cardinality": "one"},
                           headers=admin)
        assert refused.status_code == 422 and "user.instruments holds 'piano', 'guitar'" in refused.text, refused.text
        assert vault.registry.cardinality("user.instruments") == "many"
        before = vault.policy
        whole = {k: v for k, v in before.to_dict().items() if k != "version"}
        whole["cardinality"] = {**whole["cardinality"], "user.pets": "one"}
        for call in (lambda: http.patch("/v1/policy", json={"cardinality": {"user.pets": "one"}}, headers=admin),
                     lambda: http.put("/v1/policy", json=whole, headers=admin),
                     lambda: http.post("/v1/policy/cardinality", json={"pattern": "user.pets", "cardinality": "one"},
                                       headers=admin)):
            refused = call()
            assert refused.status_code == 422 and refused.json()["type"].endswith("InvalidPolicy"), refused.text
            assert "user.pets" in refused.text and "dog:Rex" in refused.text
        assert vault.policy == before


def test_opening_the_store_with_such_a_policy_is_refused_and_keeps_the_saved_one(make_vault, tmp_path):
    from vault_ray import HashingEmbedder, Vault

    vault = many(make_vault, "user.sports")
    say(vault, "a", "user.sports", "tennis")
    say(vault, "b", "user.sports", "golf", hours=1)
    saved = vault.policy
    vault.close()
    with pytest.raises(InvalidPolicy, match="user.sports holds 'tennis', 'golf'"):
        Vault.open(tmp_path / "store", embedder=HashingEmbedder(), policy=Policy(default_strategy="authority"))
    with Vault.open(tmp_path / "store", embedder=HashingEmbedder()) as again:  # not locked, nothing changed
        assert again.policy == saved and sorted(again.get("user.sports").values) == ["golf", "tennis"]


def test_policy_apply_refuses_it_in_a_dry_run_too(make_vault, tmp_path):
    import json

    from typer.testing import CliRunner

    from vault_ray.cli import app

    vault = many(make_vault, "user.sports")
    say(vault, "a", "user.sports", "tennis")
    say(vault, "b", "user.sports", "golf", hours=1)
    vault.close()
    store = str(tmp_path / "store")
    data = json.loads(CliRunner().invoke(app, ["policy", "show", "--store", store]).stdout)
    data["policy"]["cardinality"] = {"user.sports": "one"}
    (tmp_path / "p.json").write_text(json.dumps(data))
    for flags in (["--dry-run"], []):
        done = CliRunner().invoke(app, ["policy", "apply", str(tmp_path / "p.json"), "--store", store, *flags],
                                  env={"COLUMNS": "200"})
        said = " ".join(done.output.split())
        assert done.exit_code == 2 and "user.sports holds 'tennis', 'golf'" in said, said
    shown = json.loads(CliRunner().invoke(app, ["policy", "show", "--store", store]).stdout)
    assert shown["policy"]["cardinality"] == {"user.sports": "many"}
