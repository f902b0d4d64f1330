"""A small OpenAI-compatible HTTP server for tests: /v1/chat/completions answers from
a script, /v1/embeddings from a deterministic hashing embedder. Runs on 127.0.0.1 in
a thread; the real `openai` client talks to it over HTTP."""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

from vault_ray import HashingEmbedder

Answer = str | dict[str, Any] | Callable[[dict[str, Any]], "str | dict[str, Any]"]


class ScriptedOpenAI:
    """`answers` is consumed in order, one per chat completion: a string is sent as the
    message content verbatim (malformed answers included), a dict as its JSON, a
    callable gets the request body. An int status in `fail_with` answers that HTTP
    error instead. `requests` records every request body by path, `headers` its headers."""

    def __init__(self, dim: int = 64) -> None:
        self.answers: list[Answer] = []
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.headers: list[dict[str, str]] = []
        self.embedder = HashingEmbedder(dim)
        self.fail_with: int | None = None
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def chats(self) -> list[dict[str, Any]]:
        return [body for path, body in self.requests if path.endswith("/chat/completions")]

    def start(self) -> ScriptedOpenAI:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    # -- answers -------------------------------------------------------------------
    def chat(self, body: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            if not self.answers:
                raise LookupError("the script has no answer left")
            answer = self.answers.pop(0)
        if callable(answer):
            answer = answer(body)
        content = answer if isinstance(answer, str) else json.dumps(answer)
        return {
            "id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": body.get("model", ""),
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }

    def embeddings(self, body: dict[str, Any]) -> dict[str, Any]:
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        vectors = self.embedder.embed([str(t) for t in texts])
        as_base64 = body.get("encoding_format") == "base64"
        data = [
            {"object": "embedding", "index": i,
             "embedding": base64.b64encode(np.asarray(v, "<f4").tobytes()).decode() if as_base64 else v.tolist()}
            for i, v in enumerate(vectors)
        ]
        return {"object": "list", "data": data, "model": body.get("model", ""),
                "usage": {"prompt_tokens": 1, "total_tokens": 1}}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                fake.requests.append((self.path, body))
                fake.headers.append({k.lower(): v for k, v in self.headers.items()})
                if fake.fail_with is not None:
                    self._send(fake.fail_with, {"error": {"message": "scripted failure", "type": "server_error"}})
                elif self.path.endswith("/chat/completions"):
                    try:
                        self._send(200, fake.chat(body))
                    except LookupError as exc:
                        self._send(500, {"error": {"message": str(exc), "type": "server_error"}})
                elif self.path.endswith("/embeddings"):
                    self._send(200, fake.embeddings(body))
                else:
                    self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                raw = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        return Handler
