"""One fact of a batch over an agent's dispute cap (QA qa8 F8): the error names that fact (its
index and entity) and says that nothing of the write was stored, and that the open disputes wait
for a resolver or a person (an agent token cannot resolve them), in Python and over HTTP."""

from __future__ import annotations

import httpx
import pytest

from vault_ray import DisputeCapExceeded, Fact, Policy, VaultClient

PETS = ["dog:Rex", "cat:Tom", "dog:Max", "dog:Fido"]
OTHERS = [Fact("user.email", "email is a@b.com", value="a@b.com"), Fact("user.phone", "phone 555-1234", value="555-1234"),
          Fact("user.employer", "works at Acme", value="Acme")]


def capped(vault):
    """crm holds 3 open challenges on user.pets (the cap), each parked under authority."""
    vault.set_strategy("user.*", "authority")
    vault.set_authority("session", "*", 0.9)
    vault.set_authority("crm", "*", 0.3)
    vault.agent("session").add_facts([Fact("user.pets", f"has a {p}", value=p) for p in PETS])
    for pet in PETS[:3]:
        vault.agent("crm").add_facts([Fact("user.pets", f"{pet} died", value=f"{pet} (died)")])
    assert len(vault.disputes()) == 3
    return Fact("user.pets", "Fido died", value="dog:Fido (died)")


@pytest.mark.parametrize("at", [0, 2, 3])
def test_the_error_names_the_fact_and_says_nothing_of_the_batch_was_written(make_vault, at):
    vault = make_vault(policy=Policy(cardinality={"user.pets": "many"}))
    fourth = capped(vault)
    batch = [*OTHERS[:at], fourth, *OTHERS[at:]]
    with pytest.raises(DisputeCapExceeded) as caught:
        vault.agent("crm").add_facts(batch)
    e = caught.value
    assert (e.index, e.batch, e.entity, e.agent, e.cap) == (at, 4, "user.pets", "crm", 3)
    said = str(e)
    assert f"fact {at} ('user.pets'" in said and "nothing of this write (4 facts) was written" in said
    assert "wait for a resolver or a person" in said and "resolve them first" not in said
    assert all(vault.get(f.entity).values == () for f in OTHERS)  # as it says: none of the others stored
    assert len(vault.disputes()) == 3


def test_a_single_fact_over_the_cap_says_the_write_was_not_stored(make_vault):
    vault = make_vault(policy=Policy(cardinality={"user.pets": "many"}))
    with pytest.raises(DisputeCapExceeded, match="this write was not stored.*resolver or a person"):
        vault.agent("crm").add_facts([capped(vault)])
    assert len(vault.disputes()) == 3


def test_over_http_the_problem_names_the_fact(served_app):
    vault = served_app.vault
    vault.set_policy(Policy(cardinality={"user.pets": "many"}))
    fourth = capped(vault)
    token = served_app.token("crm")
    body = {"facts": [{"entity": f.entity, "text": f.text, "value": f.value} for f in (OTHERS[0], fourth)]}
    answer = httpx.post(f"{served_app.url}/v1/facts", json=body, headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 409
    problem = answer.json()
    assert (problem["index"], problem["batch"], problem["entity"]) == (1, 2, "user.pets")
    assert "nothing of this write (2 facts) was written" in problem["detail"]
    with VaultClient(served_app.url, token) as client, pytest.raises(DisputeCapExceeded) as caught:
        client.add_facts([OTHERS[1], fourth])
    assert (caught.value.index, caught.value.batch) == (1, 2)
    assert vault.get("user.email").values == vault.get("user.phone").values == ()
