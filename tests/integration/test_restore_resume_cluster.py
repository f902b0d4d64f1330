"""An interrupted restore into a cluster-mode store resumes as a restore (qa9 F1 across
modes): the record of the restore is kept by the control actor in the store directory,
each partition is restored by its owner shard."""

from __future__ import annotations

import pytest
from bulk_data import fill, reads
from interrupting import ctrl_c_after

from vault_ray import Fact, HashingEmbedder, StoreError, Vault


def test_a_cluster_restore_cut_short_is_resumed_by_the_same_import(cluster, tmp_path):
    source = cluster("source")
    fill(source, claims=300, seed=13)
    expected = reads(source)
    exported = source.export(tmp_path / "export")
    with Vault.open(tmp_path / "other", embedder=HashingEmbedder(), partitions=4) as other:
        other.agent("ops").add_facts([Fact("user.city", "The user lives in Porto", "porto")])
        other.export(tmp_path / "other-export")

    copy = cluster("copy")
    with ctrl_c_after(copy._backend, "restore_partition", 2), pytest.raises(KeyboardInterrupt):
        copy.import_from(tmp_path / "export")
    assert (tmp_path / "copy" / "restoring.json").exists()
    with pytest.raises(StoreError) as refused:  # another export: refused, naming the unfinished restore
        copy.import_from(tmp_path / "other-export")
    assert "unfinished restore" in str(refused.value) and "--namespace" in str(refused.value)
    resumed = copy.import_from(tmp_path / "export")
    assert (resumed.mode, resumed.resumed, resumed.rows) == ("restore", 2, exported.rows)
    assert reads(copy) == expected and all(copy.check().values())
    assert not (tmp_path / "copy" / "restoring.json").exists()
