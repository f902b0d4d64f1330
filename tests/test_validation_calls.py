"""Calls a QA pass found escaping the error tree, or taking a wrong value as a right one:
each now raises a clear error of `vault_ray.errors` and changes nothing. And a policy
given to `Vault.open` for a store that has one is a change of it, checked and numbered."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from vault_ray import (
    Fact,
    HashingEmbedder,
    InvalidFact,
    InvalidInput,
    InvalidPolicy,
    Policy,
    PolicyConflict,
    RegistryEntry,
    Vault,
)
from vault_ray.models import utcnow
from vault_ray.policy import AutoResolveRules

FAR_EAST_YEAR_ONE = datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=5)))


def state(vault):
    return ([(c.id, c.status) for c in vault.claims()], [d.id for d in vault.disputes(None)], len(vault.events()),
            vault.policy)


@pytest.mark.parametrize(("call", "error", "says"), [
    (lambda v: v.get_many(None), InvalidInput, "collection of entity keys"),
    (lambda v: v.export(None), InvalidInput, "directory path"),
    (lambda v: v.import_from(None), InvalidInput, "directory path"),
    (lambda v: v.events(claim_id=5), InvalidInput, "claim_id"),
    (lambda v: v.get("user.diet", as_of=FAR_EAST_YEAR_ONE), InvalidInput, "outside the representable times"),
    (lambda v: v.agent("a").add_facts([Fact("user.x", "x", observed_at=FAR_EAST_YEAR_ONE)]), InvalidFact, "representable"),
    (lambda v: v.agent("a").add_facts([Fact("user.x", "x")], resolve="no"), InvalidInput, "resolve must be True or False"),
    (lambda v: v.resolve_dispute("dsp-1-x", keep_both="no", decided_by="u"), InvalidInput, "keep_both"),
    (lambda v: v.write_batch([], rate_limit="yes"), InvalidInput, "rate_limit"),
])
def test_bad_arguments_raise_from_the_tree_and_change_nothing(make_vault, call, error, says):
    vault = make_vault()
    vault.agent("a").add("I'm vegan")
    before = state(vault)
    with pytest.raises(error, match=says):
        call(vault)
    assert state(vault) == before


@pytest.mark.parametrize(("call", "says"), [
    (lambda v: v.dispute(None), "dispute_id must be a non-empty string"),
    (lambda v: v.dispute(5), "dispute_id must be a non-empty string"),
    (lambda v: v.get("user.diet", as_of="2020"), "as_of must be a datetime or epoch seconds"),
    (lambda v: v.get("user.diet", as_of=float("nan")), "as_of must be finite"),
    (lambda v: v.search("diet", as_of="2020"), "as_of must be a datetime"),
    (lambda v: v.apply_rules("2030"), "now must be a datetime or epoch seconds"),
])
def test_a_bad_read_argument_is_invalid_input_not_a_missing_dispute_or_a_bad_fact(make_vault, call, says):
    """dispute(None) said "no dispute with id None" (DisputeNotFound); a bad as_of or now was InvalidFact."""
    vault = make_vault()
    vault.agent("a").add("I'm vegan")
    before = state(vault)
    with pytest.raises(InvalidInput, match=says) as err:
        call(vault)
    assert type(err.value) is InvalidInput and state(vault) == before


@pytest.mark.parametrize("confidence", ["1", None, [1]])
def test_a_confidence_that_is_no_number_is_said_so(make_vault, confidence):
    """confidence="1" said "confidence '1' is outside [0, 1]"."""
    with pytest.raises(InvalidFact, match="confidence must be a number in \\[0, 1\\], got") as err:
        make_vault().agent("a").add_facts([Fact("user.x", "x", confidence=confidence)])
    assert err.value.field == "confidence"


@pytest.mark.parametrize(("fields", "says"), [
    ({"strategies": None}, "strategies must be a mapping"), ({"authority": None}, "authority must be a mapping"),
    ({"strategies": ["user.x"]}, "strategies must be a mapping"), ({"high_stakes": None}, "high_stakes must be a list"),
    ({"authority": {"chat": None}}, "authority of 'chat'"),
])
def test_a_malformed_policy_is_invalid_policy(fields, says):
    with pytest.raises(InvalidPolicy, match=says):
        Policy(**fields)


@pytest.mark.parametrize(("given", "says"), [
    ({"policy": {"strategies": {}}}, "expected a Policy"), ({"registry": []}, "registry must be an EntityRegistry"),
    ({"embedder": "local"}, "embedder must be an Embedder"), ({"reasoner": "rules"}, "reasoner must be a Reasoner"),
])
def test_open_refuses_parts_of_the_wrong_kind_before_making_the_store(tmp_path, given, says):
    with pytest.raises(InvalidInput, match=says):
        Vault.open(tmp_path / "s", **{"embedder": HashingEmbedder(), **given})
    assert not (tmp_path / "s").exists()


def test_events_of_an_alias_are_those_of_its_key(make_vault):
    vault = make_vault()
    vault.agent("a").add("I'm in PST")
    assert vault.events(entity="user.tz") == vault.events(entity="user.timezone") != []
    assert vault.events(since="start", entity="user.tz").events == vault.events(since="start", entity="user.timezone").events


def test_a_policy_given_at_open_is_a_numbered_change_of_the_saved_one(tmp_path):
    path = tmp_path / "s"
    with Vault.open(path, embedder=HashingEmbedder()) as vault:
        for _ in range(3):
            vault.set_strategy(f"user.x{vault.policy.version}", "authority")
        saved = vault.policy
    assert saved.version == 3
    with Vault.open(path, embedder=HashingEmbedder(), policy=saved) as vault:  # the same policy: nothing changes
        assert vault.policy == saved
    with Vault.open(path, embedder=HashingEmbedder(), policy=Policy(strategies={"user.diet": "authority"})) as vault:
        assert vault.policy.version == 4 and vault.policy.strategies == {"user.diet": "authority"}
        with pytest.raises(PolicyConflict):  # a version read before the open no longer passes
            vault.patch_policy({"max_text": 100}, version=3)
    with pytest.raises(InvalidPolicy, match="alias"):  # a rule on an alias is refused here as set_policy refuses it
        Vault.open(path, embedder=HashingEmbedder(), policy=Policy(strategies={"user.tz": "authority"}))
    with Vault.open(path, embedder=HashingEmbedder()) as vault:
        assert vault.policy.version == 4


def test_a_future_now_for_the_rules_records_nothing_in_the_future(make_vault):
    vault = make_vault(policy=Policy(strategies={"user.hat": "authority"}, authority={"a": {"user.hat": 0.9}}).updated(
        rules=AutoResolveRules(stale_after_s=60)))
    vault.agent("a").add_facts([Fact("user.hat", "hat is fedora", "fedora")])
    vault.agent("b").add_facts([Fact("user.hat", "hat is beanie", "beanie")])
    (closed,) = vault.apply_rules(utcnow() + timedelta(hours=9))  # a naive local time read as UTC, 9 hours ahead
    assert closed.resolution.at <= utcnow()
    (d,) = vault.agent("c").add_facts([Fact("user.hat", "hat is cap", "cap")]).decisions
    assert vault.claim(d.claim_id).recorded_at <= utcnow()
    assert vault.get("user.hat", as_of=utcnow()).values == vault.get("user.hat").values



def test_an_alias_that_holds_live_claims_is_refused_until_normalize_merges_it(make_vault):
    """Registered as an alias, a label with live claims split one fact in two: the next
    write under it went to the key, beside the old value, with no conflict found."""
    vault = make_vault()
    vault.agent("a").add_facts([Fact("user.pet_food", "the cat eats tuna", "tuna")], resolve=False)
    entry = RegistryEntry("user.petfood", "what the pet eats", aliases=("user.pet_food",))
    before = vault.registry
    with pytest.raises(InvalidInput, match="'user.pet_food' holds live claims.*normalize"):
        vault.register(entry)
    assert vault.registry == before and vault.registry.canonical("user.pet_food") == "user.pet_food"
    vault.register(RegistryEntry("user.petfood", "what the pet eats", aliases=("user.cat_food",)))  # no claims: fine
    assert vault.registry.canonical("user.cat_food") == "user.petfood"


@pytest.mark.parametrize(("entry", "why"), [
    (RegistryEntry("user.tz", "the user's work zone"), "'user.tz' is an alias of 'user.timezone'"),
    (RegistryEntry("user.work_tz", "the work zone", aliases=("user.tz",)), "'user.tz' is already an alias of 'user.timezone'"),
    (RegistryEntry("user.work_tz", "the work zone", aliases=("user.timezone",)), "'user.timezone' is a registry key"),
    (RegistryEntry("user.work_tz", "the work zone", aliases=("user.work_tz",)), "the entry's own key"),
])
def test_an_entry_that_takes_another_entrys_name_is_refused(make_vault, entry, why):
    """Registered, `user.tz` stopped reaching `user.timezone`: two agents then held two
    active zones with nothing contested."""
    vault = make_vault()
    before = vault.registry
    with pytest.raises(InvalidInput, match=why):
        vault.register(entry)
    assert vault.registry == before and vault.registry.canonical("user.tz") == "user.timezone"
    vault.register(RegistryEntry("user.timezone", "the user's zone", aliases=("user.tz", "user.zone")))  # its own: fine
    assert vault.registry.canonical("user.zone") == "user.timezone"


@pytest.mark.parametrize("name", ["a\nb", "x\x00y", "bob\x1b[31mred", "tab\there"])
def test_an_agent_name_with_control_characters_is_refused(make_vault, name):
    """They reached CLI tables and logs as written (a newline, an ANSI escape)."""
    vault = make_vault()
    with pytest.raises(InvalidInput, match="control characters"):
        vault.agent(name)


@pytest.mark.parametrize(("request_", "says"), [
    (dict(facts=[Fact("user.diet", "The user is vegan", value="vegan")], messages="I'm in PST"), "not both"),
    (dict(facts=[Fact("user.diet", "The user is vegan", value="vegan")], observed_at=1_700_000_000), "its own observed_at"),
    (dict(messages="I'm vegan", vectors=[[0.1] * 384]), "vectors go with facts"),
], ids=["facts-and-messages", "facts-and-a-request-time", "messages-and-vectors"])
def test_a_write_request_with_parts_that_do_not_go_together_is_refused(make_vault, request_, says):
    """The messages, or the request's time, were silently left out: only the facts were written, at the write's time."""
    from vault_ray import WriteRequest

    vault = make_vault()
    before = state(vault)
    (result,) = vault.write_batch([WriteRequest("a", **request_)])
    assert isinstance(result, InvalidInput) and says in str(result)
    assert state(vault) == before


def test_an_agents_search_takes_mine_as_true_or_false_and_says_what_it_is(make_vault):
    vault = make_vault()
    vault.agent("a").add_facts([Fact("user.diet", "The user is vegan", value="vegan")])
    with pytest.raises(InvalidInput, match="mine must be True or False"):
        vault.agent("b").search("vegan", mine="yes")  # truthy: it searched b's claims only, and found none
    assert [h.claim.value for h in vault.agent("b").search("vegan", entity="user.diet")] == ["vegan"]
    assert vault.agent("b").search("vegan", mine=True) == []
    assert repr(vault.agent("b")) == f"AgentMemory('b', <Vault embedded {vault.info().store!r}>)"
    vault.close()
    assert repr(vault).endswith(" closed>")


def test_an_observed_at_in_epoch_milliseconds_says_seconds_are_wanted(make_vault):
    vault = make_vault()
    millis = utcnow().timestamp() * 1000  # JavaScript's Date.now(), a Kafka timestamp
    with pytest.raises(InvalidFact, match=r"epoch seconds are wanted: milliseconds / 1000") as err:
        vault.agent("a").add_facts([Fact("user.diet", "The user is vegan", observed_at=millis)])
    assert err.value.field == "observed_at" and vault.claims() == []
    with pytest.raises(InvalidInput, match="milliseconds / 1000"):
        vault.get("user.diet", as_of=millis)
    with pytest.raises(InvalidFact) as huge:
        vault.agent("a").add_facts([Fact("user.diet", "The user is vegan", observed_at=1e300)])
    assert "milliseconds" not in str(huge.value)


def test_numpy_integers_are_times_and_counts_and_numpy_numbers_confidences(make_vault):
    """A pandas column's np.int64 epoch seconds, a k computed with numpy, a float32 score as confidence:
    refused as "must be a datetime or epoch seconds" / "a positive integer" / "a number in [0, 1]"."""
    np = pytest.importorskip("numpy")
    vault = make_vault()
    when = np.int64(1_700_000_000)
    (d,) = vault.agent("a").add_facts([Fact("user.diet", "The user is vegan", value="vegan", observed_at=when,
                                            confidence=np.float32(0.75))]).decisions
    claim = vault.claim(d.claim_id)
    assert claim.observed_at == datetime.fromtimestamp(1_700_000_000, UTC) and claim.confidence == 0.75
    assert type(claim.confidence) is float
    assert vault.get("user.diet", as_of=np.int64(utcnow().timestamp() + 5)).values == ("vegan",)  # as recorded by then
    assert vault.get("user.diet", as_of=np.int64(1_700_000_001)).values == ()  # before it was written
    assert len(vault.search("vegan", k=np.int64(2))) == 1
    with pytest.raises(InvalidFact, match="observed_at must be a datetime or epoch seconds"):  # float32: 128 s steps
        vault.agent("a").add_facts([Fact("user.pets", "The user has a cat", observed_at=np.float32(1.7e9))])
