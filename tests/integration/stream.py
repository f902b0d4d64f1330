"""Clients writing distinct facts back to back in a thread, recording every
acknowledged write: what the recovery, rebalance and HTTP crash tests check against."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Sequence

from vault_ray import Fact


class Stream:
    """Writers taking turns (agent handles of a vault, or HTTP clients: anything with
    `add_facts`), one distinct fact each time; `acked[claim_id]` is (writer position,
    fact, decision) of every acknowledged write."""

    def __init__(self, writers: Sequence, entities: int = 8, timeout: float = 120.0) -> None:
        self.writers, self.entities, self.timeout = list(writers), entities, timeout
        self.acked: dict[str, tuple[int, Fact, object]] = {}
        self.errors: list[BaseException] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    @classmethod
    def of(cls, vault, entities: int = 8) -> Stream:
        """Agents a, b and c of one vault."""
        return cls([vault.agent(a) for a in ("a", "b", "c")], entities)

    def _run(self) -> None:
        i = 0
        while not self._stop.is_set():
            who = i % len(self.writers)
            fact = Fact(f"user.k{i % self.entities}", f"the value is v{i}", f"v{i}", claim_id=uuid.uuid4().hex)
            try:
                (decision,) = self.writers[who].add_facts([fact], resolve=False).decisions
            except BaseException as exc:  # noqa: BLE001 (the test reports it)
                self.errors.append(exc)
                return
            self.acked[fact.claim_id] = (who, fact, decision)
            i += 1

    def __enter__(self) -> Stream:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=self.timeout + 60)

    def wait_for(self, count: int) -> None:
        deadline = time.monotonic() + self.timeout
        while len(self.acked) < count and not self.errors:
            assert time.monotonic() < deadline, f"only {len(self.acked)} writes acknowledged"
            time.sleep(0.05)
        assert not self.errors, self.errors
