"""Same answers as embedded mode: every acceptance scenario of the claim ledger runs
on `Vault.open` and on `Vault.connect` (shard actors on Ray), and in cluster mode
its outcome must equal the embedded one, ids and times aside."""

from __future__ import annotations

import pytest

from .parity import SCENARIOS, Mode, normalize


@pytest.fixture
def embedded(tmp_path):
    mode = Mode("embedded", tmp_path)
    yield mode
    mode.close()


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_scenario_embedded(scenario, embedded):
    SCENARIOS[scenario](embedded)


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_scenario_cluster_same_as_embedded(scenario, cluster, embedded, tmp_path):
    on_cluster = Mode("cluster", tmp_path, cluster)
    try:
        got = SCENARIOS[scenario](on_cluster)
    finally:
        on_cluster.close()
    ours, theirs = normalize(got), normalize(SCENARIOS[scenario](embedded))
    assert ours.keys() == theirs.keys()
    for key in ours:  # one key at a time: a readable failure
        assert ours[key] == theirs[key], key
