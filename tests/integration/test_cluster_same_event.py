"""The policy's same-event window in cluster mode: the shards decide a repeated event by
the cluster's policy, and a change of it reaches them and the client's search."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from vault_ray import Fact, Kind, Policy
from vault_ray.models import Op

T0 = datetime.now(UTC) - timedelta(days=3)


def gym(minutes: float) -> Fact:
    return Fact("user.workout", "Went to the gym", value="gym", kind=Kind.EPISODIC, observed_at=T0 + timedelta(minutes=minutes))


def test_the_shards_decide_by_the_clusters_window(cluster):
    vault = cluster(shards=2, partitions=4, policy=Policy(same_event_window_s=600))
    agent = vault.agent("a")
    assert [agent.add_facts([gym(m)]).decisions[0].op for m in (0, 5, 30)] == [Op.ADD, Op.NOOP, Op.ADD]
    assert len(vault.search("went to the gym", k=5)) == 2
    vault.patch_policy({"same_event_window_s": 7200})
    assert agent.add_facts([gym(90)]).decisions[0].op == Op.NOOP  # within two hours of both records
    (hit,) = vault.search("went to the gym", k=5)  # one event now
    assert len(hit.agreeing) == 1
