"""Webhook delivery: a `Dispatcher` follows the event stream once per registered
webhook and POSTs each wanted event to it, signed (`vault_ray.webhooks`).

- **Off the write path.** Each webhook has its own thread reading the claim logs'
  event rows after its own cursor; a write never waits for a delivery, and a slow or
  hanging receiver holds up only its own webhook.
- **At least once.** A webhook's cursor moves past an event only once the event was
  accepted (a 2xx answer) or given up on; the cursors are saved in
  `STORE/webhook-deliveries.json` after every attempt, so a restarted dispatcher
  resumes where it stood and may send the last event again: receivers deduplicate on
  `Idempotency-Key` (the same on every attempt of one event).
- **Retries** with exponential backoff (`DeliveryPolicy`), in order: a webhook's next
  event waits until the one before it was accepted or given up on after
  `max_attempts`. Given-up events are counted and listed (`status()`, `vault-ray
  webhook status`).

In embedded mode run one beside the vault (`Dispatcher(vault, store).start()`); in
cluster mode the Serve app starts one in a Ray actor (`vault_ray.actors.delivery`).
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from .errors import StoreError
from .events import START, EventPage, VaultEvent
from .jsonfile import write_private
from .webhooks import SIGNATURE_HEADER, TIMESTAMP_HEADER, Webhook, WebhookStore, signature
from .wire import encode

if TYPE_CHECKING:
    import httpx

DELIVERY_FILE = "webhook-deliveries.json"
KEEP_FAILURES = 20


@dataclass(frozen=True)
class DeliveryPolicy:
    timeout_s: float = 5.0
    """One attempt's limit (connect, send, answer)."""
    backoff_s: float = 1.0
    """The pause after the first failed attempt; it doubles after each further one."""
    max_backoff_s: float = 300.0
    max_attempts: int = 10
    """Attempts of one event before it is given up on (counted as failed)."""
    poll_s: float = 0.5
    """How often a webhook with nothing to send looks for new events."""
    page: int = 200


@dataclass
class HookState:
    """Where one webhook's deliveries stand (saved after every attempt)."""

    cursor: str | None = None
    delivered: int = 0
    failed: int = 0
    """Events given up on after `max_attempts`."""
    attempts: int = 0
    """Attempts so far of the event being sent (`head`)."""
    head: str | None = None
    last_status: int | None = None
    last_error: str | None = None
    last_attempt_at: float | None = None
    last_success_at: float | None = None
    failures: list[dict[str, Any]] = field(default_factory=list)
    """The last given-up events: event id, kind, attempts, error, when."""


class EventSource(Protocol):
    """Where events come from: a `Vault` is one."""

    def events(self, *, since: str, limit: int = ..., kinds: Any = ..., needs_user: bool | None = ...,
               entity: str | None = ...) -> EventPage: ...


def load_states(path: Path) -> dict[str, HookState]:
    try:
        data = json.loads(path.read_text())
        return {k: HookState(**v) for k, v in data.get("hooks", {}).items()}
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, TypeError) as exc:
        raise StoreError(f"cannot read the webhook delivery state {path}: {exc}") from exc


def delivery_status(store: str | Path) -> list[dict[str, Any]]:
    """Each registration (without its secret) with its delivery state: what `vault-ray
    webhook status` shows, readable while a dispatcher runs."""
    states = load_states(Path(store) / DELIVERY_FILE)
    return [{**h.public(), **asdict(states.get(h.id, HookState()))} for h in WebhookStore.for_store(store).list()]


class Dispatcher:
    def __init__(self, source: EventSource, store: str | Path, *, hooks: WebhookStore | None = None,
                 policy: DeliveryPolicy | None = None, transport: httpx.BaseTransport | None = None) -> None:
        self.source = source
        self.hooks = hooks if hooks is not None else WebhookStore.for_store(store)
        self.policy = policy or DeliveryPolicy()
        self.path = Path(store) / DELIVERY_FILE
        self.states = load_states(self.path)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._workers: dict[str, tuple[threading.Thread, threading.Event]] = {}
        import httpx  # noqa: PLC0415  (only a delivering process needs it: see vault_ray/__init__.py)

        self._http = httpx.Client(timeout=self.policy.timeout_s, transport=transport, follow_redirects=False)
        self._supervisor: threading.Thread | None = None

    # -- running ------------------------------------------------------------------------------
    def start(self) -> Dispatcher:
        """Deliver in the background until `stop()`; registrations are picked up as they change."""
        self._supervisor = threading.Thread(target=self._supervise, name="webhook-dispatcher", daemon=True)
        self._supervisor.start()
        return self

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        for _, stop in self._workers.values():
            stop.set()
        if self._supervisor is not None:
            self._supervisor.join(timeout)
        for thread, _ in self._workers.values():
            thread.join(timeout)
        self._http.close()

    def _supervise(self) -> None:
        while not self._stop.is_set():
            self.reconcile()
            self._stop.wait(self.policy.poll_s)

    def reconcile(self) -> None:
        """One worker per registered webhook: start the new ones, stop the removed ones."""
        try:
            hooks = {h.id: h for h in self.hooks.list()}
        except StoreError:
            return  # a half-written file by hand: keep the workers as they are, and look again
        for hook_id in set(self._workers) - set(hooks):
            self._workers.pop(hook_id)[1].set()
            with self._lock:
                self.states.pop(hook_id, None)
                self._save()
        for hook in hooks.values():
            if hook.id not in self._workers and not self._stop.is_set():
                stop = threading.Event()
                thread = threading.Thread(target=self._follow, args=(hook, stop), name=f"webhook-{hook.id}", daemon=True)
                self._workers[hook.id] = (thread, stop)
                thread.start()

    def status(self) -> list[dict[str, Any]]:
        with self._lock:
            return [{**h.public(), **asdict(self.states.get(h.id, HookState()))} for h in self.hooks.list()]

    # -- one webhook ----------------------------------------------------------------------------
    def _follow(self, hook: Webhook, stop: threading.Event) -> None:
        wanted = hook.wanted
        with self._lock:
            state = self.states.setdefault(hook.id, HookState())
            state.cursor = state.cursor or START
        while not stop.is_set():
            try:
                page = self.source.events(since=state.cursor, limit=self.policy.page, kinds=wanted.kinds,
                                          needs_user=wanted.needs_user, entity=wanted.entity)
            except Exception:  # noqa: BLE001  (the store restarting, say: look again after a pause)
                stop.wait(self.policy.poll_s)
                continue
            for event in page.events:
                if hook.since != START and event.ts.timestamp() < hook.created_at:
                    continue  # before the registration
                if not self._deliver(hook, state, event, stop):
                    return  # stopped: the cursor stays before this event
            with self._lock:
                if state.cursor != page.cursor:
                    state.cursor = page.cursor
                    self._save()
            if not page.more:
                stop.wait(self.policy.poll_s)

    def _deliver(self, hook: Webhook, state: HookState, event: VaultEvent, stop: threading.Event) -> bool:
        """Send `event` until accepted or given up on (True), or until stopped (False)."""
        body = json.dumps(encode(event), separators=(",", ":")).encode()
        if state.head != event.id:
            state.head, state.attempts = event.id, 0
        while not stop.is_set():
            state.attempts += 1
            status, error = self._attempt(hook, event, body, state.attempts)
            with self._lock:
                state.last_status, state.last_error, state.last_attempt_at = status, error, time.time()
                done = error is None or state.attempts >= self.policy.max_attempts
                if error is None:
                    state.delivered += 1
                    state.last_success_at = state.last_attempt_at
                elif done:
                    state.failed += 1
                    state.failures = [*state.failures, {"event": event.id, "kind": event.kind, "attempts": state.attempts,
                                                        "error": error, "at": state.last_attempt_at}][-KEEP_FAILURES:]
                if done:
                    state.cursor, state.head, state.attempts = event.cursor, None, 0
                self._save()
            if done:
                return True
            stop.wait(min(self.policy.backoff_s * 2 ** (state.attempts - 1), self.policy.max_backoff_s))
        return False

    def _attempt(self, hook: Webhook, event: VaultEvent, body: bytes, attempt: int) -> tuple[int | None, str | None]:
        """One POST: (HTTP status, None when accepted else why not)."""
        timestamp = str(int(time.time()))
        headers = {"Content-Type": "application/json", "Vault-Webhook-Id": hook.id, "Vault-Event-Id": event.id,
                   "Vault-Event-Kind": event.kind, "Idempotency-Key": f"{hook.id}.{event.id}",
                   "Vault-Delivery-Attempt": str(attempt), TIMESTAMP_HEADER: timestamp,
                   SIGNATURE_HEADER: signature(hook.secret, timestamp, body)}
        import httpx  # noqa: PLC0415  (loaded by __init__ already)

        try:
            answer = self._http.post(hook.url, content=body, headers=headers)
        except httpx.HTTPError as exc:
            return None, f"{type(exc).__name__}: {exc}"[:300]
        return answer.status_code, None if answer.is_success else f"HTTP {answer.status_code}"

    def _save(self) -> None:
        """The states to disk (the caller holds the lock)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_private(self.path, {"version": 1, "hooks": {k: asdict(v) for k, v in self.states.items()}})
