"""The seed scenarios end to end over HTTP: two agent tokens and an admin token, each
through its own `VaultClient`, against the Serve app in front of a cluster-mode
store. The answers equal the embedded library's, field for field (ids aside); the
dispute is then settled by the admin, and only by the admin."""

from __future__ import annotations

import pytest
from scenarios import (
    authority_dispute,
    check_authority_dispute,
    check_recency_supersede,
    drifting_reasoner,
    recency_supersede,
)

from vault_ray import Forbidden, HashingEmbedder, Vault

from .parity import PARTITIONS, normalize
from .served import Fleet, served


def test_seed_scenarios_through_the_client(serve_port, tmp_path):
    with served(tmp_path / "http", serve_port, reasoner=drifting_reasoner(), partitions=PARTITIONS) as store:
        fleet = Fleet(store)
        first = authority_dispute(fleet)
        (b,) = first["b"]
        assert b.aligned_from == "user.wrong_label"  # label drift fixed in the replica's front stage
        check_authority_dispute(first)
        second = recency_supersede(fleet)  # on the same store: the timezone dispute stays open meanwhile
        check_recency_supersede({**second, "disputes": [d for d in second["disputes"] if d.entity != "user.timezone"]})

        with Vault.open(tmp_path / "embedded", embedder=HashingEmbedder(), partitions=PARTITIONS,
                        reasoner=drifting_reasoner()) as vault:
            assert normalize([first, second]) == normalize([authority_dispute(vault), recency_supersede(vault)])

        # contested reads, from the other agent's own token
        agent_b = fleet.agent("agent-b")
        (dispute,) = agent_b.disputes()
        view = agent_b.get("user.timezone")
        assert view.contested and sorted(c.claim.value for c in view.candidates) == ["EST", "PST"]
        top = agent_b.search("what timezone is the user in?", k=1)[0]
        assert top.contested and [c.id for c in top.alternatives] == [dispute.challenger]

        # only an admin token settles it, and the admin is who decided
        with pytest.raises(Forbidden):
            agent_b.resolve_dispute(dispute.id, dispute.challenger)
        assert agent_b.dispute(dispute.id).status == "open"
        done = fleet.resolve_dispute(dispute.id, dispute.challenger, note="moved to New York")
        assert done.status == "resolved" and done.resolution.decided_by == "ops"
        assert done.resolution.note == "moved to New York"
        after = agent_b.get("user.timezone")
        assert not after.contested and [c.value for c in after.active] == ["EST"]
        pst = agent_b.claim(dispute.incumbents[0])
        assert pst.status == "superseded" and pst.superseded_by == dispute.challenger
        assert agent_b.explain(dispute.challenger).decided_by.decided_by == "ops"
        assert [d.id for d in agent_b.disputes("resolved")] == [dispute.id] and agent_b.disputes() == []
