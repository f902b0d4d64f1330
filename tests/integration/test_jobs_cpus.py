"""A bulk job beside actors that hold Ray's CPUs (a Serve replica's --replica-cpus): sized by the
free CPUs, and a clear error at once when none is free, never a silent wait (QA qa1 M2)."""

from __future__ import annotations

import time

import pytest
import ray

from vault_ray import ClusterError
from vault_ray.evals.embedder_spec import as_factory
from vault_ray.evals.text_vectors import embed_texts, pool_size


@ray.remote(num_cpus=0)
class Holder:
    def ping(self) -> int:
        return 1


def hold(cpus: int):  # type: ignore[no-untyped-def]
    holder = Holder.options(num_cpus=cpus).remote()  # type: ignore[attr-defined]
    ray.get(holder.ping.remote(), timeout=60)
    return holder


def test_a_job_finding_no_free_cpu_says_so_at_once_and_one_finding_some_fits_in_them(ray_session):
    total = int(ray.cluster_resources()["CPU"])
    assert total >= 2
    holder = hold(total)
    try:
        started = time.monotonic()
        with pytest.raises(ClusterError, match=f"no Ray CPU is free .*Ray has {total}, all held.*--replica-cpus"):
            list(embed_texts(["the user lives in Paris"], as_factory("hashing")))
        assert time.monotonic() - started < 40
    finally:
        ray.kill(holder)
    holder = hold(total - 1)  # a replica of one CPU: the pool gets the one left, and runs
    try:
        assert pool_size(1, None) == (1, 1)
        with pytest.raises(Exception, match="need 2 Ray CPUs; Ray has 1 free of"):
            pool_size(2, None)
        (batch,) = list(embed_texts(["the user lives in Paris"], as_factory("hashing")))
        assert batch.num_rows == 1
    finally:
        ray.kill(holder)
