"""A run's progress where no terminal shows it (a log file, a pipe, the Launch page's run log): plain lines,
at the start, every few seconds and at the end, never a bar of carriage returns."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest
import yaml

from engine import store
from engine.play.progress import LogProgress

pytestmark = pytest.mark.slow


def test_a_line_at_the_start_every_interval_and_at_the_end():
    now = [0.0]
    out = io.StringIO()
    bar = LogProgress(10, 2, "study", interval=5.0, out=out, clock=lambda: now[0], heartbeat=False)
    bar.set_postfix(errors=1, turns=40, tokens=1234, usd=0.5)
    bar.update(1)  # no time has passed: no line yet
    assert len(out.getvalue().splitlines()) == 1 and "2 of 10 matches done, 0 errors" in out.getvalue()
    now[0] = 5.0
    bar.update(1)
    assert out.getvalue().splitlines()[-1].endswith("study: 4 of 10 matches done, 1 error, 40 turns, 1,234 tokens, "
                                                    "$0.50 (5 s)")
    now[0] = 11.0
    bar.tick()  # the heartbeat: no match finished, still a line
    assert len(out.getvalue().splitlines()) == 3
    bar.update(6)
    bar.close()
    assert "10 of 10 matches done" in out.getvalue().splitlines()[-1] and "\r" not in out.getvalue()


def test_engine_run_into_a_pipe_prints_progress_lines_and_the_summary(tmp_path):
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump({"name": "piped", "seed": 1, "repeats": 3, "games": [
        {"game": "tictactoe", "lineups": [["bot:random", "bot:random"]]}]}))
    played = subprocess.run([sys.executable, "-m", "engine", "run", str(spec), "--db", str(tmp_path / "r.duckdb")],
                            cwd=store.ROOT, capture_output=True, text=True, timeout=300)
    assert played.returncode == 0, played.stderr
    lines = played.stdout.splitlines()
    progress = [line for line in lines if " piped: " in line]
    assert progress[0].split(" piped: ")[1].startswith("0 of 3 matches done, 0 errors, 0 turns")
    assert progress[-1].split(" piped: ")[1].startswith("3 of 3 matches done, 0 errors, ")
    assert any(line.startswith("run piped-") and "3 matches, 0 already done, 3 played, 0 errors" in line
               for line in lines)
    assert "\r" not in played.stdout + played.stderr
