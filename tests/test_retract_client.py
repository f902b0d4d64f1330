"""`VaultClient.forget` / `AsyncVaultClient.forget` (and `retract`) against the app on a real
server on 127.0.0.1: the library's models back (`list[Retraction]`), the library's errors,
nothing changed by a refused call, and a second call that changes nothing."""

from __future__ import annotations

import asyncio

import pytest

from vault_ray import AsyncVaultClient, Fact, Forbidden, InvalidEntity, InvalidInput, Retraction, VaultClient


@pytest.fixture
def served(served_app):
    vault = served_app.vault
    vault.set_strategy("user.diet", "authority")
    vault.set_authority("planner", "user.diet", 0.9)
    vault.agent("planner").add_facts(Fact("user.diet", "The user is vegan", "vegan", claim_id="c-1"))
    vault.agent("chat").add_facts(Fact("user.diet", "The user eats no meat", "vegetarian", claim_id="c-2"))
    vault.agent("planner").add_facts(Fact("user.city", "The user lives in Lisbon", "Lisbon", claim_id="c-3"))
    return served_app


def retracted(vault) -> list[str]:
    return sorted(c.id for c in vault.claims() if c.status == "retracted")


def test_the_client_forgets_as_the_library_does(served):
    with VaultClient(served.url, served.token("ana", "resolver")) as person:
        done = person.forget("user.diet", note="another user's diet")
        assert all(isinstance(r, Retraction) for r in done)
        assert sorted(r.claim.id for r in done) == ["c-1", "c-2"]
        assert {(r.claim.status, r.decided_by, r.note, r.already) for r in done} == {
            ("retracted", "ana", "another user's diet", False)}
        assert not person.get("user.diet").active and person.disputes() == []
        assert person.forget("user.diet") == []  # again: nothing live is left, nothing changes
        assert person.forget("user.pets") == []  # never written: as Vault.forget
    assert retracted(served.vault) == ["c-1", "c-2"] and served.vault.claim("c-3").status == "active"


def test_the_async_client_forgets_and_retracts(served):
    async def run():
        async with AsyncVaultClient(served.url, served.token("root", "admin")) as person:
            one = await person.retract("c-3", note="never said")
            again = await person.retract("c-3")
            gone = await person.forget("user.diet")
            return one, again, gone

    one, again, gone = asyncio.run(run())
    assert one.claim.status == "retracted" and one.decided_by == "root" and not one.already
    assert again.already and again.note == "never said"
    assert sorted(r.claim.id for r in gone) == ["c-1", "c-2"]
    assert retracted(served.vault) == ["c-1", "c-2", "c-3"]


def test_refused_calls_raise_the_library_errors_and_change_nothing(served):
    events = len(served.vault.events())
    with VaultClient(served.url, served.token("planner"), retries=0) as agent, \
            VaultClient(served.url, served.token("ana", "resolver"), retries=0) as person:
        with pytest.raises(Forbidden):
            agent.forget("user.diet")
        with pytest.raises(InvalidEntity):  # refused before sending, as Vault.forget refuses it
            person.forget("User Diet")
        with pytest.raises(InvalidInput, match="note"):
            person.forget("user.diet", note="x" * 5000)
        with pytest.raises(InvalidInput):
            person.forget("user.diet", note=3)  # type: ignore[arg-type]
        with pytest.raises(InvalidInput, match="non-blank"):  # it said "non-empty" of " "
            person.retract(" ")
    assert retracted(served.vault) == [] and len(served.vault.events()) == events


def test_an_admin_erases_over_http_and_a_resolver_may_not(served):
    """`VaultClient.erase` as `Vault.erase`: the claims retracted, their content gone from every read,
    `claim_erased` on the event stream; a resolver (who may retract) is refused erasure."""
    with VaultClient(served.url, served.token("ana", "resolver"), retries=0) as person, \
            VaultClient(served.url, served.token("root", "admin")) as admin:
        with pytest.raises(Forbidden):
            person.erase("user.diet")
        assert retracted(served.vault) == []
        done = admin.erase("user.diet", note="deletion request")
        assert sorted(r.claim.id for r in done) == ["c-1", "c-2"] and {r.decided_by for r in done} == {"root"}
        assert all(r.claim.value is None and "vegan" not in r.claim.text for r in done)
        history = admin.history("user.diet")
        assert {c.status for c in history} == {"retracted"} and not any("vegan" in c.text for c in history)
        assert not admin.get("user.diet").active
        assert all(h.claim.entity != "user.diet" for h in admin.search("vegan diet"))
        erased = list(admin.events(since="start", kinds=["claim_erased"]))
        assert sorted(e.claim_id for e in erased) == ["c-1", "c-2"]
        assert [r.already for r in admin.erase("user.diet")] == [True, True]  # again: nothing new
        assert admin.erase("user.pets") == []
    assert served.vault.claim("c-3").status == "active"
