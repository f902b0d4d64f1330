"""Entity resolution of a new label (reasoners/labels.py, RuleReasoner.disambiguate,
engine/front.py): what the statement says and what the label means, never a merge of
two different things."""

from __future__ import annotations

import pytest

from vault_ray import EntityRegistry, Fact, HashingEmbedder, LocalEmbedder, Policy, RuleReasoner, Vault
from vault_ray.reasoners.labels import LabelMatcher, label_phrase, label_texts
from vault_ray.reasoners.paraphrase import first_person


def test_a_stored_rewrite_reads_in_the_first_person_again():
    assert first_person("The user lives in Berlin") == "i live in Berlin"
    assert first_person("The user goes to the gym on Mondays") == "i go to the gym on Mondays"
    assert first_person("The user's diet is keto") == "my diet is keto"
    assert first_person("The user is vegan") == "i'm vegan"
    assert first_person("My time zone is PST") == "My time zone is PST"


def test_label_words():
    assert label_phrase("user.home_town") == "home town" and label_phrase("user.schedule.gym") == "schedule gym"
    registry = list(EntityRegistry.builtin().entries.values())
    texts = label_texts(["user.residence"], registry)
    assert "residence" in texts and any(t.startswith("location: ") for t in texts)


@pytest.mark.parametrize(("label", "text", "value", "expected"), [
    ("user.residence", "The user lives in Berlin", "Berlin", "user.location"),
    ("user.eating", "The user's diet is keto", "keto", "user.diet"),
    ("user.pay_with", "The user pays with PayPal", "PayPal", "user.payment.method"),
    ("user.workout", "The user goes to the gym on Mondays at 7am", "Mondays at 7am", "user.schedule.*"),
])
def test_the_statement_decides_when_it_reads_as_a_candidate_with_the_facts_value(label, text, value, expected):
    candidates = ["user.timezone", "user.location", "user.diet", "user.payment.method", "user.schedule.*"]
    chosen = RuleReasoner().disambiguate(Fact(label, text, value), candidates)
    assert chosen == expected or (expected.endswith(".*") and chosen.startswith(expected[:-1]))


def test_a_statement_about_another_slot_of_a_candidate_does_not_merge_labels():
    # "cat" is what user.pets would hold; the fact's value is a name: a different thing
    fact = Fact("user.pet_name", "The user's cat is called Tom", "Tom")
    assert RuleReasoner().disambiguate(fact, ["user.pets", "user.name"]) is None


@pytest.mark.parametrize(("fact", "candidates"), [
    (Fact("user.years", "The user is 34 years old", "34"), ["user.birthday"]),
    (Fact("user.work_mail", "My work email is bob@acme.com", "bob@acme.com"), ["user.employer"]),
    (Fact("user.home_zone", "I'm in PST", "PST"), ["user.location"]),
])
def test_a_statement_that_reads_as_another_slot_keeps_its_label(fact, candidates):
    """What the statement says outweighs what the label's words resemble: an age is no
    birthday, an email no employer (a label and candidates the words alone would join)."""
    assert RuleReasoner(HashingEmbedder()).disambiguate(fact, candidates) is None
    assert RuleReasoner().disambiguate(fact, candidates) is None


@pytest.fixture(scope="module")
def local():
    embedder = LocalEmbedder()
    embedder.embed(["warm up"])
    return embedder


@pytest.mark.slow
@pytest.mark.parametrize(("label", "expected"), [
    ("user.billing_method", "user.payment.method"), ("user.diet_type", "user.diet"), ("user.gym_time", None),
    ("user.timezone_name", "user.timezone"), ("user.favourite_colour", None),
])
def test_what_the_label_means_decides_when_one_candidate_clearly_leads(local, label, expected):
    registry = list(EntityRegistry.builtin().entries.values())
    candidates = ["user.timezone", "user.location", "user.diet", "user.payment.method", "user.employer"]
    assert LabelMatcher(local).choose(label, candidates, registry) == expected


@pytest.mark.slow
def test_a_drifted_label_joins_the_entity_it_names_and_a_new_thing_stays_apart(tmp_path, local):
    with Vault.open(tmp_path / "s", embedder=local, policy=Policy(default_strategy="authority")) as vault:
        vault.agent("a").add_facts(Fact("user.location", "My home city is Paris", "Paris"))
        vault.agent("a").add_facts(Fact("user.diet", "The user is vegan", "vegan"))
        # another agent's taxonomy: the statement shares little with "my home city is paris"
        (moved,) = vault.agent("b").add_facts(Fact("user.residence", "The user lives in Berlin", "Berlin")).decisions
        assert (moved.entity, moved.aligned_from, str(moved.outcome)) == ("user.location", "user.residence", "disputed")
        # a thing the store does not have yet stays on its own label
        (kept,) = vault.agent("b").add_facts(Fact("user.shoe_size", "The user wears size 44 shoes", "44")).decisions
        assert (kept.entity, kept.aligned_from) == ("user.shoe_size", None)
        (later,) = vault.agent("c").add_facts(Fact("user.eating", "My diet is keto", "keto")).decisions
        assert later.entity == "user.diet"


@pytest.mark.slow
def test_an_age_from_another_agent_never_replaces_the_birthday(tmp_path, local):
    """The extractor's own slots are registered: resolution never folds one into another."""
    with Vault.open(tmp_path / "s", embedder=local) as vault:
        vault.agent("a").add("My birthday is March 5th")
        (age,) = vault.agent("b").add("I'm 34 years old").decisions
        assert (age.entity, age.aligned_from, str(age.outcome)) == ("user.age", None, "active")
        assert vault.get("user.birthday").values == ("March 5th",) and vault.get("user.age").values == ("34",)


def test_without_an_embedder_labels_fall_back_to_shared_words(tmp_path):
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        vault.agent("a").add_facts(Fact("user.location", "My home city is Paris", "Paris"))
        (moved,) = vault.agent("b").add_facts(Fact("user.residence", "The user lives in Berlin", "Berlin")).decisions
        assert moved.entity == "user.location"  # the statement reads as a location, with the fact's value


class CountingEmbedder(HashingEmbedder):
    """The hashing embedder, counting its calls and the texts it was given; under another
    name, so the rule reasoner weighs label evidence with it as with a model's vectors
    (it does not with hashing vectors, whose few label words collide)."""

    def __init__(self) -> None:
        super().__init__()
        self.name = "counting-384"
        self.calls: list[list[str]] = []

    def embed(self, texts):
        self.calls.append(list(texts))
        return super().embed(texts)


def test_a_text_write_with_a_new_label_embeds_the_label_in_the_same_call(tmp_path):
    emb = CountingEmbedder()
    with Vault.open(tmp_path / "s", embedder=emb, policy=Policy(default_strategy="recency")) as vault:
        vault.agent("a").add_facts(Fact("user.diet", "The user's diet is keto", "keto"))
        vault.agent("a").add_facts(Fact("user.hobby_main", "The user paints landscapes", "painting"))
        emb.calls.clear()
        (d,) = vault.agent("b").add_facts(Fact("user.food_style", "The user eats paleo food", "paleo")).decisions
        texts = [t for call in emb.calls for t in call]
        assert emb.calls and "The user eats paleo food" in emb.calls[0] and "food style" in emb.calls[0]
        assert texts.count("food style") == 1  # embedded once, beside the fact's text
        # the candidates' phrases were kept from the earlier writes' resolution: no call per candidate
        assert "hobby main" not in texts and "diet" not in texts
        assert d.entity in ("user.food_style", "user.diet")


def test_precomputed_vectors_with_new_labels_embed_the_label_evidence_in_one_call(tmp_path):
    emb = CountingEmbedder()
    with Vault.open(tmp_path / "s", embedder=emb) as vault:
        vault.agent("a").add_facts(Fact("user.diet", "The user's diet is keto", "keto"))
        facts = [Fact(f"user.topic_{i}", f"The user collects item kind {i}", f"v{i}") for i in range(20)]
        vectors = HashingEmbedder().embed([f.text for f in facts])
        emb.calls.clear()
        vault.agent("b").add_facts(facts, vectors=vectors)
        label_calls = [c for c in emb.calls if any(t.startswith("topic ") for t in c)]
        assert len(label_calls) == 1 and sum(t.startswith("topic ") for t in label_calls[0]) == 20


def test_a_large_text_call_leaves_the_label_phrases_to_the_disambiguations_and_decides_the_same(tmp_path, monkeypatch):
    from vault_ray.engine import front

    facts = [Fact(f"user.topic_{i}", f"The user collects item kind {i}", f"v{i}") for i in range(12)]
    facts += [Fact("user.eating", "My diet is paleo", "paleo"), Fact("user.shoe_size", "The user wears size 44", "44")]
    texts = [f.text for f in facts]
    runs, few = {}, front.SPECULATE_LABELS
    for speculate in (few, len(facts)):  # the default, and every phrase in the texts' call
        monkeypatch.setattr(front, "SPECULATE_LABELS", speculate)
        emb = CountingEmbedder()
        with Vault.open(tmp_path / f"s{speculate}", embedder=emb, policy=Policy(default_strategy="recency")) as vault:
            vault.agent("a").add_facts(Fact("user.diet", "The user's diet is keto", "keto"))
            emb.calls.clear()
            decisions = vault.agent("b").add_facts(facts).decisions
            runs[speculate] = ([(d.entity, d.aligned_from, str(d.outcome)) for d in decisions], emb.calls)
    (default, calls), (eager, eager_calls) = runs[few], runs[len(facts)]
    assert default == eager and ("user.diet", "user.eating", "active") in default
    assert calls[0] == texts  # the texts' call carries no phrase
    assert len(eager_calls[0]) > len(texts) and "shoe size" in eager_calls[0]
    later = [t for call in calls[1:] for t in call]
    assert "diet" not in later or "diet" not in eager_calls[0]  # what was kept is never embedded again
    assert len(calls) <= len(eager_calls) + 1 and set(later) <= {t for call in eager_calls for t in call}


def test_a_label_with_nothing_to_compare_is_never_embedded_and_decides_the_same(tmp_path, monkeypatch):
    """A bulk call embeds the phrases of the labels whose label evidence is weighed, and of no
    other: not of a label whose statement reads as a slot no candidate offers (an age, with no
    age among the candidates), nor of one whose candidates are all patterns or keys of another
    kind (a budget for a purpose is never a birthday). Each decides as with every phrase at hand."""
    from vault_ray.engine import front

    builtin = EntityRegistry.builtin().entries
    facts = [Fact(f"user.hobby_{i}", f"The user collects item kind {i}", f"v{i}") for i in range(6)]
    facts += [Fact("user.years", "The user is 34 years old", "34"),
              Fact("user.budget.trip", "The user's budget for the trip is 2000 dollars", "2000 dollars"),
              Fact("user.club_nights", "Recurring events in the user's schedule: chess club meetings", "chess club")]
    runs, few = {}, front.SPECULATE_LABELS
    for speculate in (few, len(facts)):  # the default, and every phrase embedded with the texts
        monkeypatch.setattr(front, "SPECULATE_LABELS", speculate)
        emb = CountingEmbedder()
        registry = EntityRegistry({k: builtin[k] for k in ("user.diet", "user.schedule.*", "user.birthday")})
        with Vault.open(tmp_path / f"s{speculate}", embedder=emb, registry=registry,
                        policy=Policy(default_strategy="recency")) as vault:
            vault.agent("a").add_facts(Fact("user.diet", "The user's diet is keto", "keto"))
            emb.calls.clear()
            decisions = vault.agent("b").add_facts(facts).decisions
            runs[speculate] = ([(d.entity, d.aligned_from, str(d.outcome)) for d in decisions], emb.calls)
            assert vault.get("user.years").values == ("34",) and vault.get("user.budget.trip").values == ("2000 dollars",)
    (default, calls), (eager, eager_calls) = runs[few], runs[len(facts)]
    assert default == eager
    assert ("user.years", None, "active") in default and ("user.budget.trip", None, "active") in default
    embedded = {t for call in calls for t in call}
    assert "years" not in embedded and "budget trip" not in embedded  # nothing to compare them with
    assert {"hobby 0", "club nights"} <= embedded  # these were compared with the candidates
    assert {"years", "budget trip"} <= set(eager_calls[0])


def test_a_label_ranked_against_no_candidate_embeds_nothing():
    emb = CountingEmbedder()
    matcher = LabelMatcher(emb)
    assert matcher.rank("user.shoe_size", []) == [] and matcher.choose("user.shoe_size", []) is None
    assert emb.calls == []


def test_the_phrases_compared_again_stay_kept_while_new_labels_pass_through():
    """The cache drops the least recently used phrase: a candidate compared with one new
    label after another (a registry key) outlives the new labels' own phrases."""
    emb = CountingEmbedder()
    matcher = LabelMatcher(emb)
    matcher.MAX_CACHED = 50
    for i in range(200):
        matcher.rank(f"user.topic_{i}", ["user.diet"])
    assert not matcher.missing(["diet", "topic 199"]) and matcher.missing(["topic 0"]) == ["topic 0"]
    assert sum(call.count("diet") for call in emb.calls) == 1  # embedded once, never again


def test_the_label_vectors_kept_are_bounded():
    matcher = LabelMatcher(HashingEmbedder())
    matcher.MAX_CACHED = 50
    matcher.warm([f"label {i}" for i in range(120)])
    assert len(matcher._vectors) == 50 and matcher.missing(["label 119", "label 0"]) == ["label 0"]
    assert matcher.rank("label 119", ["user.label_119"])[0][0] > 0.99  # still answers after dropping old ones
