"""Entity resolution without vectors of meaning (hashing vectors, or no embedder): a new
label's statement may share tokens with another entity's key ("agent-a", a number), which
says nothing about what the writer's own key names. A label is moved onto a key by the
words of its statement only when the two labels share a word (after normalization:
singular, respellings, compounds, registry aliases, the same kind of value)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from vault_ray import EntityRegistry, Fact, HashingEmbedder, RuleReasoner, Vault
from vault_ray.reasoners.labels import same_words

UNRELATED = [
    # the QA case: the statement repeats the words of another agent's key
    (("user.rs_agent_a_0", "user.rs_agent_a_0 is agent-a-2", "agent-a-2"), ("user.wh.ka_0", "wh agent-a 0", "agent-a0")),
    (("user.rs_agent_a_0", "user.rs_agent_a_0 is agent-a-2", "agent-a-2"),
     ("user.hotcity", "user.hotcity agent-a-0-1", "agent-a-0-1")),
    (("user.project_alpha", "project alpha ships on friday with the beta team", "friday"),
     ("user.team_beta", "the beta team ships project alpha", "yes")),
    # shares a label word (agent), but no topic word of its statement besides it: a number is no topic
    (("user.rs_agent_a_0", "user.rs_agent_a_0 is agent-a-2", "agent-a-2"), ("user.notes_agent", "notes of agent-a 0", "x")),
]


@pytest.mark.parametrize(("first", "second"), UNRELATED, ids=[s[0] for _, s in UNRELATED])
def test_a_key_is_not_moved_onto_an_entity_its_statement_merely_names(tmp_path, first, second):
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        vault.agent("agent-a").add_facts(Fact(*first))
        (d,) = vault.agent("agent-a").add_facts(Fact(*second)).decisions
        assert (d.entity, d.aligned_from, str(d.op)) == (second[0], None, "ADD")
        assert vault.get(first[0]).values == (first[2],)  # the agent's own value there is untouched
        assert vault.get(second[0]).values == (second[2],)


@pytest.mark.parametrize(("first", "second"), [
    (("user.favorite_book", "The user's favorite book is Dune by Frank Herbert", "Dune"),
     ("user.fav_novel", "The user's favorite novel is Dune by Frank Herbert", "Dune")),
    (("user.project_alpha", "project alpha ships on friday with the beta team", "friday"),
     ("user.project_deadline", "the deadline of project alpha is friday", "friday")),
])
def test_a_label_that_shares_a_word_still_joins_by_its_statement(tmp_path, first, second):
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        vault.agent("a").add_facts(Fact(*first))
        (d,) = vault.agent("b").add_facts(Fact(*second)).decisions
        assert (d.entity, d.aligned_from) == (first[0], second[0])


@pytest.mark.parametrize("reasoner", [RuleReasoner(HashingEmbedder()), RuleReasoner()], ids=["hashing", "none"])
def test_the_word_fallback_asks_the_label_for_a_shared_word(reasoner):
    assert reasoner.disambiguate(Fact("user.wh.ka_0", "wh agent-a 0", "agent-a0"), ["user.rs_agent_a_0"]) is None
    fact = Fact("user.project_deadline", "the deadline of project alpha is friday", "friday")
    assert reasoner.disambiguate(fact, ["user.team_beta", "user.project_alpha"]) == "user.project_alpha"
    assert reasoner.disambiguate(replace(fact, entity="user.due_date"), ["user.project_alpha"]) is None


@pytest.mark.parametrize(("label", "key", "shared"), [
    ("user.home_tz", "user.timezone", True),  # a registry alias of the key (user.tz)
    ("user.clock_zone", "user.timezone", True),  # a word and its compound
    ("user.time_zone_name", "user.timezone", True),
    ("user.hotcity", "user.home_city", True),
    ("user.dietary_needs", "user.diet", True),  # one word said two ways
    ("user.fav_novel", "user.favorite_book", True),
    ("user.kids_names", "user.family", True),  # a registry alias of the key (user.kids)
    ("user.sibling_names", "user.family", True),  # its description ("the user's family members: ... siblings")
    ("user.residence", "user.location", True),  # the same kind of value: a place
    ("user.mobile_no", "user.phone", True),  # a phone
    ("user.workplace", "user.employer", True),  # an organisation
    ("user.wh.ka_0", "user.rs_agent_a_0", False),  # `a` is no word of a topic, a number neither
    ("user.team_beta", "user.project_alpha", False),
    ("user.shoe_size", "user.diet", False),
])
def test_what_counts_as_a_shared_word(label, key, shared):
    assert same_words(label, key, EntityRegistry.builtin().lookup(key)) is shared
