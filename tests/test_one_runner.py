"""One runner per run: two processes started together on one spec play every match once (one of them is refused
in one line naming the other, exit 4), Launch refuses a run a terminal plays, a killed player leaves nothing that
blocks the resume, and the writer never writes a match stored `ok` a second time."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys

import pytest
import yaml

from engine import store
from engine.cli.main import EXIT_ALREADY_PLAYING as ALREADY_PLAYING
from engine.play import run_lock
from engine.play.playing import play_match
from engine.play.spec import parse_spec
from engine.serve.launch import processes
from engine.testing import StubReply
from tests.test_dead_runs import wait_for


def slow_spec(stub, name: str = "twice", repeats: int = 12) -> dict:
    """Matches of a model that answers in 0.25 s, one at a time: a run that plays for a few seconds on any machine."""
    stub.responder = lambda req: StubReply('{"chosen_number": 20}', delay=0.25)
    seat = {"agent": "openai/stub-model", "api_base": stub.url, "temperature": 0.0, "max_tokens": 16}
    return {"name": name, "seed": 1, "repeats": repeats, "concurrency": 1, "games": [
        {"game": "guessing_game", "params": {"players": 2, "rounds": 1}, "lineups": [[seat, "bot:random"]]}]}


def engine_run(spec_file, db, *extra) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "engine", "run", str(spec_file), "--db", str(db), "--quiet",
                             "--workers", "1", *extra], cwd=store.ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=os.environ | {"ARENA_CACHE": "off"})


@pytest.mark.slow  # processes started and killed, or a whole rescore: 5-50 s
def test_two_processes_started_together_play_every_match_once(stub, tmp_path):
    raw = slow_spec(stub)
    spec_file, db = tmp_path / "twice.yaml", tmp_path / "results.duckdb"
    spec_file.write_text(yaml.safe_dump(raw))
    runs = [engine_run(spec_file, db), engine_run(spec_file, db)]
    outputs = [run.communicate(timeout=300) for run in runs]
    codes = sorted(run.returncode for run in runs)
    assert codes == [0, ALREADY_PLAYING], outputs
    (player, _), (_, (_, said)) = sorted(zip(runs, outputs, strict=True), key=lambda r: r[0].returncode)
    message = said.strip()
    assert "\n" not in message and "Traceback" not in message
    assert f"already being played by PID {player.pid} on {socket.gethostname()}" in message, message
    run_id = parse_spec(raw).run_id
    assert store.rows(db, "SELECT count(*), count(DISTINCT match_id) FROM matches") == [(12, 12)]
    assert store.rows(db, "SELECT n_done, n_matches, status, pid FROM runs WHERE run_id = ?", [run_id]) == [
        (12, 12, "ok", player.pid)]


@pytest.mark.slow  # processes started and killed, or a whole rescore: 5-50 s
def test_launch_refuses_a_run_a_terminal_plays_naming_its_process(stub, tmp_path):
    raw = slow_spec(stub, "terminal", repeats=40)
    spec_file, db = tmp_path / "terminal.yaml", tmp_path / "results.duckdb"
    spec_file.write_text(yaml.safe_dump(raw))
    terminal = engine_run(spec_file, db)
    try:
        run_id = parse_spec(raw).run_id
        wait_for(lambda: run_lock.holder(db, run_id))
        with pytest.raises(RuntimeError, match=rf"already being played by PID {terminal.pid} on "):
            processes.start_run(raw, db)
        assert not processes.launches_dir(db).exists() or not processes.is_alive(db, run_id)
    finally:
        terminal.send_signal(signal.SIGINT)
        terminal.communicate(timeout=60)


@pytest.mark.slow  # processes started and killed, or a whole rescore: 5-50 s
def test_a_killed_player_leaves_the_run_free_to_resume(stub, tmp_path):
    """The lock is the kernel's: a player killed with -9 holds nothing, so the same command resumes at once."""
    raw = slow_spec(stub, "killed")
    spec_file, db = tmp_path / "killed.yaml", tmp_path / "results.duckdb"
    spec_file.write_text(yaml.safe_dump(raw))
    first = engine_run(spec_file, db)
    run_id = parse_spec(raw).run_id
    wait_for(lambda: db.exists() and store.rows(db, "SELECT n_done FROM runs WHERE n_done >= 2"))
    first.kill()
    first.communicate()
    assert run_lock.holder(db, run_id) is None
    second = engine_run(spec_file, db)
    out, err = second.communicate(timeout=300)
    assert second.returncode == 0, err
    assert store.rows(db, "SELECT count(*), count(DISTINCT match_id) FROM matches") == [(12, 12)]
    assert store.rows(db, "SELECT n_done FROM runs") == [(12,)]


def test_the_writer_never_writes_a_match_stored_ok_twice(db_path):
    """Whoever sends a finished match again (a second writer that got past the lock), the database keeps the
    first and counts it once; an errored attempt is still replaced by the new one."""
    spec = parse_spec({"name": "w", "seed": 0, "repeats": 3, "games": [
        {"game": "tictactoe", "lineups": [{"all": "bot:random"}]}]})
    store.init_db(db_path)
    store.upsert_run(db_path, spec.run_id, spec.name, spec.raw, "engine", 3)

    async def play():
        return [await play_match(plan) for plan in spec.matches]

    first, again = asyncio.run(play()), asyncio.run(play())
    failed = again[2]
    failed.match = failed.match | {"status": "error", "error": "provider down"}
    assert store.write_matches(db_path, first[:2] + [failed]) == 3
    assert store.write_matches(db_path, again[:2] + [first[2]]) == 1  # only the errored one is written again
    assert store.rows(db_path, "SELECT count(*), count(DISTINCT match_id), count(*) FILTER (status = 'ok') "
                               "FROM matches") == [(3, 3, 3)]
    assert store.rows(db_path, "SELECT count(*) FROM seats") == [(6,)]
    assert store.rows(db_path, "SELECT n_done FROM runs") == [(3,)]
