"""A high-stakes pattern added after a dispute opened, in cluster mode (QA qa2 s06): the
shards read the dispute as waiting for a person from the change on, as embedded mode does,
and removing the pattern undoes it (tests/test_high_stakes_later.py). Each change publishes
one `dispute_changed` event per dispute it makes read otherwise, from the shard that owns it
(tests/test_high_stakes_events.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from vault_ray import AutoResolveRules, Fact, Policy

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
KEYS = ("user.medication", "user.music", "user.tools", "user.games")  # several partitions, so both shards


def steps(vault) -> list[tuple[str, ...]]:
    opened = {}
    for n, key in enumerate(KEYS):
        for agent, value in (("a", "first"), ("b", "second")):
            fact = Fact(entity=key, text=f"{key} {value}", value=value, observed_at=T0 + timedelta(hours=n))
            opened[key] = vault.agent(agent).add_facts([fact]).decisions[0].dispute_id

    def needs() -> tuple[str, ...]:
        listed = {d.id: d.needs_user for d in vault.disputes()}
        return tuple(sorted(k for k, i in opened.items() if vault.dispute(i).needs_user and listed[i]
                            and any(d.needs_user for d in vault.get(k).disputes)))

    def told(change) -> tuple[str, ...]:
        """The events `change` publishes: (entity, needs_user, reason), sorted; the stream's cursor moves on."""
        cursor = vault.events(since="now").cursor
        change()
        return tuple(sorted(f"{e.entity} {e.needs_user} {e.reason}" for e in vault.events(since=cursor)))

    seen = [needs()]
    seen.append(told(lambda: vault.patch_policy(
        {"high_stakes": [*vault.policy.high_stakes, "user.medication", "user.tools.*"]})))
    seen.append(needs())
    seen.append(told(lambda: vault.set_policy(vault.policy)))  # the same again: nothing to tell
    seen.append(told(lambda: vault.patch_policy(
        {"high_stakes": [p for p in vault.policy.high_stakes if p != "user.tools.*"]})))
    seen.append(needs())
    closed = vault.apply_rules(now=datetime.now(UTC) + timedelta(hours=1))
    seen.append(tuple(sorted(d.entity for d in closed)))
    return seen


def test_cluster_mode_reads_a_later_high_stakes_pattern_as_embedded_mode_does(cluster, make_vault):
    policy = Policy(default_strategy="authority", rules=AutoResolveRules(stale_after_s=60))
    got = steps(cluster(policy=policy))
    assert got == steps(make_vault("embedded", policy=policy))
    assert got == [(), ("user.medication True high_stakes", "user.tools True high_stakes"),
                   ("user.medication", "user.tools"), (), ("user.tools False high_stakes_lifted",),
                   ("user.medication",), ("user.games", "user.music", "user.tools")]
