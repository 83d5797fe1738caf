"""`python -m engine serve`: loopback by default, a WebSocket only for known Host names (no DNS
rebinding), and no Launch from the network without ARENA_ADMIN_TOKEN."""

from __future__ import annotations

import base64
import os
import re
import socket
import subprocess
import sys
import time

import pytest
from streamlit.testing.v1 import AppTest

from engine import store
from engine.serve.launch import form, processes
from engine.serve.serving import serve_argv
from tests.test_serve_process import free_port

pytestmark = pytest.mark.slow


def _upgrade(port: int, host: str) -> str:
    """The status line the dashboard answers to a WebSocket handshake claiming `host`."""
    key = base64.b64encode(os.urandom(16)).decode()
    request = (f"GET /_stcore/stream HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: streamlit\r\n\r\n")
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(request.encode())
        return conn.recv(4096).decode(errors="replace").split("\r\n", 1)[0]


@pytest.fixture
def served(tmp_path):
    port = free_port()
    child = subprocess.Popen([sys.executable, "-m", "engine", "serve", "--db", str(tmp_path / "r.duckdb"),
                              "--port", str(port)], cwd=store.ROOT, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.2)
    yield port
    child.terminate()
    child.wait(timeout=30)


def test_the_dashboard_refuses_a_websocket_for_a_foreign_host_name(served):
    assert " 101 " in _upgrade(served, f"localhost:{served}") + " "
    refused = _upgrade(served, f"attacker.example:{served}")
    assert " 101" not in refused and refused.startswith("HTTP/1.1 4")


def test_serve_listens_on_loopback_by_default_and_lists_the_hosts_it_accepts():
    from engine.cli.main import main  # noqa: F401 - the parser's default is what a user gets

    argv = serve_argv("127.0.0.1", 8501, [])
    assert argv[argv.index("--server.address") + 1] == "127.0.0.1"
    hosts = [argv[i + 1] for i, a in enumerate(argv) if a == "--server.allowedHosts"]
    assert hosts == ["localhost", "127.0.0.1"]
    argv = serve_argv("0.0.0.0", 8501, ["arena.example.org"])
    assert [argv[i + 1] for i, a in enumerate(argv) if a == "--server.allowedHosts"] == [
        "localhost", "127.0.0.1", "arena.example.org"]


def test_launch_is_refused_when_served_beyond_localhost_without_a_token(db_path, monkeypatch):
    monkeypatch.delenv(form.ADMIN_TOKEN_ENV, raising=False)
    assert form.admin_ok(None)  # on this machine only: open
    monkeypatch.setenv(form.PUBLIC_ENV, "1")
    assert not form.admin_ok(None) and not form.admin_ok("") and form.admin_required()
    monkeypatch.setenv("ARENA_DB", str(db_path))
    at = AppTest.from_file("../pages/launch.py", default_timeout=60).run()
    at.button(key="start").click().run()
    assert not at.exception and "Launching is off" in at.error[-1].value
    assert not processes.launches_dir(db_path).exists()
    monkeypatch.setenv(form.ADMIN_TOKEN_ENV, " \t ")
    assert not form.admin_ok(" \t ") and not form.admin_ok("")
    monkeypatch.setenv(form.ADMIN_TOKEN_ENV, "open-sesame")
    assert form.admin_ok("open-sesame") and not form.admin_ok("guess")


@pytest.mark.parametrize("where", [["--address", "0.0.0.0"], ["--allowed-host", "arena.example.org"]])
@pytest.mark.parametrize("token", [None, "   ", "open-sesame"])
def test_serve_beyond_localhost_says_launch_is_refused_until_a_token_is_set(monkeypatch, capsys, token, where):
    """Beyond localhost: another address, or a host name other browsers use (a reverse proxy on the loopback
    address, an attack found, left Launch open to whoever reached the proxy). A token of spaces is no token (an
    attacker's report)."""
    from streamlit.web import cli as streamlit_cli

    from engine.cli.main import main

    monkeypatch.setattr(streamlit_cli, "main", lambda: 0)  # what would start the server
    monkeypatch.setattr(sys, "argv", list(sys.argv))  # serve sets these three: restored after the test
    monkeypatch.setenv("ARENA_DB", str(store.default_db()))
    monkeypatch.setenv(form.PUBLIC_ENV, "0")
    if token is None:
        monkeypatch.delenv(form.ADMIN_TOKEN_ENV, raising=False)
    else:
        monkeypatch.setenv(form.ADMIN_TOKEN_ENV, token)
    monkeypatch.chdir(os.getcwd())  # serve moves to the repository; the test's directory comes back after
    assert main(["serve", *where, "--port", str(free_port())]) == 0
    said = capsys.readouterr().err
    assert ("Launch is refused until ARENA_ADMIN_TOKEN is set" in said) == (token != "open-sesame")
    assert os.environ[form.PUBLIC_ENV] == "1"


def test_plain_escapes_every_markdown_mark():
    from pages.shared.markdown import code, plain

    assert plain("[free](https://evil.example) :red[x] **b** <img src=x>") == (
        r"\[free\]\(https\:\/\/evil\.example\) \:red\[x\] \*\*b\*\* \<img src\=x\>")
    assert plain("two\nlines") == "two lines"
    assert code("a`b") == "``a`b``" and code("`x") == "`` `x ``" and code("id-1") == "`id-1`"


def test_run_names_reach_the_launch_page_as_plain_text(db_path, monkeypatch):
    import asyncio

    from engine.play.runner import run_spec
    from engine.play.spec import parse_spec

    name = "[free credits](https://evil.example) :red[now]"
    asyncio.run(run_spec(parse_spec({"name": name, "games": [
        {"game": "tictactoe", "lineups": [["bot:random", "bot:random"]]}]}), db_path, progress=False))
    monkeypatch.setenv("ARENA_DB", str(db_path))
    at = AppTest.from_file("../pages/launch.py", default_timeout=60).run()
    assert not at.exception
    shown = [m.value for m in at.markdown if "free credits" in m.value]
    outside_code = [re.sub(r"`[^`]*`", "", text) for text in shown]  # a code span shows its text verbatim
    assert shown and all("](" not in text and r"\[free credits\]" in text and ":red[" not in text
                         for text in outside_code)
