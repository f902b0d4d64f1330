"""The event stream over HTTP (`GET /v1/events`, Server-Sent Events) from the Serve app
on 127.0.0.1: a high-stakes write reaches a listening client within the request plus
one poll interval; a reconnect with `Last-Event-ID` resumes with no gap and no repeat,
also after the whole service (app and store actors) was stopped and started again;
the JSON pages, the client's `follow` and bad cursors."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from datetime import timedelta

import httpx
import pytest
from scenarios import T0

from vault_ray import Fact, InvalidInput
from vault_ray.client import sse_messages

from .served import served

POLL_S = 0.25
SLACK_S = 2.0
"""Scheduling noise allowed on this 2-core machine shared with other test runs."""


class Listener:
    """An SSE client in a thread, as a browser's EventSource: it keeps every message."""

    def __init__(self, url: str, token: str, params: dict | None = None, last_event_id: str | None = None) -> None:
        headers = {"Authorization": f"Bearer {token}", "Accept": "text/event-stream"}
        if last_event_id:
            headers["Last-Event-ID"] = last_event_id
        self.http = httpx.Client(base_url=url, headers=headers, timeout=httpx.Timeout(10, read=None))
        self.params = params or {}
        self.messages: list[tuple[str | None, str, float]] = []
        self.opened = threading.Event()
        self.socket: socket.socket | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        assert self.opened.wait(30), "the stream did not open"

    def _run(self) -> None:
        try:
            with self.http.stream("GET", "/v1/events", params=self.params) as answer:
                assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/event-stream")
                self.socket = answer.extensions["network_stream"].get_extra_info("socket")
                for event_id, data in sse_messages(answer.iter_lines()):
                    self.messages.append((event_id, data, time.monotonic()))
                    self.opened.set()  # the first message is the cursor where the stream starts
        except (httpx.HTTPError, RuntimeError, OSError):
            pass  # closed by the test

    @property
    def events(self) -> list[dict]:
        return [json.loads(data) for _, data, _ in self.messages if data]

    @property
    def last_id(self) -> str | None:
        return next((i for i, _, _ in reversed(self.messages) if i), None)

    def wait_for(self, count: int, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while len(self.events) < count:
            assert time.monotonic() < deadline, f"{len(self.events)} of {count} events"
            time.sleep(0.02)

    def close(self) -> None:
        """Hang up now (a blocked read ends at once), as a browser tab closing."""
        if self.socket is not None:
            with contextlib.suppress(OSError):
                self.socket.shutdown(socket.SHUT_RDWR)
        self.thread.join(10)
        assert not self.thread.is_alive()
        self.http.close()


def _budget_turns(store, offset_hours: int = 0) -> str:
    store.client("planner").add("My budget is 5000 dollars", observed_at=T0 + timedelta(hours=offset_hours))
    (new,) = store.client("chat").add("My budget is 9000 dollars",
                                      observed_at=T0 + timedelta(hours=offset_hours + 1)).decisions
    assert new.outcome == "disputed"
    return new.dispute_id


def test_last_event_id_resumes_without_gaps_or_repeats_also_after_a_restart(serve_port, tmp_path):
    with served(tmp_path, serve_port, event_poll_s=POLL_S) as store:
        token = store.token("watcher")
        first = Listener(store.url, token, {"since": "start"})
        _budget_turns(store)
        first.wait_for(3)  # two claims and the dispute
        first.close()
        resume_at = first.last_id
        store.client("other").add_facts(Fact("user.diet", "The user is vegan", "vegan"))  # while no one listens
        second = Listener(store.url, token, last_event_id=resume_at)
        second.wait_for(1)
        store.client("other").add_facts(Fact("user.pets", "The user has a cat", "cat"), resolve=False)
        second.wait_for(2)
        second.close()
        before_restart = first.events + second.events
        resume_at = second.last_id
    # the service and the store's actors are gone; a new service on the same store
    with served(tmp_path, serve_port, event_poll_s=POLL_S) as store:
        token = store.token("watcher-2")
        store.client("late").add_facts(Fact("user.language", "The user speaks Welsh", "Welsh"), resolve=False)
        third = Listener(store.url, token, last_event_id=resume_at)
        third.wait_for(1)
        time.sleep(3 * POLL_S)
        third.close()
        heard = [e["id"] for e in before_restart + third.events]
        everything = [e.id for e in store.client("auditor").events("start", limit=5000)]
    assert len(heard) == len(set(heard)) and heard == everything and len(everything) == 6
    assert [e["entity"] for e in third.events] == ["user.language"]


def test_a_high_stakes_write_reaches_a_listener_within_one_poll_and_pages_and_follow_through_the_client(
        serve_port, tmp_path):
    with served(tmp_path, serve_port, event_poll_s=POLL_S) as store:
        watcher = store.client("watcher")
        now = watcher.events()  # "now": nothing yet, and where now is
        assert list(now) == [] and now.cursor.startswith("v1")
        # the dispute the budget turns open reaches a listener within the request plus one poll
        listener = Listener(store.url, store.token("watcher"), {"needs_user": "true", "kinds": "dispute_opened"})
        try:
            store.client("planner").add("My budget is 5000 dollars", observed_at=T0)
            (new,) = store.client("chat").add("My budget is 9000 dollars", observed_at=T0 + timedelta(hours=1)).decisions
            answered = time.monotonic()
            listener.wait_for(1, timeout=POLL_S + SLACK_S)
            (event,) = listener.events
            assert (event["kind"], event["dispute_id"], event["needs_user"], event["agent"]) == (
                "dispute_opened", new.dispute_id, True, "chat")
            arrived = next(t for _, data, t in listener.messages if data)
            assert arrived - answered <= POLL_S + SLACK_S
        finally:
            listener.close()
        assert new.outcome == "disputed"
        dispute_id = new.dispute_id
        page = watcher.events(now.cursor, kinds=["dispute_opened"], needs_user=True)
        assert [(e.kind, e.dispute_id) for e in page] == [("dispute_opened", dispute_id)]
        resolver = store.client("person", role="resolver")
        got: list = []
        follow = watcher.follow(page.cursor, kinds=["dispute_resolved"])

        def take_one() -> None:
            got.append(next(follow))
            follow.close()  # hangs up

        stream = threading.Thread(target=take_one, daemon=True)
        stream.start()
        d = watcher.dispute(dispute_id)
        resolver.resolve_dispute(dispute_id, d.incumbents[0], note="the planner is right")
        stream.join(30)
        (resolved,) = got
        assert (resolved.decided_by, resolved.how, resolved.winner) == ("person", "winner", d.incumbents[0])
        with pytest.raises(InvalidInput):
            watcher.events("v1.99-1")
        answer = httpx.get(store.url + "/v1/events", headers={"Authorization": f"Bearer {store.token('x')}",
                                                              "Accept": "text/event-stream", "Last-Event-ID": "garbage"})
        assert answer.status_code == 422 and answer.headers["content-type"] == "application/problem+json"
