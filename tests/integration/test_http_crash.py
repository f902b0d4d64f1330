"""A shard actor killed during a stream of HTTP writes: the replica's cluster handle
waits for the restart and asks again, so every write the service acknowledged is in
the store exactly once, and a client resending a request (the same claim ids) gets
the decisions of the first time."""

from __future__ import annotations

import threading
import time
import uuid
from collections import Counter

import ray

from vault_ray import Fact

from .served import served


class HttpStream:
    """Three agents' clients writing distinct facts back to back; records what was acknowledged."""

    def __init__(self, clients, entities: int = 8) -> None:
        self.clients, self.entities = clients, entities
        self.acked: dict[str, tuple[int, Fact, object]] = {}
        self.errors: list[BaseException] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        i = 0
        while not self._stop.is_set():
            who = i % len(self.clients)
            fact = Fact(f"user.k{i % self.entities}", f"the value is v{i}", f"v{i}", claim_id=uuid.uuid4().hex)
            try:
                (decision,) = self.clients[who].add_facts([fact], resolve=False).decisions
            except BaseException as exc:  # noqa: BLE001 (the test reports it)
                self.errors.append(exc)
                return
            self.acked[fact.claim_id] = (who, fact, decision)
            i += 1

    def wait_for(self, count: int, timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        while len(self.acked) < count and not self.errors:
            assert time.monotonic() < deadline, f"only {len(self.acked)} writes acknowledged"
            time.sleep(0.05)
        assert not self.errors, self.errors

    def __enter__(self) -> HttpStream:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=180)


def test_a_shard_killed_mid_stream_loses_no_acknowledged_write(serve_port, tmp_path):
    with served(tmp_path, serve_port) as store:
        clients = [store.client(agent, timeout=120) for agent in ("a", "b", "c")]
        namespace = store.vault.info().namespace
        pids = {i["name"]: i["pid"] for i in store.vault._backend.shard_infos()}
        with HttpStream(clients) as stream:
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
