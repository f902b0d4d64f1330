"""An interrupted restore into a cluster-mode store resumes as a restore (qa9 F1 across
modes): the record of the restore is kept by the control actor in the store directory,
each partition is restored by its owner shard."""

from __future__ import annotations

import pytest
from bulk_data import fill, reads
from interrupting import ctrl_c_after
from test_restore_unfinished import CountingEmbedder  # keeps the texts it embedded

from vault_ray import (
    Fact,
    HashingEmbedder,
    InvalidEntity,
    Policy,
    RestoreUnfinished,
    StoreError,
    UnfinishedRestoreWarning,
    Vault,
)

PORTO = Fact("user.city", "The user lives in Porto", "porto")


def test_a_cluster_restore_cut_short_is_resumed_by_the_same_import(cluster, tmp_path):
    source = cluster("source")
    fill(source, claims=300, seed=13)
    expected = reads(source)
    exported = source.export(tmp_path / "export")
    with Vault.open(tmp_path / "other", embedder=HashingEmbedder(), partitions=4) as other:
        other.agent("ops").add_facts([Fact("user.city", "The user lives in Porto", "porto")])
        other.export(tmp_path / "other-export")

    copy = cluster("copy")
    namespace = copy.info().namespace
    joined = Vault.connect("auto", namespace=namespace, embedder=CountingEmbedder())  # before the restore: not told
    late = Vault.connect("auto", namespace=namespace, embedder=CountingEmbedder())  # not told either
    with ctrl_c_after(copy._backend, "restore_partition", 2), pytest.raises(KeyboardInterrupt):
        copy.import_from(tmp_path / "export")
    assert (tmp_path / "copy" / "restoring.json").exists()
    with pytest.raises(StoreError) as refused:  # another export: refused, naming the unfinished restore
        copy.import_from(tmp_path / "other-export")
    assert "unfinished restore" in str(refused.value) and "--namespace" in str(refused.value)
    with pytest.warns(UnfinishedRestoreWarning, match="unfinished restore"):  # a client joining now is told
        other = Vault.connect("auto", namespace=namespace, embedder=CountingEmbedder())
    try:
        with pytest.raises(InvalidEntity):  # the writer's own mistake comes first
            joined.agent("ops").add_facts([Fact("User City!", "The user lives in Porto", "porto")])
        with pytest.raises(RestoreUnfinished):  # refused by the shard: the client that was not told learns it
            joined.agent("ops").add_facts([PORTO])
        with pytest.raises(RestoreUnfinished):  # a rule run, refused by the shards, teaches it as well
            late.apply_rules()
        with pytest.raises(RestoreUnfinished):  # and its next write is refused before it is embedded
            late.agent("ops").add("I live in Porto")
        assert late.embedder.texts == []
        for vault, embedder in ((other, other.embedder), (joined, joined.embedder)):  # a client that knows:
            seen = list(embedder.texts)  # refused before extracting and embedding (the shards still check)
            for write in (lambda v: v.agent("ops").add("I live in Porto"), lambda v: v.agent("crm").add_facts([PORTO])):
                with pytest.raises(RestoreUnfinished, match=f"--namespace {namespace}"):
                    write(vault)
            assert embedder.texts == seen
        before = reads(other, explain=False)
        for vault in (copy, other):  # the shards and the control actor refuse, whichever client asks
            for change in (lambda v: v.agent("ops").add_facts([PORTO]), lambda v: v.set_strategy("user.location", "recency"),
                           lambda v: v.set_policy(Policy(max_open_disputes=5)), lambda v: v.apply_rules(),
                           lambda v: v.forget("user.auth.e1", decided_by="ops"), lambda v: v.export(tmp_path / "out")):
                with pytest.raises(RestoreUnfinished) as refused:
                    change(vault)
                assert "unfinished restore" in str(refused.value) and f"--namespace {namespace}" in str(refused.value)
        assert reads(other, explain=False) == before and not (tmp_path / "out").exists()
        resumed = copy.import_from(tmp_path / "export")
        assert (resumed.mode, resumed.resumed, resumed.rows) == ("restore", 2, exported.rows)
        assert reads(copy) == expected and all(copy.check().values())
        assert not (tmp_path / "copy" / "restoring.json").exists()
        # finished: every client writes again (the shards were told)
        assert [str(d.outcome) for d in other.agent("ops").add_facts([PORTO]).decisions] == ["active"]
        assert [d.value for d in joined.agent("ops").add("I live in Lisbon").decisions] == ["Lisbon"]
        copy.set_strategy("user.location", "recency")
    finally:
        other.close()
        joined.close()
        late.close()
