"""Bad input on the service surfaces (QA round qa1, L1-L5, L7): each is a clear error of the
VaultError tree, and nothing changes."""

from __future__ import annotations

import httpx
import pytest
from typer.testing import CliRunner

from vault_ray import Fact, InvalidInput, InvalidPolicy, Policy, VaultClient
from vault_ray.cli import app
from vault_ray.errors import DisputeError
from vault_ray.registry import MAX_ALIASES, MAX_DESCRIPTION, MAX_EXAMPLE, MAX_EXAMPLES, RegistryEntry

pytest.importorskip("fastapi")


def _as(app_, token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


# -- L1: a reserved agent name is refused wherever the policy takes one --------------------------

@pytest.mark.parametrize("name", ["rule:x", "strategy:consensus", "Rule:Stale"])
def test_authority_for_a_reserved_agent_name_is_refused_over_http_and_changes_nothing(served_app, name):
    admin = served_app.token("ops", "admin")
    before = httpx.get(f"{served_app.url}/v1/policy", headers=_as(served_app, admin)).json()
    for method, path, body in (
            ("POST", "/v1/policy/authority", {"agent": name, "pattern": "user.x", "weight": 0.5}),
            ("PATCH", "/v1/policy", {"authority": {name: {"user.x": 0.5}}}),
            ("PUT", "/v1/policy", {**before, "authority": {name: {"user.x": 0.5}}, "version": before["version"]})):
        answer = httpx.request(method, f"{served_app.url}{path}", json=body, headers=_as(served_app, admin))
        assert answer.status_code == 422, (method, answer.text)
        assert "reserved for the store's built-in rules" in answer.json()["detail"], answer.text
    assert httpx.get(f"{served_app.url}/v1/policy", headers=_as(served_app, admin)).json() == before


def test_the_library_refuses_a_reserved_authority_name_but_a_plain_one_works(vault):
    for change in (lambda: vault.set_authority("rule:x", "user.x", 0.5),
                   lambda: vault.patch_policy({"authority": {"strategy:y": {"*": 1.0}}}),
                   lambda: vault.set_policy(Policy(authority={"RULE:z": {"user.x": 1.0}}))):
        with pytest.raises(InvalidPolicy, match="reserved"):
            change()
    assert vault.policy.authority == {}
    vault.set_authority("scheduler", "user.x", 0.5)
    assert vault.policy.authority == {"scheduler": {"user.x": 0.5}}


# -- L2: registry entries have size limits -----------------------------------------------------

@pytest.mark.parametrize(("body", "said"), [
    ({"description": "x" * 900_000}, f"the description is 900000 characters; at most {MAX_DESCRIPTION}"),
    ({"description": "home", "examples": ["I live in " + "a" * 10_000] * 3}, f"at most {MAX_EXAMPLE}"),
    ({"description": "home", "examples": [f"I live in town {i}" for i in range(MAX_EXAMPLES + 1)]},
     f"{MAX_EXAMPLES + 1} examples; at most {MAX_EXAMPLES}"),
    ({"description": "home", "aliases": [f"user.home_{i}" for i in range(MAX_ALIASES + 1)]},
     f"{MAX_ALIASES + 1} aliases; at most {MAX_ALIASES}"),
])
def test_an_oversized_registry_entry_is_refused_and_the_registry_is_unchanged(served_app, body, said):
    admin = served_app.token("ops", "admin")
    before = httpx.get(f"{served_app.url}/v1/registry", headers=_as(served_app, admin)).json()
    answer = httpx.put(f"{served_app.url}/v1/registry/user.hometown", json=body, headers=_as(served_app, admin),
                       timeout=60)
    assert answer.status_code == 422, answer.text
    assert said in answer.json()["detail"] and "user.hometown" in answer.json()["detail"]
    assert httpx.get(f"{served_app.url}/v1/registry", headers=_as(served_app, admin)).json() == before


def test_a_registry_entry_at_the_limits_is_accepted(vault):
    entry = RegistryEntry("user.car", "d" * MAX_DESCRIPTION, "one", (),
                          tuple(f"I drive car number {i} " + "x" * (MAX_EXAMPLE - 30) for i in range(MAX_EXAMPLES)))
    vault.register(entry)
    assert vault.registry.lookup("user.car") == entry
    with pytest.raises(InvalidPolicy, match="user.car"):
        vault.register(RegistryEntry("user.car", "d" * (MAX_DESCRIPTION + 1)))
    assert vault.registry.lookup("user.car") == entry


# -- L3: a non-ASCII Idempotency-Key -----------------------------------------------------------

@pytest.mark.parametrize("route,body", [("/v1/messages", {"text": "I live in Lyon"}),
                                        ("/v1/facts", {"facts": [{"entity": "user.location", "text": "Lyon",
                                                                  "value": "Lyon"}]})])
def test_a_utf8_idempotency_key_is_refused_plainly_and_nothing_is_written(served_app, route, body):
    token = served_app.token("ag1")
    before = served_app.vault.events(since="start").cursor
    for key in ("ключ", "clé-1"):
        answer = httpx.post(f"{served_app.url}{route}", json=body, timeout=60,
                            headers={**_as(served_app, token), "Idempotency-Key": key.encode()})  # as curl sends it
        assert answer.status_code == 422, answer.text
        detail = answer.json()["detail"]
        assert "Idempotency-Key" in detail and "printable ASCII" in detail and "control character" not in detail
    assert served_app.vault.events(since="start").cursor == before
    fine = httpx.post(f"{served_app.url}{route}", json=body, headers={**_as(served_app, token), "Idempotency-Key": "k-1"},
                      timeout=60)
    assert fine.status_code == 200, fine.text


# -- L4: the client's register takes a RegistryEntry -------------------------------------------

@pytest.mark.parametrize("bad", [None, "user.car", {"key": "user.car"}])
def test_client_register_of_a_non_entry_is_invalid_input(served_app, bad):
    with VaultClient(served_app.url, served_app.token("ops", "admin")) as client:
        with pytest.raises(InvalidInput, match="register takes a RegistryEntry"):
            client.register(bad)
        assert client.register(RegistryEntry("user.car", "the user's car")).key == "user.car"


# -- L5: `up --port` in Ray's own ranges ---------------------------------------------------------

@pytest.mark.parametrize(("port", "said"), [("16479", "10002-19999"), ("10002", "10002-19999"),
                                            ("19999", "10002-19999"), ("10001", "port 10001"),
                                            ("52365", "port 52365"), ("8265", "port 8265"), ("70000", "1-65535"),
                                            ("0", "1-65535")])
def test_up_refuses_a_port_ray_takes_for_itself_in_one_line_before_starting(tmp_path, port, said):
    pytest.importorskip("ray")
    store = tmp_path / "store"
    done = CliRunner().invoke(app, ["up", "--store", str(store), "--hashing", "--port", port])
    text = " ".join(done.output.split())
    assert done.exit_code == 2, done.output
    assert said in text and "Traceback" not in text and len(done.output.strip().splitlines()) <= 4
    assert not store.exists()  # nothing started, nothing made


def test_up_help_says_which_ports_are_usable():
    text = " ".join(CliRunner().invoke(app, ["up", "--help"], env={"COLUMNS": "200"}).output.split())
    assert "10001-19999" in text and "52365" in text and "8265" in text


# -- L7: keep both on two holders of a single-valued role --------------------------------------

@pytest.mark.parametrize(("first", "second", "role"), [("wife:Anna", "wife:Sarah", "spouse"),
                                                       ("wife:Anna", "husband:Tom", "spouse"),
                                                       ("mom:Ann", "mother:Jane", "mother")])
def test_keep_both_is_refused_for_two_holders_of_one_role_and_a_winner_still_works(make_vault, first, second, role):
    vault = make_vault()
    vault.set_strategy("user.family", "authority")
    vault.set_authority("ag3", "user.family", 0.9)
    vault.agent("ag3").add_facts([Fact("user.family", f"the user's {first}", first)], resolve=False)
    (d,) = vault.agent("ag4").add_facts([Fact("user.family", f"the user's {second}", second)], resolve=False).decisions
    assert d.dispute_id
    with pytest.raises(DisputeError, match=f"single-valued role '{role}'") as refused:
        vault.resolve_dispute(d.dispute_id, None, decided_by="dana", keep_both=True)
    assert first in str(refused.value) and second in str(refused.value)
    assert vault.dispute(d.dispute_id).status == "open" and vault.get("user.family").contested  # unchanged
    vault.resolve_dispute(d.dispute_id, d.claim_id, decided_by="dana")
    assert [c.value for c in vault.get("user.family").active] == [second]


def test_keep_both_over_http_is_a_409_naming_the_role_and_the_inbox_offers_only_the_values(served_app):
    vault = served_app.vault
    vault.set_strategy("user.family", "authority")
    vault.set_authority("ag3", "user.family", 0.9)
    vault.agent("ag3").add_facts([Fact("user.family", "the user's wife is Anna", "wife:Anna")], resolve=False)
    (d,) = vault.agent("ag4").add_facts([Fact("user.family", "the user's wife is Sarah", "wife:Sarah")],
                                        resolve=False).decisions
    person = served_app.token("dana", "resolver")
    answer = httpx.post(f"{served_app.url}/v1/disputes/{d.dispute_id}/resolve", headers=_as(served_app, person),
                        json={"keep_both": True, "note": "both?"}, timeout=60)
    assert answer.status_code == 409 and "'spouse'" in answer.json()["detail"], answer.text
    page = httpx.get(f"{served_app.url}/inbox", cookies={"vault_inbox": person}, timeout=60)
    assert page.status_code == 200 and d.dispute_id in page.text and 'value="keep_both"' not in page.text
    assert [c.value for c in vault.get("user.family").active] == ["wife:Anna"]
