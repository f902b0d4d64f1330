"""Changing part of the policy: `Policy.patched` (a JSON merge patch, RFC 7396),
`Vault.patch_policy` and `PATCH /v1/policy`, and changes made against a version
(compare and set): a change never silently undoes another."""

from __future__ import annotations

import threading

import pytest

from vault_ray import InvalidInput, InvalidPolicy, Policy, PolicyConflict

BASE = (Policy().with_strategy("user.diet", "authority").with_strategy("user.hobby", "consensus")
        .with_authority("planner", "user.*", 0.9).with_authority("planner", "user.diet", 1.0)
        .with_authority("chat", "user.*", 0.2).updated(align_threshold=0.9, rate_limit=None))


def test_a_patch_changes_what_it_names_and_keeps_the_rest():
    new = BASE.patched({"ask_threshold": 0.6, "strategies": {"user.hobby": None, "user.job": "recency"},
                        "authority": {"planner": {"user.diet": None}, "chat": None, "ops": {"*": 1.0}},
                        "rules": {"stale_after_s": 3600}, "rate_limit": {"rate": 5, "burst": 10}})
    assert new.ask_threshold == 0.6 and new.align_threshold == 0.9  # named / kept
    assert new.strategies == {"user.diet": "authority", "user.job": "recency"}
    assert new.authority == {"planner": {"user.*": 0.9}, "ops": {"*": 1.0}}
    assert (new.rules.stale_after_s, new.rules.reasserted_by) == (3600, None)
    assert (new.rate_limit.rate, new.rate_limit.burst) == (5, 10) and new.version == BASE.version + 1
    assert new.high_stakes == BASE.high_stakes and new.max_text == BASE.max_text
    assert BASE.strategies == {"user.diet": "authority", "user.hobby": "consensus"}  # a value: unchanged
    reset = new.patched({"align_threshold": None, "rate_limit": None, "rules": {"stale_after_s": None}})
    assert reset.align_threshold == Policy().align_threshold and reset.rate_limit is None
    assert reset.rules.stale_after_s is None and new.patched({}).to_dict() == {**new.to_dict(), "version": new.version + 1}
    assert new.patched({"high_stakes": []}).patched({"high_stakes": None}).high_stakes == Policy().high_stakes


@pytest.mark.parametrize("patch", [
    {"nope": 1}, {"version": 7}, {"align_threshold": 2.0}, {"strategies": ["user.x"]}, {"strategies": {"user.x": "bogus"}},
    {"strategies": {"Bad Key": "recency"}}, {"authority": {"chat": 5}}, {"authority": {"chat": {"user.*": 3}}},
    {"high_stakes": "user.x"}, {"high_stakes": [5]}, {"rules": 5}, {"rules": {"zzz": 1}},
    {"rate_limit": {"rate": 1}}, {"rate_limit": {"rate": -1, "burst": 1}}, {"max_text": "a"}, ["align_threshold"], None,
    # what the HTTP service could not send back, or what silently turned a rule off
    {"rules": {"reasserted_by": 2.5}}, {"rules": {"reasserted_by": float("inf")}}, {"rules": {"reasserted_by": float("nan")}},
    {"rate_limit": {"rate": 1, "burst": 2.5}}, {"rate_limit": {"rate": 1, "burst": True}},
    {"rate_limit": {"rate": 1, "burst": float("nan")}}, {"max_text": True}, {"max_open_disputes": True},
    {"align_threshold": True}, {"ask_threshold": False}, {"align_threshold": "0.9"}, {"unextracted_notes": "no"},
    {"unextracted_notes": 1}, {"strategies": {"\ud800": "recency"}}, {"authority": {"\ud800": {"user.*": 1.0}}},
])
def test_a_patch_that_makes_no_policy_is_refused(patch):
    with pytest.raises(InvalidPolicy):
        BASE.patched(patch)


def test_the_vault_patches_its_policy_and_keeps_it_across_a_reopen(make_vault, tmp_path):
    vault = make_vault(policy=BASE)
    new = vault.patch_policy({"strategies": {"user.hobby": None}, "half_life_days": 7.0})
    assert vault.policy == new and vault.policy.half_life_days == 7.0 and vault.policy.align_threshold == 0.9
    with pytest.raises(InvalidPolicy):
        vault.patch_policy({"half_life_days": "soon"})
    with pytest.raises(PolicyConflict) as stale:
        vault.patch_policy({"half_life_days": 1.0}, version=new.version - 1)
    assert (stale.value.expected, stale.value.current) == (new.version - 1, new.version)
    with pytest.raises(PolicyConflict):
        vault.set_policy(Policy(), if_version=new.version + 5)
    with pytest.raises(InvalidInput):
        vault.patch_policy({}, version="3")
    assert vault.policy == new  # every refusal changed nothing
    vault.set_policy(Policy(default_strategy="judge"))  # a whole policy is stored as the next version, never an old one
    assert vault.policy.version == new.version + 1 and vault.policy.default_strategy == "judge"
    vault.set_policy(new)
    assert vault.policy.version == new.version + 2 and vault.policy.half_life_days == 7.0
    new = vault.policy
    assert vault.patch_policy({"max_text": 500}, version=new.version).max_text == 500
    vault.close()
    from vault_ray import HashingEmbedder, Vault

    with Vault.open(tmp_path / "store", embedder=HashingEmbedder()) as again:
        assert again.policy.max_text == 500 and again.policy.half_life_days == 7.0 and "user.hobby" not in again.policy.strategies


def test_concurrent_changes_from_many_threads_all_land(make_vault):
    """Each change is read, applied and stored with a check that no other landed in
    between; one that lost the race is applied again: none is lost."""
    vault = make_vault()
    barrier = threading.Barrier(8)

    def change(n: int) -> None:
        barrier.wait()
        for i in range(15):
            if i % 3 == 0:
                vault.patch_policy({"strategies": {f"user.t{n}_{i}": "consensus"}})
            elif i % 3 == 1:
                vault.set_authority(f"agent-{n}", f"user.t{n}_{i}", 0.25)
            else:
                vault.set_strategy(f"user.t{n}_{i}", "authority")

    threads = [threading.Thread(target=change, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    policy = vault.policy
    assert len(policy.strategies) == 8 * 10 and sum(len(t) for t in policy.authority.values()) == 8 * 5


def test_patch_over_http_changes_one_field_where_put_resets_the_rest(make_vault, tmp_path):
    fastapi = pytest.importorskip("fastapi")  # noqa: F841  (the serve extra)
    from fastapi.testclient import TestClient

    from vault_ray.actors.serve.app import create_app
    from vault_ray.actors.serve.service import local_service
    from vault_ray.tokens import TokenStore

    vault = make_vault(policy=BASE)
    tokens = TokenStore(tmp_path / "tokens.json")
    admin = {"Authorization": f"Bearer {tokens.add('ops', 'admin')[0]}"}
    agent = {"Authorization": f"Bearer {tokens.add('chat', 'agent')[0]}"}
    with TestClient(create_app(local_service(vault, tokens))) as http:
        before = vault.policy
        done = http.patch("/v1/policy", json={"ask_threshold": 0.65, "strategies": {"user.hobby": None}}, headers=admin)
        assert done.status_code == 200, done.text
        body = done.json()
        assert body["ask_threshold"] == 0.65 and body["align_threshold"] == 0.9
        assert body["strategies"] == {"user.diet": "authority"}
        assert body["authority"] == before.authority and body["version"] == before.version + 1 == vault.policy.version
        merge = http.patch("/v1/policy", content=b'{"max_open_disputes": 5}',
                           headers={**admin, "Content-Type": "application/merge-patch+json"})
        assert merge.status_code == 200 and vault.policy.max_open_disputes == 5
        now = vault.policy
        for body, headers, status, kind in [
            ({"max_text": 100, "version": now.version - 1}, admin, 409, "PolicyConflict"),
            ({"max_txt": 100}, admin, 422, None),
            ({"align_threshold": 0.5}, admin, 422, "InvalidPolicy"),  # below ask_threshold
            ({"max_text": 100}, agent, 403, "Forbidden"),
            ({"max_txt": 100}, agent, 403, "Forbidden"),  # who asks comes before what: no schema for an agent
            ({"max_text": "a lot"}, agent, 403, "Forbidden"),
            ({"max_text": 100}, {}, 401, "UnknownAgent"),
        ]:
            refused = http.patch("/v1/policy", json=body, headers=headers)
            assert refused.status_code == status, (body, refused.text)
            assert kind is None or refused.json()["type"].endswith(kind)
        for raw in ('{"authority": {"\\ud800": {"user.*": 1}}}', '{"strategies": {"user.x": "\\ud800"}}'):
            refused = http.patch("/v1/policy", content=raw, headers={**admin, "Content-Type": "application/json"})
            assert refused.status_code == 422 and refused.json()["type"].endswith("InvalidPolicy"), refused.text
        assert http.get("/v1/policy", headers=agent).status_code == 200
        unknown = http.get("/v1/policy", params={"verbose": 1}, headers=agent)  # the agent may read it: a plain 422
        assert unknown.status_code == 422 and unknown.json()["errors"] == [
            {"loc": ["query", "verbose"], "msg": "unknown query parameter", "type": "extra_forbidden"}]
        refused = http.post("/v1/rules/apply", params={"verbose": 1}, headers=agent)
        assert refused.status_code == 403 and refused.json()["needed"] == "admin", refused.text
        assert vault.policy == now  # nothing changed
        put = http.put("/v1/policy", json={"ask_threshold": 0.65}, headers=admin)
        assert put.status_code == 200 and put.json()["strategies"] == {}  # PUT replaces the whole policy


@pytest.mark.parametrize("url", ["not-a-url", "127.0.0.1:8000", "http://", "ftp://host", None])
def test_the_client_refuses_an_address_it_could_never_call(url):
    from vault_ray import AsyncVaultClient, VaultClient

    for make in (VaultClient, AsyncVaultClient):
        with pytest.raises(InvalidInput, match="http:// or https://"):
            make(url, "t0ken")


def test_the_client_refuses_a_patch_that_cannot_travel_before_sending_it():
    from vault_ray import VaultClient

    with VaultClient("http://127.0.0.1:9", "t0ken") as client:  # nothing listens there: nothing is sent
        with pytest.raises(InvalidInput, match="JSON"):
            client.patch_policy({"align_threshold": float("nan")})
        with pytest.raises(InvalidPolicy, match="version"):
            client.patch_policy({"version": 3})


def test_put_with_the_version_read_overwrites_no_change_made_meanwhile(make_vault, tmp_path):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from vault_ray.actors.serve.app import create_app
    from vault_ray.actors.serve.service import local_service
    from vault_ray.tokens import TokenStore

    vault = make_vault(policy=BASE)
    tokens = TokenStore(tmp_path / "tokens.json")
    admin = {"Authorization": f"Bearer {tokens.add('ops', 'admin')[0]}"}
    with TestClient(create_app(local_service(vault, tokens))) as http:
        read = http.get("/v1/policy", headers=admin).json()
        vault.set_strategy("user.job", "consensus")  # someone else's change, after the read
        stale = http.put("/v1/policy", json={**read, "max_text": 900}, headers=admin)
        assert stale.status_code == 409 and stale.json()["type"].endswith("PolicyConflict")
        assert vault.policy.strategies["user.job"] == "consensus" and vault.policy.max_text == BASE.max_text
        fresh = http.get("/v1/policy", headers=admin).json()
        done = http.put("/v1/policy", json={**fresh, "max_text": 900}, headers=admin)
        assert done.status_code == 200 and done.json()["version"] == fresh["version"] + 1
        unversioned = {k: v for k, v in fresh.items() if k != "version"}  # no version: replaces whatever is there
        assert http.put("/v1/policy", json=unversioned, headers=admin).status_code == 200


def test_a_key_the_policy_names_is_never_moved_onto_another_entity(make_vault):
    vault = make_vault()
    vault.set_strategy("user.home_city", "authority")
    vault.set_authority("gps", "user.home_city", 0.9)
    vault.agent("chat").add("I live in Berlin")  # user.location
    from vault_ray import Fact

    added = vault.agent("gps").add_facts(Fact("user.home_city", "The user lives in Munich", "Munich"))
    assert [d.entity for d in added.decisions] == ["user.home_city"]
    assert [c.value for c in vault.get("user.home_city").active] == ["Munich"]
    assert Policy().names("user.budget") and not Policy().names("user.diet")  # user.budget.* is high stakes


def test_reads_take_an_alias_as_its_key(make_vault):
    from vault_ray import Fact, RegistryEntry

    vault = make_vault()
    vault.register(RegistryEntry("user.car", "the user's car", aliases=("user.vehicle",)))
    vault.agent("a").add_facts([Fact("user.vehicle", "The user drives a Tesla", "Tesla")])
    assert [c.value for c in vault.get("user.vehicle").active] == [c.value for c in vault.get("user.car").active] == ["Tesla"]
    assert [h.claim.value for h in vault.search("car", entity="user.vehicle")] == ["Tesla"]
    assert len(vault.history("user.vehicle")) == 1
    assert set(vault.get_many(["user.vehicle", "user.car"])) == {"user.vehicle", "user.car"}


def test_misshapen_batches_and_registry_aliases_are_refused_from_the_tree(make_vault):
    from vault_ray import RegistryEntry, VaultError

    vault = make_vault()
    for bad in (None, 5, "x", [None]):
        with pytest.raises(InvalidInput):
            vault.write_batch(bad)
    with pytest.raises(InvalidPolicy, match="one string"):
        RegistryEntry("user.k", aliases="user.kk")
    assert issubclass(InvalidPolicy, VaultError) and vault.claims() == []


@pytest.mark.parametrize("bad", ["", " ", "a/b", ".", "..", None])
def test_the_client_refuses_an_id_no_route_can_take_before_sending(bad):
    from vault_ray import VaultClient

    with VaultClient("http://127.0.0.1:9", "t0ken", retries=0) as client:  # nothing listens: nothing is sent
        for call in (client.claim, client.explain, client.dispute):
            with pytest.raises(InvalidInput, match="id"):
                call(bad)
