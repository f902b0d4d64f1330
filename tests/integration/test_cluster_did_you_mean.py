"""QA round 98 L4 in cluster mode: the shards answer "did you mean" for their partitions,
the client merges them, and a new key is suggested once written."""

from __future__ import annotations

from vault_ray import Fact


def test_a_typo_in_cluster_mode_names_the_keys_meant(cluster):
    vault = cluster(shards=2, partitions=4)
    keys = ["user.employer", "user.timezone", "project.deadline"] + [f"user.topic_{i:03d}" for i in range(40)]
    vault.agent("a").add_facts([Fact(k, f"{k} noted", value="x") for k in keys], resolve=False)
    assert vault.get("user.emplyer").suggestions == ("user.employer",)
    assert vault.get("usr.timezone").suggestions == ("user.timezone",)
    assert vault.get_many(["project.dedline"])["project.dedline"].suggestions == ("project.deadline",)
    assert vault.get("user.employer").suggestions == () and vault.get("user.hobby").suggestions == ()
    assert vault.get("user.emplyee").suggestions == ("user.employer",)
    vault.agent("b").add_facts([Fact("user.employee", "the user is an employee", value="yes")])
    assert vault.get("user.emplyee").suggestions[:2] == ("user.employee", "user.employer")
