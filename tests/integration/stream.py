"""A client writing distinct facts back to back in a thread, recording every
acknowledged write: what the recovery and rebalance tests check against."""

from __future__ import annotations

import threading
import time
import uuid

from vault_ray import Fact


class Stream:
    """One client writing distinct facts back to back, recording what was acknowledged."""

    def __init__(self, vault, entities: int = 8) -> None:
        self.vault, self.entities = vault, entities
        self.acked: dict[str, tuple[str, Fact, object]] = {}
        self.errors: list[BaseException] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        i = 0
        while not self._stop.is_set():
            agent = ("a", "b", "c")[i % 3]
            fact = Fact(f"user.k{i % self.entities}", f"the value is v{i}", f"v{i}", claim_id=uuid.uuid4().hex)
            try:
                (decision,) = self.vault.agent(agent).add_facts([fact], resolve=False).decisions
            except BaseException as exc:  # noqa: BLE001 (the test reports it)
                self.errors.append(exc)
                return
            self.acked[fact.claim_id] = (agent, fact, decision)
            i += 1

    def __enter__(self) -> Stream:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=120)

    def wait_for(self, count: int, timeout: float = 90.0) -> None:
        deadline = time.monotonic() + timeout
        while len(self.acked) < count and not self.errors:
            assert time.monotonic() < deadline, f"only {len(self.acked)} writes acknowledged"
            time.sleep(0.05)
        assert not self.errors, self.errors
