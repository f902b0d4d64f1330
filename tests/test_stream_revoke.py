"""A revoked token's open event streams end at once (docs/http.md "take effect at once"):
`/v1/events` and the inbox's `/inbox/stream`, over real HTTP on 127.0.0.1."""

from __future__ import annotations

import threading
import time

import httpx
import pytest

from vault_ray import UnknownAgent, VaultClient
from vault_ray.actors.serve.inbox import COOKIE
from vault_ray.tokens import TokenStore

pytest.importorskip("fastapi")


class Listener:
    """Reads one SSE stream in a thread; `lines` are its lines as they came, `ended` is set when the server closed it."""

    def __init__(self, url: str, headers: dict[str, str] | None = None, cookies: dict[str, str] | None = None) -> None:
        self.lines: list[str] = []
        self.status: int | None = None
        self.error: httpx.HTTPError | None = None  # the stream broke rather than ended (a server stopped under it)
        self.ended = threading.Event()
        self._args = (url, {**(headers or {}), "Accept": "text/event-stream"}, cookies)
        threading.Thread(target=self._run, daemon=True).start()
        deadline = time.monotonic() + 20
        while self.status is None and not self.ended.is_set():
            assert time.monotonic() < deadline, "the stream did not answer"
            time.sleep(0.02)

    def _run(self) -> None:
        url, headers, cookies = self._args
        try:
            with httpx.Client(timeout=httpx.Timeout(10, read=30), cookies=cookies) as c, \
                    c.stream("GET", url, headers=headers) as answer:
                self.status = answer.status_code
                for line in answer.iter_lines():
                    self.lines.append(line)
        except httpx.HTTPError as exc:
            self.error = exc
        finally:
            self.ended.set()

    def events(self) -> list[str]:
        return [line.split(":", 1)[1].strip() for line in list(self.lines) if line.startswith("event:")]

    def wait_for(self, text: str, count: int = 1, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while sum(text in line for line in list(self.lines)) < count:
            assert time.monotonic() < deadline, f"{text!r} never came: {self.lines}"
            time.sleep(0.05)


def _write(app, token: str, entity: str, value: str) -> None:
    answer = httpx.post(f"{app.url}/v1/facts", headers={"Authorization": f"Bearer {token}"}, timeout=60,
                        json={"facts": [{"entity": entity, "text": f"it is {value}", "value": value}]})
    assert answer.status_code == 200, answer.text


def _revoke(app, name: str) -> None:
    """As `vault-ray token revoke NAME` does it: another handle on the token file."""
    TokenStore(app.tokens.path).revoke(name)


def test_a_revoked_tokens_event_stream_ends_and_carries_nothing_written_after(served_app):
    watcher, other, writer = served_app.token("watcher"), served_app.token("other"), served_app.token("writer")
    watched = Listener(f"{served_app.url}/v1/events?since=now", {"Authorization": f"Bearer {watcher}"})
    kept = Listener(f"{served_app.url}/v1/events?since=now", {"Authorization": f"Bearer {other}"})
    assert watched.status == kept.status == 200
    _write(served_app, writer, "user.city", "Oslo")
    watched.wait_for("claim_added")
    kept.wait_for("claim_added")

    _revoke(served_app, "watcher")
    assert watched.ended.wait(10), "the revoked token's stream is still open"
    assert watched.error is None, watched.error  # ended as a stream ends, not broken off
    assert any("revoked" in line for line in watched.lines if line.startswith(":"))  # says why, as a comment
    seen = len(watched.events())
    _write(served_app, writer, "user.pet", "Rex")
    kept.wait_for("claim_added", 2)  # the other token's stream goes on
    assert not kept.ended.is_set()
    assert len(watched.events()) == seen
    again = httpx.get(f"{served_app.url}/v1/events", headers={"Authorization": f"Bearer {watcher}",
                                                              "Accept": "text/event-stream"}, timeout=10)
    assert again.status_code == 401


def test_follow_through_the_client_stops_with_unknown_agent_once_revoked(served_app):
    token, writer = served_app.token("follower", "resolver"), served_app.token("writer")
    got: list[str] = []
    failure: list[BaseException] = []

    def follow() -> None:
        try:
            with VaultClient(served_app.url, token) as client:
                for event in client.follow("now"):
                    got.append(event.entity)
        except BaseException as exc:  # noqa: BLE001 (checked below)
            failure.append(exc)

    thread = threading.Thread(target=follow, daemon=True)
    thread.start()
    deadline, tries = time.monotonic() + 20, 0
    while not got:  # a new value each time: the same one again is the same claim and no new event
        tries += 1
        _write(served_app, writer, "user.pet", f"cat{tries}")
        assert time.monotonic() < deadline, "follow saw nothing"
        time.sleep(0.3)
    _revoke(served_app, "follower")
    thread.join(15)
    assert not thread.is_alive(), "follow goes on with a revoked token"
    assert failure and isinstance(failure[0], UnknownAgent), failure


def test_the_inbox_stream_of_a_revoked_resolver_ends_with_signed_out(served_app):
    person, writer, rival = served_app.token("dana", "resolver"), served_app.token("a1"), served_app.token("a2")
    inbox = Listener(f"{served_app.url}/inbox/stream", cookies={COOKIE: person})
    assert inbox.status == 200
    _write(served_app, writer, "user.budget.trip", "$100")
    _write(served_app, rival, "user.budget.trip", "$900")  # high stakes: a dispute that waits for a person
    inbox.wait_for("dispute_opened")

    _revoke(served_app, "dana")
    assert inbox.ended.wait(10), "the revoked resolver's inbox stream is still open"
    assert inbox.error is None, inbox.error
    assert inbox.events()[-1] == "signed_out"
    opened = inbox.events().count("dispute_opened")
    _write(served_app, writer, "user.budget.food", "$10")
    _write(served_app, rival, "user.budget.food", "$90")
    time.sleep(1.5)
    assert inbox.events().count("dispute_opened") == opened
    page = httpx.get(f"{served_app.url}/inbox/stream", cookies={COOKIE: person}, timeout=10)
    assert page.status_code == 401 and "revoked" in page.text
