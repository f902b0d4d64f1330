"""Keep both is refused for a value and its denial ("peanuts" / "not:peanuts", "dog:Rex" /
"not:pet"), as for two holders of a single-valued role: keeping both would leave the entity
holding a contradiction nothing flags. The person picks a winner instead; over HTTP a 409,
and the inbox offers no "keep both" on such a dispute."""

from __future__ import annotations

import httpx
import pytest

from vault_ray import Fact
from vault_ray.errors import DisputeError

CASES = [("user.allergies", "peanuts", "not:peanuts"), ("user.allergies", "not:peanuts", "peanuts"),
         ("user.pets", "dog:Rex", "not:pet"), ("user.pets", "not:pet", "cat:Tom"),
         ("user.language", "Spanish", "not:Spanish"), ("user.language", "not:Spanish", "Spanish")]


def _dispute(vault, entity: str, first: str, second: str):
    vault.set_strategy(entity, "authority")
    vault.set_authority("ag3", entity, 0.9)
    vault.agent("ag3").add_facts([Fact(entity, first, first)], resolve=False)
    (d,) = vault.agent("ag4").add_facts([Fact(entity, second, second)], resolve=False).decisions
    assert d.dispute_id, d
    return d


@pytest.mark.parametrize(("entity", "first", "second"), CASES)
def test_keep_both_is_refused_for_a_value_and_its_denial_and_a_winner_still_works(make_vault, entity, first, second):
    vault = make_vault()
    d = _dispute(vault, entity, first, second)
    with pytest.raises(DisputeError, match="denial") as refused:
        vault.resolve_dispute(d.dispute_id, None, decided_by="dana", keep_both=True)
    assert first in str(refused.value) and second in str(refused.value)
    assert vault.dispute(d.dispute_id).status == "open" and vault.get(entity).contested  # unchanged
    vault.resolve_dispute(d.dispute_id, d.claim_id, decided_by="dana")
    assert [c.value for c in vault.get(entity).active] == [second] and not vault.get(entity).contested


def test_keep_both_still_keeps_two_values_that_do_not_deny_each_other(make_vault):
    vault = make_vault()  # a dispute opened while user.employer held one value; now it holds many
    d = _dispute(vault, "user.employer", "Google", "Apple")
    vault.set_cardinality("user.employer", "many")  # widening keeps both itself (QA8 F9, engine/widen.py)
    assert vault.dispute(d.dispute_id).resolution.keep_both and vault.disputes() == []
    assert sorted(c.value for c in vault.get("user.employer").active) == ["Apple", "Google"]


def test_keep_both_still_keeps_a_like_and_a_dislike_of_one_thing(make_vault):
    vault = make_vault()  # mixed feelings are no denial: the person may keep both
    d = _dispute(vault, "user.likes", "likes:jazz", "dislikes:jazz")
    vault.resolve_dispute(d.dispute_id, None, decided_by="dana", keep_both=True)
    assert sorted(c.value for c in vault.get("user.likes").active) == ["dislikes:jazz", "likes:jazz"]


def test_keep_both_over_http_is_a_409_naming_both_values_and_the_inbox_offers_only_the_values(served_app):
    vault = served_app.vault
    d = _dispute(vault, "user.allergies", "peanuts", "not:peanuts")
    person = served_app.token("dana", "resolver")
    answer = httpx.post(f"{served_app.url}/v1/disputes/{d.dispute_id}/resolve",
                        headers={"Authorization": f"Bearer {person}"}, json={"keep_both": True}, timeout=60)
    assert answer.status_code == 409, answer.text
    assert "'peanuts'" in answer.json()["detail"] and "'not:peanuts'" in answer.json()["detail"]
    page = httpx.get(f"{served_app.url}/inbox", cookies={"vault_inbox": person}, timeout=60)
    assert page.status_code == 200 and d.dispute_id in page.text and 'value="keep_both"' not in page.text
    assert [c.value for c in vault.get("user.allergies").active] == ["peanuts"]
