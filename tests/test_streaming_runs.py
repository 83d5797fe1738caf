"""Every run streams its results, whatever its agents: a bots-only run's matches are in the database (for another
process to read) while it plays, kill -9 loses at most about the last second of them, Ctrl-C stops it within 2 s
saying truthfully how many are saved, a run waits for its writer instead of gathering its matches in memory,
and a match against an endpoint that never answers errors at its whole-match deadline."""

from __future__ import annotations

import asyncio
import re
import signal
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime

import duckdb
import pytest
import yaml

from engine import store
from engine.play import group_commit, playing, run_lock
from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.testing import StubReply

# 20,000 TicTacToe matches of bots: half a minute or more of play, stopped long before its end
BOTS = {"name": "stream", "seed": 0, "repeats": 10_000, "concurrency": 64,
        "games": [{"game": "tictactoe", "lineups": [{"all": "bot:random"}, {"all": "bot:random"}]}]}


def start_bots_run(tmp_path) -> tuple[subprocess.Popen, object, str]:
    spec_file, db = tmp_path / "bots.yaml", tmp_path / "results.duckdb"
    spec_file.write_text(yaml.safe_dump(BOTS))
    child = subprocess.Popen([sys.executable, "-m", "engine", "run", str(spec_file), "--db", str(db), "--quiet"],
                             cwd=store.ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return child, db, parse_spec(BOTS).run_id


def stored(db) -> int:
    """The matches another process sees in the database now (0 while it has none yet)."""
    try:
        return store.rows(db, "SELECT count(*) FROM matches")[0][0] if db.exists() else 0
    except duckdb.CatalogException:  # the file is there, its tables not yet
        return 0


def watch_while_playing(child: subprocess.Popen, db, growths: int = 3, timeout: float = 120.0) -> list[int]:
    """The stored counts seen while `child` still plays, until they have grown `growths` times."""
    return [count for count, _ in growth_while_playing(child, db, growths, timeout)]


def growth_while_playing(child: subprocess.Popen, db, growths: int,
                         timeout: float = 120.0) -> list[tuple[int, datetime]]:
    """Each stored count seen while `child` still plays and when it was seen, until the counts have grown
    `growths` times."""
    seen = [(0, datetime.now(UTC).replace(tzinfo=None))]
    deadline = time.monotonic() + timeout
    while len({count for count, _ in seen}) <= growths:
        assert child.poll() is None, f"the run ended before its matches were seen growing while it played: {seen}"
        assert time.monotonic() < deadline, f"no matches in the database while the run plays: {seen}"
        seen.append((stored(db), datetime.now(UTC).replace(tzinfo=None)))
        time.sleep(0.1)
    return seen


@pytest.mark.slow  # processes started and killed, or a whole rescore: 5-50 s
def test_a_bots_run_streams_its_matches_and_a_kill_loses_at_most_the_last_second(tmp_path):
    child, db, run_id = start_bots_run(tmp_path)
    try:
        seen = growth_while_playing(child, db, growths=4)
    finally:
        killed_at = datetime.now(UTC).replace(tzinfo=None)
        child.kill()
        child.communicate()
    counts = [count for count, _ in seen]
    assert counts == sorted(counts)
    n, newest = store.rows(db, "SELECT count(*), max(finished_at) FROM matches")[0]
    assert n >= counts[-1] and n < 20_000
    # The writer commits what finished at least every second, and as soon as the last flush is done when flushes
    # take longer (a busy machine: 2.3 s apart with two test workers and two more processes on 2 cores). What a
    # kill loses is what finished after the last flush began: about a second, or the time between two flushes on a
    # busy machine, never more.
    grew_at = [when for (before, _), (count, when) in zip(seen, seen[1:], strict=False) if count > before]
    gaps = [(later - earlier).total_seconds() for earlier, later in zip(grew_at, grew_at[1:], strict=False)]
    assert (killed_at - newest).total_seconds() < max(2.5, max(gaps) + 0.5), (killed_at, newest, gaps)
    assert store.rows(db, "SELECT n_done, status FROM runs") == [(n, "running")]
    assert run_lock.holder(db, run_id) is None  # the kernel let go of the dead player's lock


@pytest.mark.slow  # processes started and killed, or a whole rescore: 5-50 s
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=["Ctrl-C", "kill", "hang-up"])
def test_ctrl_c_stops_within_2_s_and_says_how_many_matches_are_saved(tmp_path, stop):
    """Ctrl-C, `kill` (SIGTERM: docker stop, systemd) and a closed terminal (SIGHUP) alike: SIGTERM and SIGHUP
    ended the run at once, its last second unsaved and the run left `running` (an attacker's report)."""
    child, db, run_id = start_bots_run(tmp_path)
    seen = growth_while_playing(child, db, growths=3)
    child.send_signal(stop)
    interrupted = time.monotonic()
    _, err = child.communicate(timeout=60)
    took = time.monotonic() - interrupted
    assert child.returncode == 130, err
    # stopping ends with a last flush: within 2 s, or one flush's time when flushes take longer (a busy machine)
    grew_at = [when for (before, _), (count, when) in zip(seen, seen[1:], strict=False) if count > before]
    gaps = [(later - earlier).total_seconds() for earlier, later in zip(grew_at, grew_at[1:], strict=False)]
    assert took < max(2.0, max(gaps) + 0.5), f"stopped {took:.1f} s after Ctrl-C (flushes {gaps} s apart)"
    said = re.search(r"interrupted: ([\d,]+) of 20,000 matches done and saved", err)
    assert said, err
    saved = int(said.group(1).replace(",", ""))
    assert saved > 0
    assert store.rows(db, "SELECT count(*) FILTER (status = 'ok'), count(*) FROM matches") == [(saved, saved)]
    assert store.rows(db, "SELECT n_done, status FROM runs WHERE run_id = ?", [run_id]) == [(saved, "cancelled")]


@pytest.mark.slow  # processes started and killed, or a whole rescore: 5-50 s
def test_a_run_waits_for_its_writer_instead_of_gathering_its_matches(db_path, monkeypatch):
    """A run's memory is bounded by its concurrency, not its length: while the writer cannot write (a database
    held for long by a reader), the run stops playing after a few matches rather than playing on and keeping
    every finished one in memory."""
    bound = group_commit.MAX_PENDING_ROWS
    monkeypatch.setattr(group_commit, "MAX_PENDING_ROWS", 100)  # a few TicTacToe matches
    played, released, played_while_stuck = [], threading.Event(), []
    real_play, real_write = playing.play_match, store.write_matches

    async def counted(*args, **kwargs):
        played.append(1)
        return await real_play(*args, **kwargs)

    def stuck(db, batch, replace=()):
        released.wait(60)
        return real_write(db, batch, replace)

    def release():
        time.sleep(1.5)
        played_while_stuck.append(len(played))
        group_commit.MAX_PENDING_ROWS = bound  # the rest at full speed
        released.set()

    monkeypatch.setattr(playing, "play_match", counted)
    monkeypatch.setattr(group_commit.store, "write_matches", stuck)
    spec = parse_spec({"name": "held", "seed": 0, "repeats": 500, "concurrency": 8,
                       "games": [{"game": "tictactoe", "lineups": [{"all": "bot:random"}]}]})
    threading.Thread(target=release, daemon=True).start()
    summary = asyncio.run(run_spec(spec, db_path, progress=False))
    # a few pending, 8 waiting to be taken, 8 playing: not the 500 of the run
    assert played_while_stuck[0] <= 40, played_while_stuck
    assert summary.played == 500 and store.rows(db_path, "SELECT n_done FROM runs") == [(500,)]


def test_a_match_against_an_endpoint_that_never_answers_errors_at_its_deadline(stub, db_path):
    """Without a whole-match deadline a dead endpoint held the match for 6 tries of 120 s each."""
    stub.responder = lambda req: StubReply('{"chosen_number": 20}', delay=30)
    seat = {"agent": "openai/stub-model", "api_base": stub.url, "temperature": 0.0, "max_tokens": 16}
    spec = parse_spec({"name": "dead", "seed": 1, "match_deadline_s": 2, "games": [
        {"game": "guessing_game", "params": {"players": 2, "rounds": 1}, "lineups": [[seat, "bot:random"]]}]})
    started = time.monotonic()
    summary = asyncio.run(run_spec(spec, db_path, progress=False))
    took = time.monotonic() - started
    assert summary.errors == 1 and took < 10, took
    status, error = store.rows(db_path, "SELECT status, error FROM matches")[0]
    assert status == "error" and "did not end within its deadline of 2 s (match_deadline_s" in error
    assert parse_spec({**spec.raw, "match_deadline_s": 600}).run_id == spec.run_id  # not part of the run's identity


def test_the_match_deadline_is_checked_as_a_spec_setting():
    import pytest

    from engine.play.spec import SpecError

    base = {"name": "d", "games": [{"game": "tictactoe", "lineups": [{"all": "bot:random"}]}]}
    assert parse_spec(base).matches[0].deadline_s == 300
    for bad, says in ((0, "greater than or equal to 1"), (-5, "greater than or equal to 1"), ("soon", "valid integer"),
                      (1.5, "valid integer"), (True, "valid integer"), (10**9, "less than or equal to 604800")):
        with pytest.raises(SpecError, match=f"match_deadline_s: Input should be (a )?{says}"):
            parse_spec(base | {"match_deadline_s": bad})


def test_a_match_against_an_address_nothing_listens_on_says_why_its_calls_failed(db_path):
    """An attacker's report: with nothing listening, the match's only error was "did not end within its deadline
    ... raise it for longer matches", advice that does not fit a refused connection."""
    import socket

    with socket.socket() as closed:  # a port that was free a moment ago: nothing listens on it
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    seat = {"agent": "openai/stub-model", "api_base": f"http://127.0.0.1:{port}/v1", "max_tokens": 16}
    spec = parse_spec({"name": "refused", "seed": 1, "match_deadline_s": 3, "games": [
        {"game": "guessing_game", "params": {"players": 2, "rounds": 1}, "lineups": [[seat, "bot:random"]]}]})
    assert asyncio.run(run_spec(spec, db_path, progress=False)).errors == 1
    (error,) = store.rows(db_path, "SELECT error FROM matches")[0]
    assert error.startswith("the match did not end within its deadline of 3 s while calls kept failing (the last: "
                            "openai/stub-model: "), error
    assert f"Cannot connect to host 127.0.0.1:{port}" in error and "raise it" not in error, error
