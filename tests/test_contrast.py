"""Labels that name different things stay apart in entity resolution and normalization,
however alike their statements read (reasoners/contrast.py)."""

from __future__ import annotations

import pytest

from vault_ray import Fact, LocalEmbedder, Vault
from vault_ray.reasoners.contrast import contrasting, words


@pytest.fixture(scope="module")
def local():
    return LocalEmbedder()


@pytest.mark.parametrize(("a", "b"), [
    ("user.phone.home", "user.phone.work"),
    ("user.schedule.gym", "user.schedule.yoga"),
    ("user.home_address", "user.work_address"),
    ("user.mother_name", "user.father_name"),
    ("user.first_name", "user.last_name"),
    ("user.anniversary", "user.birthday"),
    ("user.start_date", "user.end_date"),
    ("user.cat_name", "user.dog_name"),
    ("user.mother_name", "user.name"),
    ("user.wife_birthday", "user.birthday"),
    ("user.previous_employer", "user.employer"),
    ("user.goal_weight", "user.weight"),
    ("user.child_1", "user.child_2"),
    ("user.max_budget", "user.min_budget"),
    ("user.dog_name", "user.name"),  # a pet's name is not the user's
    ("user.pet_name", "user.name"),
])
def test_labels_that_name_different_things_contrast_both_ways(a, b):
    assert contrasting(a, b) and contrasting(b, a)


@pytest.mark.parametrize(("a", "b"), [
    ("user.tz", "user.timezone"),
    ("user.home_city", "user.location"),
    ("user.residence", "user.location"),
    ("user.favourite_colour", "user.favorite_color"),
    ("user.mobile", "user.phone"),
    ("user.billing_method", "user.payment.method"),
    ("user.workplace", "user.employer"),
    ("user.kids_names", "user.children"),
    ("user.mother_name", "user.family"),
    ("user.dog_name", "user.pets"),
    ("user.pet_name", "user.pets"),
    ("user.gym", "user.schedule.gym"),
    ("user.schedule.gym", "user.schedule.*"),
])
def test_drifted_labels_do_not_contrast(a, b):
    assert not contrasting(a, b) and not contrasting(b, a)


def test_a_registry_keys_aliases_count_as_its_words():
    # user.location is also user.home in the builtin registry
    assert contrasting("user.work_city", "user.location", ("user.city", "user.home"))
    assert not contrasting("user.home_city", "user.location", ("user.city", "user.home"))


def test_label_words_are_singular_and_below_the_subject():
    assert words("user.kids_names") == {"kid", "name"}
    assert words("alice.phone.home") == {"phone", "home"}


@pytest.mark.slow
@pytest.mark.parametrize(("first", "second"), [
    (Fact("user.phone.work", "Work phone 555-0100"), Fact("user.phone.home", "Home phone 555-0199")),
    (Fact("user.birthday", "My birthday is March 5"), Fact("user.anniversary", "Our anniversary is June 3")),
    (Fact("user.schedule.gym", "Gym on Monday at 7am"), Fact("user.schedule.yoga", "Yoga on Monday at 7am")),
    (Fact("user.employer", "I work at Acme"), Fact("user.previous_employer", "I used to work at Initech")),
])
def test_a_sibling_label_never_supersedes_the_fact_it_resembles(tmp_path, local, first, second):
    """The silent overwrite this library exists to prevent: before, the second label was
    aligned with the first entity and its claim replaced the first."""
    with Vault.open(tmp_path / "s", embedder=local) as vault:
        mem = vault.agent("a")
        mem.add_facts(first)
        (d,) = mem.add_facts(second).decisions
        assert (d.entity, d.aligned_from, d.op) == (second.entity, None, "ADD")
        assert [c.text for c in vault.get(first.entity).active] == [first.text]
        assert [c.text for c in vault.get(second.entity).active] == [second.text]


@pytest.mark.slow
def test_a_drifted_label_still_joins_its_entity(tmp_path, local):
    with Vault.open(tmp_path / "s", embedder=local) as vault:
        vault.agent("a").add_facts(Fact("user.location", "I live in Boston", "Boston"))
        (d,) = vault.agent("b").add_facts(Fact("user.home_city", "My home city is Denver", "Denver")).decisions
        assert (d.entity, d.aligned_from) == ("user.location", "user.home_city")


@pytest.mark.parametrize(("a", "b"), [
    # someone else's value: a client, a boss, a girlfriend, a doctor
    ("user.client_timezone", "user.timezone"),
    ("user.boss_timezone", "user.timezone"),
    ("user.girlfriend_location", "user.location"),
    ("user.doctor_phone", "user.phone"),
    # a past value
    ("user.old_timezone", "user.timezone"),
    ("user.earlier_location", "user.location"),
    ("user.timezone_before", "user.timezone"),
    ("user.original_diet", "user.diet"),
    # a value to come
    ("user.next_location", "user.location"),
    ("user.future_employer", "user.employer"),
    ("user.upcoming_timezone", "user.timezone"),
    ("user.planned_diet", "user.diet"),
    ("user.intended_job", "user.job"),
    # a value for a while, away
    ("user.vacation_location", "user.location"),
    ("user.holiday_timezone", "user.timezone"),
    ("user.trip_location", "user.location"),
    ("user.travel_destination", "user.location"),
    ("user.temporary_location", "user.location"),
    # two different qualifiers of time: a plan is no past, a wish no plan
    ("user.old_location", "user.next_location"),
    ("user.planned_diet", "user.diet_goal"),
    # the same qualifier of two different things
    ("user.wife_location", "user.wife_timezone"),
    ("user.dream_location", "user.dream_job"),
    ("user.earlier_location", "user.old_timezone"),
])
def test_a_qualifier_of_whose_or_when_keeps_a_label_from_the_plain_one(a, b):
    assert contrasting(a, b) and contrasting(b, a)


@pytest.mark.parametrize(("a", "b"), [
    ("user.old_timezone", "user.previous_timezone"),  # one past, said two ways
    ("user.next_location", "user.future_location"),
    ("user.vacation_location", "user.trip_location"),
    ("user.current_timezone", "user.timezone"),  # the present is the plain label
    ("user.new_location", "user.location"),
    ("user.wife_timezone", "user.spouse_timezone"),  # one person's one thing in other words
    ("user.earlier_location", "user.previous_location"),
    ("user.wife_diet", "user.wife_dietary"),
])
def test_the_same_qualifier_of_time_in_other_words_does_not_contrast(a, b):
    assert not contrasting(a, b) and not contrasting(b, a)


_CURRENT = [("user.timezone", "The user's timezone is PST", "PST"), ("user.location", "The user lives in Lisbon", "Lisbon"),
            ("user.diet", "The user is vegan", "vegan"), ("user.employer", "The user works at Google", "Google")]
_OTHER = [("user.client_timezone", "The user's client is on EST", "EST"),
          ("user.old_timezone", "The user's old timezone was EST", "EST"),
          ("user.next_location", "The user will move to Berlin next year", "Berlin"),
          ("user.vacation_location", "The user is on vacation in Bali", "Bali"),
          ("user.travel_destination", "The user is travelling to Tokyo", "Tokyo"),
          ("user.planned_diet", "The user plans a keto diet", "keto"),
          ("user.future_employer", "The user will join Apple", "Apple")]


def _current_survives(vault):
    for entity, text, value in _CURRENT:
        vault.agent("a").add_facts(Fact(entity, text, value))
    for entity, text, value in _OTHER:
        (d,) = vault.agent("b").add_facts(Fact(entity, text, value)).decisions
        # its own entity (or another label of the same qualifier: a trip's destination may join
        # a vacation's location), never one of the current facts
        assert d.entity not in {e for e, _, _ in _CURRENT} and d.outcome == "active", entity
        assert value in vault.get(entity).values
    assert {e: vault.get(e).values for e, _, _ in _CURRENT} == {e: (v,) for e, _, v in _CURRENT}


@pytest.mark.slow
def test_another_persons_a_past_or_a_planned_value_never_replaces_the_current_one(tmp_path, local):
    """QA2 F12: with the default local model these labels were aligned onto the user's
    current fact, and recency superseded it."""
    with Vault.open(tmp_path / "s", embedder=local) as vault:
        _current_survives(vault)


def test_the_same_holds_with_hashing_vectors(tmp_path):
    from vault_ray import HashingEmbedder
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        _current_survives(vault)
