"""`VaultClient` across a restart of `vault-ray serve --address`: while Ray Serve's proxy
has no app it answers a plain-text 404 for every path. That is no `NotFound` of the API:
`follow` waits it out and reads on, other calls raise ClusterError (a 503's error)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from vault_ray import ClusterError, UnknownAgent
from vault_ray.client import VaultClient


@pytest.fixture
def proxy():
    """A server on 127.0.0.1 that answers as Serve's proxy with no app for the first
    `gap` requests, then as vault-ray refusing the token (a problem+json 401)."""
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        gap = 2

        def do_GET(self) -> None:  # noqa: N802
            seen.append(self.path)
            if len(seen) <= self.gap:
                body, kind, status = f"Path '{self.path}' not found.".encode(), "text/plain", 404
            else:
                body = json.dumps({"type": "tag:vault-ray,2026:problem:UnknownAgent", "title": "Unknown agent",
                                   "status": 401, "detail": "no such token"}).encode()
                kind, status = "application/problem+json", 401
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}", seen, Handler
    server.shutdown()
    server.server_close()


def test_follow_waits_out_a_proxy_with_no_app_and_raises_what_the_service_says(proxy):
    url, seen, _ = proxy
    with VaultClient(url, "a-token", retries=0) as client, pytest.raises(UnknownAgent, match="no such token"):
        next(client.follow())
    assert len(seen) == 3 and all(p.startswith("/v1/events") for p in seen)


def test_a_call_meeting_a_proxy_with_no_app_is_a_cluster_error_not_not_found(proxy):
    url, seen, handler = proxy
    handler.gap = 10
    with VaultClient(url, "a-token", retries=0) as client, pytest.raises(ClusterError, match="no vault-ray app answers"):
        client.get("user.timezone")
    with VaultClient(url, "a-token", retries=0) as client, pytest.raises(ClusterError):
        next(client.follow(reconnect=False))


def test_follow_gives_up_on_a_proxy_that_stays_without_an_app(proxy, monkeypatch):
    """A wrong base URL answers a plain 404 for good: `follow` waits out a restart, not forever."""
    import vault_ray.client as client_module

    url, seen, handler = proxy
    handler.gap = 1000
    monkeypatch.setattr(client_module, "RESTART_WAIT_S", 1.0)
    with VaultClient(url, "a-token", retries=0) as client, pytest.raises(ClusterError, match="no vault-ray app answers"):
        next(client.follow())
    assert 2 <= len(seen) < 10
