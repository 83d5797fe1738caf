"""A local OpenAI-compatible server on 127.0.0.1 that stands in for providers in tests and benchmarks.

It answers `POST /v1/chat/completions` through a `responder(request) -> StubReply` that decides
the text, the HTTP status, a delay and headers: canned, malformed, slow or failing replies.
Every request is kept in `requests` so tests can count calls.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class StubReply:
    content: str = ""
    status: int = 200
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    prompt_tokens: int = 10
    completion_tokens: int = 5


Responder = Callable[[dict[str, Any]], StubReply]


def echo_last_number(request: dict[str, Any]) -> StubReply:
    """Default responder: a fixed, well-formed answer most games accept."""
    return StubReply(content='{"chosen_number": 33, "action": "defect"} X: (2,2)')


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, *args: Any) -> None:  # keep test output clean
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            body = {}
        stub = self.server.stub
        with stub.lock:
            stub.requests.append(body)
        reply = stub.responder(body)
        if reply.delay:
            time.sleep(reply.delay)
        if reply.status == 200:
            payload = {
                "id": f"stub-{len(stub.requests)}", "object": "chat.completion", "created": int(time.time()),
                "model": body.get("model", "stub"),
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": reply.content}}],
                "usage": {"prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens,
                          "total_tokens": reply.prompt_tokens + reply.completion_tokens},
            }
        else:
            payload = {"error": {"message": f"stub error {reply.status}", "type": "stub", "code": reply.status}}
        data = json.dumps(payload).encode()
        self.send_response(reply.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in reply.headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024
    stub: StubServer


class StubServer:
    """`with StubServer(responder) as stub: ... stub.url ...` serves on a free port of 127.0.0.1."""

    def __init__(self, responder: Responder = echo_last_number):
        self.responder = responder
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.stub = self
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> StubServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()
