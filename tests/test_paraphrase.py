"""An agent's third-person summary of the user's words (MCP `remember`, POST /v1/messages) is
read as the user's own words (qa7 F10): "User works at Google as an engineer" gives the same
facts as "I work at Google as an engineer"; a sentence about someone else stays theirs."""

from __future__ import annotations

import pytest

from vault_ray import HashingEmbedder, Vault
from vault_ray.reasoners.paraphrase import first_person_turn

SAME = [  # the agent's paraphrase, the user's own words
    ("User works at Google as an engineer.", "I work at Google as an engineer."),
    ("User prefers to be contacted by email.", "I prefer to be contacted by email."),
    ("The user no longer eats meat.", "I no longer eat meat."),
    ("The user said their timezone is PST.", "My timezone is PST."),
    ("The user mentioned that she lives in Denver.", "I live in Denver."),
    ("The user told me they are allergic to peanuts.", "I'm allergic to peanuts."),
    ("The user's wife is named Anna.", "My wife is named Anna."),
    ("The user has two cats.", "I have two cats."),
    ("The user doesn't eat pork.", "I don't eat pork."),
    ("The user lives in Berlin with their partner. The user studies French.",
     "I live in Berlin with my partner. I study French."),
]


def facts(vault: Vault, agent: str, text: str) -> list[tuple[str, str]]:
    result = vault.agent(agent).add(text)
    return sorted((vault.claim(d.claim_id).entity, vault.claim(d.claim_id).value) for d in result.decisions)


@pytest.mark.parametrize(("paraphrase", "said"), SAME, ids=[s[:28] for s, _ in SAME])
def test_a_paraphrase_stores_what_the_users_own_words_store(tmp_path, paraphrase, said):
    assert first_person_turn(paraphrase) == said
    with Vault.open(tmp_path / "a", embedder=HashingEmbedder()) as a, \
            Vault.open(tmp_path / "b", embedder=HashingEmbedder()) as b:
        got = facts(a, "summarizer", paraphrase)
        assert got and got == facts(b, "chat", said)


@pytest.mark.parametrize("text", [
    "The user's brother lives in Rome.",  # the brother's home, said in the first person: still the brother's
    "The user interface looks great.",
    "User error, sorry.",
    "The user said PST is their zone.",  # no pronoun right after "said": left as it is
    "Does the user live in Berlin?",
    "I live in Berlin.",
])
def test_what_is_no_sentence_about_the_user_is_left_as_it_is(tmp_path, text):
    turned = first_person_turn(text)
    assert turned == text or turned == "My brother lives in Rome."
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        stored = facts(vault, "summarizer", text)
    assert ("user.location", "Rome") not in stored and all(e != "user.location" or v == "Berlin" for e, v in stored)


def test_a_paraphrase_from_a_second_agent_replaces_by_recency(tmp_path):
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        vault.agent("chat").add("I live in Austin.")
        vault.agent("summarizer").add("The user moved to Seattle last month.")
        assert vault.get("user.location").values == ("Seattle",)
