"""`python -m engine serve` ends whole on SIGTERM and on Ctrl-C (SIGINT): the port is free afterwards and no
process it started is left, the runs Launch started from it included (they are cancelled as Cancel does, their
finished matches kept for Resume)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest
from playwright.sync_api import sync_playwright

from engine import store
from tests.test_browser import CHROMIUM, FLAGS


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def answering(port: int) -> bool:
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1).read()
        return True
    except OSError:
        return False


def started_serve(db, port: int, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) -> subprocess.Popen:
    """`python -m engine serve` on `db` and `port`, once it answers (an assertion when it ends or takes a minute)."""
    server = subprocess.Popen([sys.executable, "-m", "engine", "serve", "--db", str(db), "--port", str(port)],
                              cwd=store.ROOT, stdout=stdout, stderr=stderr)
    deadline = time.monotonic() + 60
    while not answering(port):
        if server.poll() is not None or time.monotonic() >= deadline:
            server.kill()
            raise AssertionError("serve did not start")
        time.sleep(0.2)
    return server


def children(pid: int) -> list[int]:
    listed = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in listed.split()]


def running(pid: int) -> bool:
    """Alive and not a zombie waiting for its parent."""
    state = subprocess.run(["ps", "-o", "stat=", "-p", str(pid)], capture_output=True, text=True).stdout.strip()
    return bool(state) and not state.startswith("Z")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "Ctrl-C"])
def test_serve_ends_with_its_children_and_frees_the_port(sig, first_run_db, tmp_path):
    db = tmp_path / "results.duckdb"
    shutil.copy(first_run_db, db)
    port = free_port()
    server = started_serve(db, port)
    try:
        with sync_playwright() as p:  # Launch starts a long run: the server's own child
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"http://127.0.0.1:{port}/launch")
            page.get_by_label("Repeats").fill("1000")
            page.get_by_label("Repeats").press("Enter")
            page.get_by_text("1,000 matches, run id").wait_for(timeout=30_000)
            page.get_by_role("button", name="Start run").click()
            page.get_by_text("Started run").wait_for(timeout=30_000)
            browser.close()
        started = children(server.pid)
        assert started, "Launch started no run"
        server.send_signal(sig)
        assert server.wait(timeout=60) == 0
        deadline = time.monotonic() + 10  # a killed child is gone once init has collected it
        while any(running(pid) for pid in started) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [pid for pid in started if running(pid)]
        assert not answering(port)
        with socket.socket() as s:  # nobody listens there: a new server binds it (as Streamlit does, reusing it)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(("127.0.0.1", port))
            s.listen()
    finally:
        if server.poll() is None:
            os.kill(server.pid, signal.SIGKILL)
            server.wait()


def test_serve_on_a_port_in_use_says_so_in_one_line_and_exits_2():
    """Streamlit alone logged "Port N is not available" and exited 1 (a new user's `make run` beside another
    dashboard on 8501)."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "engine", "serve", "--port", str(port)], cwd=store.ROOT,
                              capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (f"error: cannot listen on 127.0.0.1:{port} (Address already in use): another dashboard "
                           f"may be serving there; pass --port with a free one\n")


@pytest.mark.parametrize(("args", "said"), [
    (["--port", "99999"], "argument --port: a port is from 1 to 65535, got 99999"),
    (["--port", "-1"], "argument --port: a port is from 1 to 65535, got -1"),
    (["--address", "999.1.1.1", "--port", "8799"], "pass --address with an address of this machine"),
    (["--address", "192.0.2.1", "--port", "8799"], "pass --address with an address of this machine")])
def test_serve_on_a_port_or_address_that_cannot_be_says_what_to_pass_in_one_line(args, said):
    """A new user's report: `--port 99999` ended in Python's OverflowError and a traceback, exit 1; an address
    that is not this machine's was blamed on "another dashboard" serving there."""
    done = subprocess.run([sys.executable, "-m", "engine", "serve", *args], cwd=store.ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert said in last and "another dashboard" not in last


def test_serve_on_a_missing_database_says_which_file_it_waits_for(tmp_path, monkeypatch, capsys):
    """A new user's report: a mistyped `--db` opened the dashboard on "No matches yet", nothing said."""
    from streamlit.web import cli as streamlit_cli

    from engine.cli.main import main

    monkeypatch.setattr(streamlit_cli, "main", lambda: 0)  # what would start the server
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    monkeypatch.chdir(os.getcwd())  # serve moves to the repository
    monkeypatch.setenv("ARENA_DB", "")
    missing = tmp_path / "reslts.duckdb"
    assert main(["serve", "--db", str(missing), "--port", str(free_port())]) == 0
    assert capsys.readouterr().err == (f"note: {missing} does not exist yet: the pages show no matches until a run "
                                       f"or an import writes it\n")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "Ctrl-C"])
def test_serve_whose_output_reader_went_away_still_stops_on_a_signal(sig, tmp_path):
    """An attacker's report: `serve | head` (or a closed SSH session) left the output pipe broken; Streamlit's stop
    printed "Stopping..." first, the print raised, and SIGTERM and Ctrl-C left the dashboard serving."""
    port = free_port()
    server = started_serve(tmp_path / "r.duckdb", port, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        server.stdout.close()  # the reader goes away: the next write breaks the pipe
        server.send_signal(sig)
        assert server.wait(timeout=30) == 0
        assert not answering(port)
    finally:
        if server.poll() is None:
            os.kill(server.pid, signal.SIGKILL)
            server.wait()


STOPPED_MID_READ = """
import sys, threading, time
from pathlib import Path
from streamlit.web import cli as streamlit_cli
from engine.serve import serving
from engine import store

db = Path(sys.argv[1])
store.init_db(db)
said = []

def page():  # a page's thread (Streamlit's are daemons) reading for seconds when the server stops
    try:
        store.query(db, "SELECT count(*) FROM range(3000000000) a WHERE a.range % 7 = 3")
    except Exception as exc:
        said.append(type(exc).__name__)

def server():  # the server stops (Ctrl-C) while the page reads
    threading.Thread(target=page, daemon=True).start()
    time.sleep(0.5)
    return 0

streamlit_cli.main = server
code = serving.serve(db, "127.0.0.1", int(sys.argv[2]), [])
print(code, said, dict(store.connections._OPEN_HERE))
"""


def test_a_pages_read_still_running_when_the_dashboard_stops_is_interrupted_and_the_process_ends_cleanly(tmp_path):
    """Ctrl-C of `engine serve` while a page loaded sometimes ended in 'terminate called ... FATAL: exception not
    rethrown' (exit 134): a page's daemon thread still inside DuckDB when the interpreter ends aborts it. The serve
    command stops the reads still running before it returns (`store.stop_reads`)."""
    done = subprocess.run([sys.executable, "-c", STOPPED_MID_READ, str(tmp_path / "r.duckdb"), str(free_port())],
                          cwd=store.ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "FATAL" not in done.stderr, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "0 ['InterruptException'] {}"
