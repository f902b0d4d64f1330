"""`eval --from-store` replays a store's retractions at their place (qa2): a claim a person
took back (`retract`, `forget`) comes back under no policy, `store` and `lww` included,
and what an agent wrote after the retraction meets the store as it was then."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from vault_ray import Fact, HashingEmbedder, Policy, Vault
from vault_ray.cli import app
from vault_ray.evals.from_store import WHATIF_POLICIES, what_if

T0 = 1_700_000_000.0
POLICY = Policy(default_strategy="recency", strategies={"user.timezone": "authority"},
                authority={"scheduler": {"*": 0.9}, "chat": {"*": 0.2}})
runner = CliRunner()


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "store"
    with Vault.open(path, embedder=HashingEmbedder(), policy=POLICY, partitions=4) as vault:
        sched, chat = vault.agent("scheduler"), vault.agent("chat")
        gym = sched.add_facts([Fact("user.schedule.gym", "Gym at 6am", value="6am", observed_at=T0)])
        vault.retract(gym.decisions[0].claim_id, decided_by="user", note="never said it")
        # the trusted scheduler's pst is taken back; the chat's later cet then stands alone
        pst = sched.add_facts([Fact("user.timezone", "The user is in PST", value="pst", observed_at=T0 + 10)])
        vault.retract(pst.decisions[0].claim_id, decided_by="user", note="wrong user")
        chat.add_facts([Fact("user.timezone", "The user is in CET", value="cet", observed_at=T0 + 20)])
        # forget: every live claim of the entity, two agents' values
        sched.add_facts([Fact("user.diet", "The user is vegan", value="vegan", observed_at=T0 + 30)])
        chat.add_facts([Fact("user.pets", "The user has a cat", value="cat", observed_at=T0 + 40)])
        vault.forget("user.pets", decided_by="user", note="no pets")
        chat.add_facts([Fact("user.location", "The user lives in Oslo", value="oslo", observed_at=T0 + 50)])
        assert vault.get("user.timezone").values == ("cet",) and not vault.get("user.timezone").contested
        assert vault.get("user.schedule.gym").values == () and vault.get("user.pets").values == ()
    return path


def test_no_policy_brings_a_retracted_claim_back(store):
    result = what_if(store, list(WHATIF_POLICIES))
    assert result.stored == {"user.schedule.gym": "-", "user.timezone": "cet", "user.diet": "vegan",
                             "user.pets": "-", "user.location": "oslo"}
    for policy in WHATIF_POLICIES:
        assert result.answers[policy]["user.schedule.gym"] == "-", policy
        assert result.answers[policy]["user.pets"] == "-", policy
        # pst was gone before cet came: under authority too, cet meets no heavier value
        assert result.answers[policy]["user.timezone"] == "cet", (policy, result.answers[policy])
        assert result.differences(policy) == [], (policy, result.answers[policy])


def test_an_export_replays_the_same_retractions(store, tmp_path):
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        vault.export(tmp_path / "export")
    result = what_if(tmp_path / "export", ["lww", "store", "authority"])
    assert all(result.differences(p) == [] for p in ("lww", "store", "authority")), result.answers


def test_a_retraction_after_a_later_write_leaves_that_write_standing(tmp_path):
    path = tmp_path / "later"
    with Vault.open(path, embedder=HashingEmbedder(), partitions=2) as vault:
        old = vault.agent("a").add_facts([Fact("user.employer", "Works at Acme", value="Acme", observed_at=T0)])
        vault.agent("b").add_facts([Fact("user.employer", "Works at Globex", value="Globex", observed_at=T0 + 5)])
        vault.retract(old.decisions[0].claim_id, decided_by="user")  # superseded already: changes no read
        assert vault.get("user.employer").values == ("Globex",)
    result = what_if(path, ["lww", "store", "recency"])
    assert {p: result.answers[p]["user.employer"] for p in result.answers} == dict.fromkeys(result.answers, "Globex")


def test_the_cli_report_shows_no_difference_for_a_retraction(store, tmp_path):
    out = tmp_path / "whatif"
    result = runner.invoke(app, ["eval", "--from-store", str(store), "--out", str(out)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    report = (out / "from_store.md").read_text()
    assert "6am" not in report and "cat" not in report and "pst" not in report, report
