"""A local OpenAI-compatible server on 127.0.0.1 that stands in for providers in tests and benchmarks.

It answers `POST /v1/chat/completions` through a `responder(request) -> StubReply` that decides
the text, the HTTP status, a delay and headers: canned, malformed, slow or failing replies, and hostile ones:
a reply flooded with gigabytes streamed a megabyte at a time (`flood`), a body without the usual fields (`bare`).
Every request is kept in `requests` (its path in `paths`, its headers, lower-cased, in `headers`) so tests can
count calls. The same replies also come in Anthropic's (`/v1/messages`) and Ollama's
(`/api/chat`, `/api/generate`) formats, so `anthropic/...` and `ollama/...` model strings can be
pointed at it with `api_base`.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
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
    flood: int = 0  # bytes of filler streamed after the content (or the error's message), never held in memory
    bare: bool = False  # the body is {"data": content} alone: none of the fields of the endpoint's format


Responder = Callable[[dict[str, Any]], StubReply]


def echo_last_number(request: dict[str, Any]) -> StubReply:
    """Default responder: a fixed, well-formed answer most games accept."""
    return StubReply(content='{"chosen_number": 33, "action": "defect"} X: (2,2)')


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in two writes: no delayed-ACK stall
    server: _Server

    def log_message(self, *args: Any) -> None:  # keep test output clean
        pass

    def setup(self) -> None:
        super().setup()
        with self.server.stub.lock:
            self.server.stub.connections.add(self.connection)

    def finish(self) -> None:
        with self.server.stub.lock:
            self.server.stub.connections.discard(self.connection)
        super().finish()

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            body = {}
        stub = self.server.stub
        with stub.lock:
            stub.requests.append(body)
            stub.paths.append(self.path)
            stub.headers.append({k.lower(): v for k, v in self.headers.items()})
            n = len(stub.requests)
        reply = stub.responder(body)
        if reply.delay:
            time.sleep(reply.delay)
        content = reply.content + (_FLOOD if reply.flood else "")
        if reply.bare:
            payload: dict[str, Any] = {"data": content}
        elif reply.status == 200:
            payload = _success(self.path, body, replace(reply, content=content), n)
        else:
            payload = {"error": {"message": content or f"stub error {reply.status}", "type": "stub",
                                 "code": reply.status}}
        head, _, tail = json.dumps(payload).encode().partition(_FLOOD.encode())
        self.send_response(reply.status)
        self.send_header("Content-Type", "application/json")
        if reply.flood:  # no length told: the body runs until the connection closes, as a stream would
            self.send_header("Connection", "close")
            self.close_connection = True
        else:
            self.send_header("Content-Length", str(len(head) + len(tail)))
        for key, value in reply.headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(head)
        for sent in range(0, reply.flood, len(_FILLER)):
            self.wfile.write(_FILLER[:reply.flood - sent])
        self.wfile.write(tail)


_FLOOD = "<stub-flood>"  # where the filler goes in the body (JSON leaves it as it is)
_FILLER = b"x" * 2**20


def _success(path: str, body: dict[str, Any], reply: StubReply, n: int) -> dict[str, Any]:
    """A successful answer in the wire format of the endpoint that was called."""
    model = body.get("model", "stub")
    if path.endswith("/messages"):  # Anthropic
        return {"id": f"msg_stub{n}", "type": "message", "role": "assistant", "model": model,
                "content": [{"type": "text", "text": reply.content}], "stop_reason": "end_turn",
                "usage": {"input_tokens": reply.prompt_tokens, "output_tokens": reply.completion_tokens}}
    if path.startswith("/api/"):  # Ollama
        answer = {"response": reply.content} if path.endswith("/generate") else {
            "message": {"role": "assistant", "content": reply.content}}
        return {"model": model, "created_at": "2026-01-01T00:00:00Z", **answer, "done": True,
                "done_reason": "stop", "prompt_eval_count": reply.prompt_tokens, "eval_count": reply.completion_tokens}
    return {
        "id": f"stub-{n}", "object": "chat.completion", "created": int(time.time()), "model": model,
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": reply.content}}],
        "usage": {"prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens,
                  "total_tokens": reply.prompt_tokens + reply.completion_tokens},
    }


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024
    stub: StubServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hung up, or a reply cut by `stop`, is what these tests stage: say nothing, since a
        reply thread can outlive its test and its report would land in the next test's captured stderr."""
        if isinstance(sys.exc_info()[1], OSError) or self.socket.fileno() < 0:
            return
        super().handle_error(request, client_address)


class StubServer:
    """`with StubServer(responder) as stub: ... stub.url ...` serves on a free port of 127.0.0.1."""

    def __init__(self, responder: Responder = echo_last_number):
        self.responder = responder
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.headers: list[dict[str, str]] = []
        self.connections: set[socket.socket] = set()  # open client connections, cut by `stop`
        self.lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.stub = self
        # a short poll interval: shutting the stub down at the end of a test need not wait out the default one
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    @property
    def root(self) -> str:
        """The server without a path: the `api_base` of Anthropic and Ollama routes."""
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def url(self) -> str:
        """The OpenAI-compatible base URL."""
        return f"{self.root}/v1"

    def __enter__(self) -> StubServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def stop(self) -> None:
        """Die as a crashed provider does: stop listening and cut every open (keep-alive) connection."""
        if self._server.socket.fileno() < 0:
            return
        self._server.shutdown()
        self._server.server_close()
        with self.lock:
            for conn in self.connections:
                try:
                    conn.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
