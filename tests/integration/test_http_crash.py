"""A shard actor killed during a stream of HTTP writes: the replica's cluster handle
waits for the restart and asks again, so every write the service acknowledged is in
the store exactly once, and a client resending a request (the same claim ids) gets
the decisions of the first time."""

from __future__ import annotations

from collections import Counter

import ray

from .served import served
from .stream import Stream


def test_a_shard_killed_mid_stream_loses_no_acknowledged_write(serve_port, tmp_path):
    with served(tmp_path, serve_port) as store:
        clients = [store.client(agent, timeout=120) for agent in ("a", "b", "c")]
        namespace = store.vault.info().namespace
        pids = {i["name"]: i["pid"] for i in store.vault._backend.shard_infos()}
        with Stream(clients) as stream:
            stream.wait_for(20)
            ray.kill(ray.get_actor("vault-shard-0", namespace=namespace), no_restart=False)
            stream.wait_for(len(stream.acked) + 20)
            ray.kill(ray.get_actor("vault-shard-1", namespace=namespace), no_restart=False)
            stream.wait_for(len(stream.acked) + 20)
        assert not stream.errors, stream.errors
        after = {i["name"]: i["pid"] for i in store.vault._backend.shard_infos()}
        assert all(after[name] != pid for name, pid in pids.items())  # both shards really restarted

        claims = store.vault.claims()
        ids = [c.id for c in claims]
        assert len(ids) == len(set(ids)), "a claim was stored twice"
        assert set(ids) == set(stream.acked), "an acknowledged write is missing (or an unacknowledged one applied)"
        added = Counter(e.claim_id for e in store.vault.events() if e.kind == "claim_added")
        assert set(added.values()) == {1}
        assert all(store.vault.check().values())
        for cid, (who, fact, decision) in list(stream.acked.items())[::5]:  # resent: same ids, same answers
            (again,) = clients[who].add_facts([fact], resolve=False).decisions
            assert again == decision, cid
        assert len(store.vault.claims()) == len(claims)  # applied once
