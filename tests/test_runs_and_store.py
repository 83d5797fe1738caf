"""Run specs, the runner and the store: one transaction per match, resume without duplicates,
errored matches replayed, kill -9 in the middle of a run."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from engine import store
from engine.play.runner import run_spec
from engine.play.spec import SpecError, parse_spec
from engine.testing import StubReply

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]

BOTS_SPEC = {
    "name": "bots", "seed": 3, "repeats": 2, "concurrency": 4,
    "games": [
        {"game": "guessing_game", "params": {"rounds": 3}, "lineups": [{"all": "bot:random"}]},
        {"game": "tictactoe", "lineups": [["bot:random", "bot:equilibrium"]]},
        {"game": "prisoners_dilemma", "lineups": [{"challenger": "bot:equilibrium", "others": "bot:tit_for_tat"}]},
    ],
}


def counts(db):
    return store.query(db, """
        SELECT (SELECT count(*) FROM matches) AS matches, (SELECT count(DISTINCT match_id) FROM matches) AS ids,
               (SELECT count(*) FROM seats) AS seats, (SELECT count(*) FROM turns) AS turns,
               (SELECT count(*) FROM (SELECT match_id, turn FROM turns GROUP BY ALL HAVING count(*) > 1)) AS dup_turns,
               (SELECT count(*) FROM (SELECT match_id, seat, name FROM metrics GROUP BY ALL HAVING count(*) > 1))
                   AS dup_metrics
    """).iloc[0].to_dict()


def test_spec_expands_lineups_and_repeats_with_stable_ids():
    spec = parse_spec(BOTS_SPEC)
    # 1 + 1 + 3 (challenger in each of 3 seats) lineups, 2 repeats each
    assert len(spec.matches) == (1 + 1 + 3) * 2
    assert len({m.match_id for m in spec.matches}) == len(spec.matches)
    again = parse_spec(BOTS_SPEC | {"concurrency": 1})
    assert again.run_id == spec.run_id and [m.match_id for m in again.matches] == [m.match_id for m in spec.matches]
    assert parse_spec(BOTS_SPEC | {"seed": 4}).run_id != spec.run_id
    pd_seats = [m.seats for m in spec.matches if m.game == "prisoners_dilemma"]
    assert {tuple(s.agent for s in seats).index("bot:equilibrium") for seats in pd_seats} == {0, 1, 2}


@pytest.mark.parametrize("change, message", [
    ({"name": ""}, "name"),
    ({"games": []}, "games"),
    ({"repeats": 0}, "repeats"),
    ({"bogus": 1}, "unknown key"),
    ({"games": [{"game": "chess", "lineups": [{"all": "bot:random"}]}]}, "unknown game 'chess'"),
    ({"games": [{"game": "tictactoe", "lineups": [["bot:random"]]}]}, "2 seats but the lineup lists 1"),
    ({"games": [{"game": "tictactoe", "params": {"size": 4}, "lineups": [{"all": "bot:random"}]}]}, "no parameter"),
    ({"games": [{"game": "tictactoe", "params": {"hint": "yes"}, "lineups": [{"all": "bot:random"}]}]}, "must be bool"),
    ({"games": [{"game": "tictactoe", "lineups": [{"all": "bot:genius"}]}]}, "no bot 'genius'"),
    ({"games": [{"game": "tictactoe", "lineups": [{"all": {"agent": "openai/x", "temperature": 5}}]}]},
     "temperature"),
    ({"games": [{"game": "tictactoe", "lineups": [{"all": {"agent": "openai/x", "prompt_version": "v99"}}]}]},
     "no prompt version 'v99'"),
    ({"games": [{"game": "tictactoe", "lineups": [{"all": {"agent": "openai/x", "strategy": "magic"}}]}]},
     "unknown strategy"),
])
def test_bad_specs_are_refused_with_the_place_and_the_reason(change, message):
    with pytest.raises(SpecError, match=message):
        parse_spec(BOTS_SPEC | change)


def test_run_writes_every_match_once_and_a_rerun_resumes(db_path):
    spec = parse_spec(BOTS_SPEC)
    first = asyncio.run(run_spec(spec, db_path, progress=False))
    assert (first.played, first.errors) == (10, 0)
    before = counts(db_path)
    assert before["matches"] == before["ids"] == 10 and before["dup_turns"] == before["dup_metrics"] == 0
    assert before["seats"] == 2 * (10 + 2 + 3 * 3)
    second = asyncio.run(run_spec(spec, db_path, progress=False))
    assert (second.skipped, second.played) == (10, 0)
    assert counts(db_path) == before
    run = store.query(db_path, "SELECT status, n_matches, n_done FROM runs").iloc[0]
    assert (run["status"], run["n_matches"], run["n_done"]) == ("ok", 10, 10)


def test_turn_log_holds_decisions_and_moderator_messages_in_order(db_path):
    asyncio.run(run_spec(parse_spec(BOTS_SPEC), db_path, progress=False))
    turns = store.query(db_path, """
        SELECT t.turn, t.seat, t.phase, t.state, t.action, t.response FROM turns t JOIN matches m USING (match_id)
        WHERE m.game = 'tictactoe' AND m."repeat" = 0 ORDER BY t.turn""")
    assert list(turns["turn"]) == list(range(len(turns)))
    moves = turns[turns["seat"].notna()]
    assert set(moves["phase"]) == {"move"} and (turns["phase"] == "moderator").sum() == len(moves)
    assert '"board"' in moves["state"].iloc[-1]


def test_same_seed_replays_the_same_bot_match(tmp_path):
    a, b = tmp_path / "a.duckdb", tmp_path / "b.duckdb"
    for db in (a, b):
        asyncio.run(run_spec(parse_spec(BOTS_SPEC), db, progress=False))
    sql = "SELECT match_id, turn, action, state FROM turns ORDER BY match_id, turn"
    assert store.query(a, sql).equals(store.query(b, sql))


def test_kill_minus_nine_then_rerun_leaves_each_match_exactly_once(tmp_path, stub):
    """Each match waits on a slow stub model, so the run is long enough for the kill to land mid-way
    whatever the machine's speed; the kill may also cut a match between two model calls."""
    stub.responder = lambda req: StubReply("defect", delay=0.02)
    repeats = 40
    seat = {"agent": "openai/stub-model", "api_base": stub.url, "max_tokens": 8}
    spec = {"name": "long", "seed": 0, "repeats": repeats, "concurrency": 2,
            "games": [{"game": "prisoners_dilemma", "lineups": [{"challenger": seat, "others": "bot:tit_for_tat"}]}]}
    spec_path, db = tmp_path / "long.yaml", tmp_path / "kill.duckdb"
    spec_path.write_text(yaml.safe_dump(spec))
    total = len(parse_spec(spec).matches)  # the challenger takes each of the 3 seats in turn
    cmd = [sys.executable, "-m", "engine", "run", str(spec_path), "--db", str(db), "--quiet"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    done = 0
    while time.monotonic() < deadline and done < 10:
        time.sleep(0.2)
        if db.exists():
            try:
                done = store.count_matches(db)
            except Exception:  # noqa: BLE001 - the writer holds the file; try again
                continue
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    partial = store.count_matches(db)
    assert 10 <= partial < total, "the kill must land in the middle of the run"
    result = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert f"{partial} already done" in result.stdout
    final = counts(db)
    assert final["matches"] == final["ids"] == total == 3 * repeats and final["dup_turns"] == 0
    assert store.query(db, "SELECT count(*) AS n FROM seats")["n"][0] == total * 3


def test_ctrl_c_stops_a_run_started_with_sigint_ignored(tmp_path, stub):
    """A shell starts background jobs with SIGINT ignored; the run command takes it back, so Ctrl-C and the
    dashboard's Cancel still stop it (as cancelled, finished matches kept)."""
    stub.responder = lambda req: StubReply("defect", delay=0.05)
    seat = {"agent": "openai/stub-model", "api_base": stub.url, "max_tokens": 8}
    spec = {"name": "ignored", "seed": 0, "repeats": 30, "concurrency": 1,
            "games": [{"game": "prisoners_dilemma", "lineups": [{"challenger": seat, "others": "bot:tit_for_tat"}]}]}
    spec_path, db = tmp_path / "ignored.yaml", tmp_path / "ignored.duckdb"
    spec_path.write_text(yaml.safe_dump(spec))
    proc = subprocess.Popen([sys.executable, "-m", "engine", "run", str(spec_path), "--db", str(db), "--quiet"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (db.exists() and _count_or_zero(db) >= 1):
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "interrupted" in err
    assert store.query(db, "SELECT status FROM runs")["status"].tolist() == ["cancelled"]
    assert 1 <= store.count_matches(db) < 90


def _count_or_zero(db) -> int:
    try:
        return store.count_matches(db)
    except Exception:  # noqa: BLE001 - the writer holds the file; try again
        return 0


def test_a_reader_that_stops_early_gets_no_traceback():
    """`python -m engine games | head -1`: the closed pipe ends the command quietly."""
    proc = subprocess.Popen([sys.executable, "-m", "engine", "games"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, bufsize=0)
    assert proc.stdout.read(10)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) in (0, 141) and "Traceback" not in err, err


def test_cli_lists_games_and_refuses_a_bad_spec(tmp_path):
    out = subprocess.run([sys.executable, "-m", "engine", "games"], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0
    for name in ("guessing_game", "tictactoe", "prisoners_dilemma"):
        assert name in out.stdout
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\ngames:\n  - game: tictactoe\n    lineups: [[bot:random]]\n")
    out = subprocess.run([sys.executable, "-m", "engine", "run", str(bad), "--db", str(tmp_path / "x.duckdb")],
                         cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 2 and "2 seats but the lineup lists 1" in out.stderr


def test_writer_waits_for_a_reader_in_another_process_then_writes(db_path):
    store.init_db(db_path)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys, time\n"
         f"con = duckdb.connect({str(db_path)!r}, read_only=True)\nprint('held', flush=True)\ntime.sleep(1.5)"],
        stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    start = time.monotonic()
    match = {"match_id": "m1", "run_id": "r", "game": "tictactoe", "preset": "default", "params": "{}", "seed": 0,
             "repeat": 0, "status": "ok", "error": None, "started_at": None, "finished_at": None, "outcome": None}
    store.write_match(db_path, match, [], [], [])
    waited = time.monotonic() - start
    holder.wait()
    assert waited > 0.5, "the reader held the file, so the writer must have waited"
    assert store.count_matches(db_path) == 1
