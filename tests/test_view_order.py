"""The order a view lists claims in (docs/policies.md, "The order of a view"): within a tie on
`observed_at` (one batch's claims), the write applied first, then the agent and the value's
words; never the random claim id. Two stores given the same writes read alike, now and `as_of`."""

from __future__ import annotations

from datetime import UTC, datetime

from vault_ray import Fact

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
PETS = ["fish:Nemo", "dog:Rex", "cat:Tom", "bird:Kiwi", "hamster:Bo", "rabbit:Ada"]


def write(vault):
    vault.set_cardinality("user.pets", "many")
    facts = [Fact("user.pets", f"The user has a {p}", value=p, observed_at=T0) for p in PETS]
    vault.agent("crm").add_facts(facts)
    vault.agent("bot").add_facts([Fact("user.pets", "The user has a snake", value="snake:Kaa", observed_at=T0),
                                  Fact("user.pets", "The user has a frog", value="frog:Ed", observed_at=T0)])
    return vault


def test_one_batch_reads_in_one_order_in_every_store(make_vault):
    stores = [write(make_vault(f"s{i}")) for i in range(3)]
    views = [v.get("user.pets") for v in stores]
    # crm's batch first (applied first), each value by its words; then bot's batch
    expected = ("bird:Kiwi", "cat:Tom", "dog:Rex", "fish:Nemo", "hamster:Bo", "rabbit:Ada", "frog:Ed", "snake:Kaa")
    for view in views:
        assert view.values == expected
        assert tuple(c.value for c in view.active) == expected
    first = stores[0]
    assert first.get("user.pets").active == first.get("user.pets").active  # two reads of one state
    later = datetime.now(UTC)
    for v in stores:
        assert v.get("user.pets", as_of=later).values == expected


def test_an_older_observation_still_comes_first_and_events_keep_their_time(make_vault):
    vault = write(make_vault())
    vault.agent("vet").add_facts(Fact("user.pets", "The user has a pony", value="pony:Max",
                                      observed_at=datetime(2025, 6, 1, tzinfo=UTC)))
    assert vault.get("user.pets").values[0] == "pony:Max"  # observed first, though written last


def test_search_alternatives_follow_the_view(make_vault):
    found = []
    for name in ("a", "b"):
        vault = make_vault(name)
        vault.set_strategy("user.diet", "authority")
        vault.agent("crm").add_facts(Fact("user.diet", "The user is vegan", value="vegan", observed_at=T0))
        vault.agent("bot").add_facts([Fact("user.diet", "The user is vegetarian", value="vegetarian", observed_at=T0)])
        vault.agent("app").add_facts([Fact("user.diet", "The user is pescatarian", value="pescatarian", observed_at=T0)])
        hits = vault.search("what does the user eat", k=5)
        found.append([(h.claim.value, tuple(a.value for a in h.alternatives)) for h in hits])
        assert vault.get("user.diet").values == ("vegan", "vegetarian", "pescatarian")
    assert found[0] == found[1]
