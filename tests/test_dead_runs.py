"""A run whose process died (kill -9) is shown as interrupted, and Launch offers Resume for it, also
for a run started from a terminal and named with spaces."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
import yaml
from streamlit.testing.v1 import AppTest

from engine import store
from engine.play.spec import parse_spec
from engine.serve.launch import processes
from engine.testing import StubReply

pytestmark = pytest.mark.slow


def wait_for(condition, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError("timed out")


def status_of(db, run_id) -> str | None:
    table = processes.progress(db)
    found = table[table["run_id"] == run_id]
    return None if found.empty else found["status"].iloc[0]


def test_a_killed_terminal_run_is_interrupted_and_launch_resumes_it(stub, tmp_path, monkeypatch):
    stub.responder = lambda req: StubReply('{"chosen_number": 20}', delay=0.5)
    seat = {"agent": "openai/stub-model", "api_base": stub.url, "temperature": 0.0, "max_tokens": 16}
    # 40 matches of 0.5 s answers: still playing when a loaded machine's reader gets in (12 finished first once)
    raw = {"name": "killed run", "seed": 1, "repeats": 40, "concurrency": 1, "games": [
        {"game": "guessing_game", "params": {"players": 2, "rounds": 1}, "lineups": [[seat, "bot:random"]]}]}
    spec_file, db = tmp_path / "killed.yaml", tmp_path / "results.duckdb"
    spec_file.write_text(yaml.safe_dump(raw))
    run_id = parse_spec(raw).run_id
    child = subprocess.Popen([sys.executable, "-m", "engine", "run", str(spec_file), "--db", str(db), "--quiet"],
                             cwd=store.ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             env=os.environ | {"ARENA_CACHE": "off"})
    wait_for(lambda: db.exists() and store.rows(db, "SELECT n_done FROM runs WHERE n_done >= 1"))
    assert status_of(db, run_id) == "running"  # alive: not offered Resume
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    assert store.rows(db, "SELECT status FROM runs") == [("running",)]  # what the database still says
    assert status_of(db, run_id) == "interrupted"

    monkeypatch.setenv("ARENA_DB", str(db))
    at = AppTest.from_file("../pages/launch.py", default_timeout=60).run()
    assert not at.exception
    resume = at.button(key=f"resume_{run_id}")
    stub.responder = lambda req: StubReply('{"chosen_number": 20}')  # the resumed run at full speed
    resume.click().run()
    assert not at.exception
    wait_for(lambda: status_of(db, run_id) == "ok" and not processes.is_alive(db, run_id))
    assert store.rows(db, "SELECT n_done FROM runs") == [(40,)]


def test_a_run_recorded_by_a_live_process_elsewhere_is_taken_at_its_word():
    assert not processes.died(os.getpid() + 10**7, "another-machine")
    assert not processes.died(None, None)
    assert processes.died(2**22 + 12345, __import__("socket").gethostname())  # beyond pid_max: no such process
