"""A webhook receiver on 127.0.0.1 for the tests: it checks each delivery's signature,
can fail the first attempts of every event or hang, and records what it got."""

from __future__ import annotations

import json
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from vault_ray.webhooks import verify


class Receiver:
    def __init__(self, secret: str, *, fail_first: int = 0, hang: bool = False) -> None:
        self.secret, self.fail_first, self.hang = secret, fail_first, hang
        self.requests: list[dict] = []
        self.accepted: dict[str, dict] = {}
        """Idempotency key -> the event, for the deliveries answered 200."""
        self.accepts: Counter[str] = Counter()
        self.release = threading.Event()
        self._lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                status = receiver.answer(dict(self.headers), body)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        return Handler

    def answer(self, headers: dict[str, str], body: bytes) -> int:
        signed = verify(self.secret, body, headers)
        key = headers.get("Idempotency-Key", "")
        with self._lock:
            tries = sum(r["key"] == key for r in self.requests) + 1
            self.requests.append({"key": key, "signed": signed, "attempt": headers.get("Vault-Delivery-Attempt"),
                                  "event": json.loads(body)})
        if self.hang:
            self.release.wait()
        if not signed:
            return 401
        if tries <= self.fail_first:
            return 500
        with self._lock:
            self.accepted.setdefault(key, json.loads(body))
            self.accepts[key] += 1
        return 200

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()
