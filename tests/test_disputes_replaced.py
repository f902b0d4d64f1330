"""A dispute whose incumbent a newer claim replaced while it was open: closed for the
claim in its place, by `resolve_dispute` or by the stale rule (`disputes.successors`)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from vault_ray import AutoResolveRules, DisputeError, Fact, Policy
from vault_ray.models import utcnow

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def say(vault, agent, value, seconds=0.0, entity="user.diet"):
    fact = Fact(entity, f"{entity} is {value}", value=value, observed_at=T0 + timedelta(seconds=seconds))
    (decision,) = vault.agent(agent).add_facts(fact).decisions
    return decision


@pytest.mark.parametrize("close", ["resolve", "stale rule"])
def test_a_dispute_whose_incumbent_was_replaced_can_be_closed_for_the_claim_in_its_place(make_vault, close):
    """Recency: b's claim, 10 s after a's, is disputed (near-simultaneous); then c's newer
    claim supersedes a's, itself inside the window of b's (25 s): the strategy asked again still
    disputes. The dispute's only incumbent is gone: it could be closed only for b (c was 'not
    part of' it, a 'since superseded'), so the entity stayed contested."""
    vault = make_vault(policy=Policy(near_simultaneous_s=30, rules=AutoResolveRules(stale_after_s=60)))
    a = say(vault, "a", "vegan", 0)
    b = say(vault, "b", "vegetarian", 10)
    c = say(vault, "c", "pescatarian", 35)
    assert b.dispute_id and c.superseded == (a.claim_id,) and vault.get("user.diet").contested
    assert vault.dispute(b.dispute_id).reason.startswith("near-simultaneous: observed 25.0s apart")
    with pytest.raises(DisputeError, match=c.claim_id):  # the replaced incumbent names the claim in its place
        vault.resolve_dispute(b.dispute_id, winner=a.claim_id, decided_by="user")
    if close == "resolve":
        done = vault.resolve_dispute(b.dispute_id, winner=c.claim_id, decided_by="user")
    else:
        (done,) = vault.apply_rules(utcnow() + timedelta(hours=1))
    assert done.resolution.winner == c.claim_id and vault.disputes() == []
    view = vault.get("user.diet")
    assert view.values == ("pescatarian",) and not view.contested
    assert vault.claim(b.claim_id).superseded_by == c.claim_id


def test_the_disputes_table_names_the_claim_in_a_replaced_incumbents_place(make_vault, tmp_path):
    """The table showed the replaced incumbent alone, and resolving with its id failed."""
    from typer.testing import CliRunner

    from vault_ray.cli import app

    vault = make_vault("t", policy=Policy(near_simultaneous_s=30))
    say(vault, "a", "vegan", 0)
    b = say(vault, "b", "vegetarian", 10)
    c = say(vault, "c", "pescatarian", 35)  # newer than a's, inside b's window: the dispute stays open
    vault.close()
    shown = CliRunner().invoke(app, ["disputes", "--store", str(tmp_path / "t"), "--hashing"], env={"COLUMNS": "250"})
    assert shown.exit_code == 0 and b.dispute_id in shown.output
    flat = " ".join(shown.output.split())
    # the claim in the replaced incumbent's place is the dispute's incumbent now (QA round 91: live claims only)
    assert c.claim_id[:12] in flat and "pescatarian" in flat and "vegan" not in flat
