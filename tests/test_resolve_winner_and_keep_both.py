"""A resolution that names a winner and sets keep_both gives two instructions that contradict each
other (a winner supersedes the other values, keep_both keeps them all): refused as InvalidInput (422
over HTTP, exit 2 on the command line) on a 'one' entity and on a 'many' one alike, before anything is
read, and nothing changes. Either instruction alone still works."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest
from typer.testing import CliRunner

from vault_ray import Fact, InvalidInput, Policy, VaultClient
from vault_ray.cli import app

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
AUTHORITY = Policy(default_strategy="authority", authority={"owner": {"*": 0.9}, "chat": {"*": 0.2}})
CASES = [("user.diet", "vegan", "vegetarian"),  # 'one'
         ("user.likes", "likes:jazz", "dislikes:jazz")]  # 'many': a like and a dislike may be kept both


def dispute(vault, entity: str, first: str, second: str) -> tuple[str, str, str]:
    """(dispute id, incumbent, challenger) of an open dispute on `entity`."""
    (inc,) = vault.agent("owner").add_facts([Fact(entity, f"{entity} is {first}", first, observed_at=T0)]).decisions
    (ch,) = vault.agent("chat").add_facts([Fact(entity, f"{entity} is {second}", second,
                                                observed_at=T0 + timedelta(seconds=10))]).decisions
    assert ch.outcome == "disputed", ch
    return ch.dispute_id, inc.claim_id, ch.claim_id


def state(vault, entity: str):
    return (sorted((c.id, c.status, c.superseded_by) for c in vault.claims()),
            sorted((d.id, d.status) for d in vault.disputes(None)), len(vault.events()), vault.get(entity).values)


@pytest.mark.parametrize(("entity", "first", "second"), CASES)
def test_a_winner_with_keep_both_is_refused_on_either_cardinality_and_changes_nothing(make_vault, entity, first, second):
    vault = make_vault(policy=AUTHORITY)
    dispute_id, incumbent, challenger = dispute(vault, entity, first, second)
    before = state(vault, entity)
    for winner in (incumbent, challenger):
        with pytest.raises(InvalidInput, match="give a winner or keep_both, not both") as refused:
            vault.resolve_dispute(dispute_id, winner, decided_by="dana", keep_both=True)
        assert winner in str(refused.value) and "cardinality" not in str(refused.value)
        assert state(vault, entity) == before and vault.dispute(dispute_id).status == "open"
    with pytest.raises(InvalidInput, match="not both"):  # before anything is read: an unknown dispute too
        vault.resolve_dispute("dsp-0-missing", challenger, decided_by="dana", keep_both=True)
    done = vault.resolve_dispute(dispute_id, challenger, decided_by="dana")  # the winner alone works
    assert done.resolution.winner == challenger and not done.resolution.keep_both


def test_keep_both_alone_still_keeps_both_values_of_a_many_entity(make_vault):
    vault = make_vault(policy=AUTHORITY)
    dispute_id, _, _ = dispute(vault, "user.likes", "likes:jazz", "dislikes:jazz")
    done = vault.resolve_dispute(dispute_id, None, decided_by="dana", keep_both=True)
    assert done.resolution.keep_both and done.resolution.winner is None
    assert sorted(vault.get("user.likes").values) == ["dislikes:jazz", "likes:jazz"]


@pytest.mark.parametrize(("entity", "first", "second"), CASES)
def test_over_http_a_winner_with_keep_both_is_a_422_and_the_schema_says_one_of_them(served_app, entity, first, second):
    vault = served_app.vault
    vault.set_policy(AUTHORITY)
    dispute_id, incumbent, challenger = dispute(vault, entity, first, second)
    before = state(vault, entity)
    person = served_app.token("dana", "resolver")
    url = f"{served_app.url}/v1/disputes/{dispute_id}/resolve"
    answer = httpx.post(url, headers={"Authorization": f"Bearer {person}"},
                        json={"winner": incumbent, "keep_both": True}, timeout=60)
    assert answer.status_code == 422, answer.text
    problem = answer.json()
    assert problem["type"].endswith(":InvalidInput") and "give a winner or keep_both, not both" in problem["detail"]
    with VaultClient(served_app.url, person) as client, pytest.raises(InvalidInput, match="not both"):
        client.resolve_dispute(dispute_id, challenger, keep_both=True)
    assert state(vault, entity) == before
    schema = httpx.get(f"{served_app.url}/openapi.json", timeout=60).json()["components"]["schemas"]["ResolveIn"]
    assert len(schema["oneOf"]) == 2 and "anyOf" not in schema
    with VaultClient(served_app.url, person) as client:
        assert client.resolve_dispute(dispute_id, incumbent).resolution.winner == incumbent
    assert vault.get(entity).values == (first,)


def test_the_resolve_command_refuses_both_with_exit_code_2(make_vault, tmp_path):
    vault = make_vault(policy=AUTHORITY)
    dispute_id, incumbent, _ = dispute(vault, "user.diet", "vegan", "vegetarian")
    vault.close()
    result = CliRunner().invoke(app, ["resolve", dispute_id, "--winner", incumbent, "--keep-both",
                                      "--store", str(tmp_path / "store"), "--hashing"], env={"COLUMNS": "300"})
    assert result.exit_code == 2 and "not both" in result.output, result.output
