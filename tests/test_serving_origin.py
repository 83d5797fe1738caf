"""`python -m engine serve` answers only its own origin: a page served on another local port (or opened from disk)
cannot open a session on the dashboard, so it cannot start a run on Launch (loopback asks no token)."""

from __future__ import annotations

import base64
import os
import socket

import pytest

from engine.serve.serving import ALLOWED_HOSTS_ENV, own_origin
from tests.test_serve_process import free_port, started_serve

FOREIGN = ["http://127.0.0.1:9999", "http://localhost:1", "http://0.0.0.0", "null", "file://", "http://[::1]:8501",
           "https://attacker.example"]  # the attack's origins, and the usual others


@pytest.mark.parametrize("origin", FOREIGN)
def test_an_origin_other_than_the_host_asked_is_refused(origin, monkeypatch):
    monkeypatch.delenv(ALLOWED_HOSTS_ENV, raising=False)
    assert not own_origin({b"host": b"127.0.0.1:8501", b"origin": origin.encode()})


def test_the_dashboards_own_origin_an_allowed_host_and_no_origin_pass(monkeypatch):
    monkeypatch.setenv(ALLOWED_HOSTS_ENV, "arena.example.org,*.lab.example")
    host = {b"host": b"127.0.0.1:8501"}
    assert own_origin(host) and own_origin(host | {b"origin": b"http://127.0.0.1:8501"})
    assert own_origin({b"host": b"LocalHost:8501", b"origin": b"http://localhost:8501"})
    assert own_origin(host | {b"origin": b"https://arena.example.org"})  # a proxy passing its own Host on
    assert own_origin(host | {b"origin": b"https://a.lab.example"})
    assert not own_origin(host | {b"origin": b"http://localhost:8501"})  # another origin for the browser


def _answer(port: int, origin: str | None, websocket: bool) -> str:
    """The status line the dashboard answers to a request from a page of `origin` (None: no Origin header)."""
    head = f"Host: 127.0.0.1:{port}\r\n" + (f"Origin: {origin}\r\n" if origin else "")
    if websocket:
        key = base64.b64encode(os.urandom(16)).decode()
        request = (f"GET /_stcore/stream HTTP/1.1\r\n{head}Upgrade: websocket\r\nConnection: Upgrade\r\n"
                   f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                   "Sec-WebSocket-Protocol: streamlit\r\n\r\n")
    else:
        request = f"GET /_stcore/health HTTP/1.1\r\n{head}Connection: close\r\n\r\n"
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(request.encode())
        return conn.recv(4096).decode(errors="replace").split("\r\n", 1)[0]


@pytest.mark.slow
def test_the_served_dashboard_refuses_a_session_and_requests_from_other_local_ports(tmp_path):
    """An attack opened the dashboard's WebSocket from http://127.0.0.1:9999, http://localhost:1 and http://0.0.0.0
    (Streamlit lets in any port of those hosts)."""
    port = free_port()
    server = started_serve(tmp_path / "r.duckdb", port)
    try:
        for websocket in (True, False):
            accepted = "101" if websocket else "200"
            assert accepted in _answer(port, f"http://127.0.0.1:{port}", websocket)
            assert accepted in _answer(port, None, websocket)  # not sent by a page's script
            for origin in ["http://127.0.0.1:9999", "http://localhost:1", "http://0.0.0.0", "null"]:
                assert _answer(port, origin, websocket).startswith("HTTP/1.1 403"), (origin, websocket)
    finally:
        server.terminate()
        assert server.wait(timeout=30) == 0
