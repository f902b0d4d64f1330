"""A label that entity resolution aligned reads where its writes went: `get` and
`history` of the writer's own label answer with the entity its claim joined, also
after reopen, while a label the store never saw still reads empty."""

from __future__ import annotations

from datetime import timedelta

import pytest

from vault_ray import Fact, HashingEmbedder, Policy, Vault
from vault_ray.models import utcnow

POLICY = Policy(align_threshold=0.85, ask_threshold=0.85)  # align or keep: no reasoner question
TOKYO = "the user lives in the city of tokyo japan"


def _aligned(vault: Vault) -> str:
    vault.agent("a").add_facts([Fact("user.home_city", TOKYO, "tokyo")], resolve=False)
    (d,) = vault.agent("b").add_facts([Fact("user.residence_town", TOKYO, "tokyo")]).decisions
    assert (d.entity, d.aligned_from) == ("user.home_city", "user.residence_town")
    return d.claim_id


def test_get_and_history_of_an_aligned_label_read_the_entity_it_joined(tmp_path):
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(), partitions=4, policy=POLICY) as vault:
        before = utcnow()
        claim_id = _aligned(vault)
        view = vault.get("user.residence_town")
        assert view.entity == "user.home_city" and claim_id in {c.id for c in view.active}
        assert view == vault.get("user.home_city")
        assert {c.id for c in vault.history("user.residence_town")} == {c.id for c in vault.history("user.home_city")}
        both = vault.get_many(["user.residence_town", "user.home_city", "user.never_written"])
        assert both["user.residence_town"] == both["user.home_city"]
        assert both["user.never_written"].entity == "user.never_written" and not both["user.never_written"].active
        assert vault.history("user.never_written") == []
        # as_of reads follow the same key; before any write the entity was empty
        assert claim_id in {c.id for c in vault.get("user.residence_town", as_of=utcnow()).active}
        assert not vault.get("user.residence_town", as_of=before - timedelta(seconds=1)).active
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(), policy=POLICY) as vault:
        assert vault.get("user.residence_town").entity == "user.home_city"


def test_a_label_with_claims_of_its_own_reads_itself(tmp_path):
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(), partitions=4, policy=POLICY) as vault:
        _aligned(vault)
        vault.agent("c").add_facts([Fact("user.residence_town", "the user's residence town is nara", "nara")], resolve=False)
        view = vault.get("user.residence_town")
        assert view.entity == "user.residence_town" and view.values == ("nara",)


def test_once_no_claim_written_under_the_label_is_live_it_reads_empty_again(tmp_path):
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(), partitions=4, policy=POLICY) as vault:
        _aligned(vault)
        # agent b writes its own key now: its new claim supersedes the one aligned from the old label
        vault.agent("b").add_facts([Fact("user.home_city", "the user lives in the city of osaka japan", "osaka")],
                                   resolve=False)
        assert "osaka" in vault.get("user.home_city").values
        view = vault.get("user.residence_town")
        assert view.entity == "user.residence_town" and not view.active
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(), policy=POLICY) as vault:
        assert not vault.get("user.residence_town").active


def test_as_of_follows_a_label_only_while_a_claim_written_under_it_is_there(tmp_path):
    """Before any claim was written under the label, `get(label, as_of=...)` read the entity
    its later claim joined (the aligned map is the current one)."""
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(), partitions=4, policy=POLICY) as vault:
        vault.agent("a").add_facts([Fact("user.home_city", TOKYO, "tokyo")], resolve=False)
        before = utcnow()
        (d,) = vault.agent("b").add_facts([Fact("user.residence_town", TOKYO, "tokyo")]).decisions
        assert d.aligned_from == "user.residence_town"
        assert vault.get("user.residence_town", as_of=before).entity == "user.residence_town"
        assert not vault.get("user.residence_town", as_of=before).active
        assert vault.get("user.residence_town", as_of=utcnow()).entity == "user.home_city"
        # search and events with the label as their filter read the same entity
        (hit,) = vault.search("tokyo japan", entity="user.residence_town")  # one value: b's claim agrees with a's
        assert hit.claim.entity == "user.home_city" and [c.entity for c in hit.agreeing] == ["user.home_city"]
        assert vault.events(entity="user.residence_town") == vault.events(entity="user.home_city")



@pytest.mark.parametrize("resolve", [True, False])
def test_a_write_to_an_alias_is_decided_on_its_key_with_or_without_resolution(tmp_path, resolve):
    """`resolve=False` turns off the similarity search, not the registry: a low-authority
    agent's write to `user.city` (an alias of `user.location`) meets the key's policy."""
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        vault.set_strategy("user.location", "authority")
        vault.set_authority("a", "user.location", 0.9)
        vault.set_authority("b", "user.location", 0.1)
        vault.agent("a").add_facts(Fact("user.location", "The user lives in Paris", "Paris"))
        (d,) = vault.agent("b").add_facts(Fact("user.city", "The user lives in Berlin", "Berlin"), resolve=resolve).decisions
        assert (d.entity, d.aligned_from, str(d.outcome)) == ("user.location", "user.city", "disputed")
        assert vault.get("user.city").entity == "user.location"
        assert [c.value for c in vault.get("user.location").active] == ["Paris"]
        assert [c.entity for c in vault.claims()] == ["user.location", "user.location"]
