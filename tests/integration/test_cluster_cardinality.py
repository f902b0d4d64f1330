"""A cardinality change from `many` to `one` in cluster mode (QA qa2 F7): refused with the
same message as in embedded mode while entities on several shards hold values at odds;
accepted once they do not, and the shards then decide by it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from vault_ray import Fact, InvalidPolicy, Policy

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
KEYS = ("user.sports", "user.music", "user.tools", "user.games")  # several partitions, so both shards


def steps(vault) -> tuple[str, str, tuple[str, ...]]:
    """The refusal of a change by key and by pattern, then what the accepted change decides."""
    ids = {}
    for n, key in enumerate(KEYS):
        for agent, value, hours in (("a", "first", 0), ("b", "second", 1)):
            at = T0 + timedelta(hours=hours + n)
            fact = Fact(entity=key, text=f"{key} {value}", value=f"{key[5:]}:{value}", observed_at=at)
            ids[key, agent] = vault.agent(agent).add_facts([fact]).decisions[0].claim_id
    before = vault.policy
    with pytest.raises(InvalidPolicy) as by_key:
        vault.set_cardinality("user.music", "one")
    with pytest.raises(InvalidPolicy) as by_pattern:
        vault.set_cardinality("user.*", "one")
    assert vault.policy == before
    for key in KEYS:
        vault.retract(ids[key, "b"], decided_by="user")
    vault.set_cardinality("user.*", "one")
    late = Fact(entity="user.tools", text="user.tools third", value="tools:third", observed_at=T0 + timedelta(hours=9))
    vault.agent("c").add_facts([late])
    return str(by_key.value), str(by_pattern.value), vault.get("user.tools").values


def test_cluster_mode_refuses_and_accepts_as_embedded_mode_does(cluster, make_vault):
    policy = Policy().with_cardinality("user.*", "many")
    embedded = steps(make_vault("embedded", policy=policy))
    clustered = steps(cluster(shards=2, partitions=4, policy=policy))
    assert clustered == embedded
    by_key, by_pattern, tools = clustered
    assert "user.music holds 'music:first', 'music:second'" in by_key and "user.sports" not in by_key
    assert "4 entities" in by_pattern and all(f"{k} holds" in by_pattern for k in KEYS)
    assert tools == ("tools:third",)  # 'one' now: the newer value replaced the single standing one
