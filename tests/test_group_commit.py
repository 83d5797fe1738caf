"""Group commit: finished matches are written a batch per transaction, at least every second and at the end; the
connection is closed between flushes; a batch goes in whole or not at all; a match never attempted before is
only appended (no DELETE across whole tables)."""

from __future__ import annotations

import asyncio
import copy
import os
from contextlib import contextmanager

import pytest

from engine import store
from engine.play import group_commit
from engine.play.playing import play_match
from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.store import connections
from engine.store.summaries import SUMMARIES
from engine.store.summary_registry import registered

pytestmark = pytest.mark.slow

BOTS = {"name": "bots", "seed": 0, "repeats": 120, "concurrency": 16,
        "games": [{"game": "tictactoe", "lineups": [{"all": "bot:random"}]}]}


def records(n: int, name: str = "r") -> list[store.MatchRecord]:
    spec = parse_spec(BOTS | {"name": name, "repeats": n})

    async def play():
        return [await play_match(plan) for plan in spec.matches]

    return asyncio.run(play())


class Recorder:
    """Wraps `store.connect`: keeps every statement, and fails the one that matches `fail_on`."""

    def __init__(self, monkeypatch, fail_on: str | None = None):
        self.sql: list[str] = []
        self.fail_on = fail_on
        real = connections.connect

        @contextmanager
        def connect(db, read_only=False, timeout=60.0):
            with real(db, read_only, timeout) as con:
                yield Proxy(con, self)

        monkeypatch.setattr(connections, "connect", connect)


class Proxy:
    def __init__(self, con, recorder: Recorder):
        self.con, self.recorder = con, recorder

    def execute(self, sql, *args):
        self.recorder.sql.append(sql)
        if self.recorder.fail_on and sql.startswith(self.recorder.fail_on):
            raise RuntimeError("disk full")
        return self.con.execute(sql, *args)

    def __getattr__(self, name):
        return getattr(self.con, name)


def test_a_run_writes_its_matches_in_a_few_batches(db_path, monkeypatch):
    batches = []
    real = store.write_matches
    monkeypatch.setattr(group_commit.store, "write_matches",
                        lambda db, batch, replace=(): (batches.append(len(batch)), real(db, batch, replace))[1])
    summary = asyncio.run(run_spec(parse_spec(BOTS), db_path, progress=False))
    assert summary.played == sum(batches) == 120
    assert len(batches) < 20, f"one transaction per batch, not per match: {batches}"
    run = store.query(db_path, "SELECT n_done, status FROM runs").iloc[0]
    assert (run["n_done"], run["status"]) == (120, "ok")


def test_batches_are_flushed_while_the_run_goes_on_and_readable_between_flushes(db_path):
    store.init_db(db_path)
    batch = records(6)
    seen = []

    async def run():
        async with group_commit.GroupCommit(db_path, every=0.1) as writer:
            for record in batch:
                writer.add(record)
                await asyncio.sleep(0.3)
                seen.append(store.count_matches(db_path))  # a reader gets in: no connection is held open

    asyncio.run(run())
    assert seen == [1, 2, 3, 4, 5, 6]


def test_a_failed_batch_leaves_nothing_of_any_of_its_matches(db_path, monkeypatch):
    store.init_db(db_path)
    store.write_matches(db_path, records(2, "earlier"))
    Recorder(monkeypatch, fail_on="INSERT INTO metrics")
    with pytest.raises(RuntimeError, match="disk full"):
        store.write_matches(db_path, records(5))
    counts = store.query(db_path, """SELECT (SELECT count(*) FROM matches) AS m, (SELECT count(*) FROM seats) AS s,
                                            (SELECT count(DISTINCT match_id) FROM turns) AS t""").iloc[0]
    assert counts.tolist() == [2, 4, 2]


def match_deletes(recorder) -> list[str]:
    """The DELETEs of the match tables (the summaries' few rows of the keys a batch touches are replaced)."""
    summaries = (*SUMMARIES, *registered())
    return [s for s in recorder.sql if s.startswith("DELETE") and not any(f"FROM {t} " in s for t in summaries)]


def test_new_matches_are_appended_without_a_delete_and_earlier_attempts_are_replaced(db_path, monkeypatch):
    store.init_db(db_path)
    first = records(4)
    failed = copy.deepcopy(first[0])
    failed.match |= {"status": "error", "error": "provider down"}
    store.write_matches(db_path, [failed] + first[1:2])
    recorder = Recorder(monkeypatch)
    store.write_matches(db_path, first[2:])
    assert not match_deletes(recorder), "a never-attempted match needs no DELETE"
    store.write_matches(db_path, first[:1], replace={failed.match["match_id"]})
    assert len(match_deletes(recorder)) == 4  # the four tables, for that match only
    matches = store.query(db_path, "SELECT match_id, status FROM matches ORDER BY match_id")
    assert len(matches) == matches["match_id"].nunique() == 4 and (matches["status"] == "ok").all()


def test_a_resumed_run_replaces_only_its_errored_matches(db_path, monkeypatch):
    spec = parse_spec(BOTS | {"repeats": 5})
    asyncio.run(run_spec(spec, db_path, progress=False))
    with store.connect(db_path) as con:
        con.execute("UPDATE matches SET status = 'error' WHERE \"repeat\" = 0")
        con.execute("UPDATE runs SET n_done = 4")
    recorder = Recorder(monkeypatch)
    summary = asyncio.run(run_spec(spec, db_path, progress=False))
    assert (summary.skipped, summary.played) == (4, 1)
    deletes = match_deletes(recorder)
    assert len(deletes) == 4 and all("stale_ids" in s for s in deletes)
    run = store.query(db_path, "SELECT n_done FROM runs")["n_done"][0]
    assert run == 5 and store.count_matches(db_path) == 5


def test_an_older_database_gains_the_worker_column_and_new_matches_name_their_player(tmp_path):
    import gzip
    import socket
    from pathlib import Path

    db = tmp_path / "v1.duckdb"
    db.write_bytes(gzip.decompress((Path(__file__).parent / "data" / "schema" / "v1.duckdb.gz").read_bytes()))
    old = store.count_matches(db)
    asyncio.run(run_spec(parse_spec(BOTS | {"repeats": 3}), db, progress=False))
    workers = dict(store.rows(db, "SELECT coalesce(worker, 'none'), count(*) FROM matches GROUP BY ALL"))
    assert workers == {"none": old, f"{socket.gethostname()}:{os.getpid()}": 3}


def test_a_batch_whose_flush_fails_after_the_run_ended_is_written_by_the_final_flush(db_path, monkeypatch):
    """The run ends while a flush is in its thread: cancelling the ticker orphans that thread, so an error
    there reaches nobody. Its batch must go back to pending for the final flush, not vanish while the run
    ends `ok`."""
    import threading

    store.init_db(db_path)
    record = records(1)[0]
    entered, release, calls = threading.Event(), threading.Event(), []
    real = store.write_matches

    def flaky(db, batch, replace=()):
        calls.append(len(batch))
        if len(calls) == 1:  # the ticker's flush: fails once the run has ended and cancelled it
            entered.set()
            release.wait(30)
            raise RuntimeError("busy")
        return real(db, batch, replace)

    monkeypatch.setattr(group_commit.store, "write_matches", flaky)

    async def run():
        async with group_commit.GroupCommit(db_path, every=0.01) as writer:
            writer.add(record)
            await asyncio.to_thread(entered.wait, 30)
            # the block ends now: __aexit__ cancels the ticker at once, then its final flush waits for the thread
            threading.Timer(0.3, release.set).start()

    asyncio.run(run())
    assert calls == [1, 1]
    assert store.count_matches(db_path) == 1


def test_a_flush_that_failed_once_is_written_at_the_end_and_a_lasting_failure_raises(db_path, monkeypatch):
    store.init_db(db_path)
    record = records(1)[0]
    real, calls = store.write_matches, []

    def failing(times):
        def write(db, batch, replace=()):
            calls.append(len(batch))
            if len(calls) <= times:
                raise RuntimeError("disk full")
            return real(db, batch, replace)
        return write

    async def run():
        async with group_commit.GroupCommit(db_path, every=0.01) as writer:
            writer.add(record)
            while not writer._ticker.done():  # the ticker's flush fails and ends it
                await asyncio.sleep(0.01)

    monkeypatch.setattr(group_commit.store, "write_matches", failing(1))
    asyncio.run(run())
    assert calls == [1, 1] and store.count_matches(db_path) == 1
    calls.clear()
    monkeypatch.setattr(group_commit.store, "write_matches", failing(2))
    with pytest.raises(RuntimeError, match="disk full"):
        asyncio.run(run())


WRITER = {"seed": 0, "repeats": 60, "concurrency": 4,
          "games": [{"game": "guessing_game", "params": {"players": 3, "rounds": 2},
                     "lineups": [{"all": "bot:random"}]}]}


def test_three_writer_processes_on_one_database_write_every_match_exactly_once(tmp_path):
    """Three `engine run` processes and a reader share one file: every match of every run is there once,
    and each run's `n_done` and status agree with its rows."""
    import subprocess
    import sys

    import yaml

    db = tmp_path / "shared.duckdb"
    store.init_db(db)
    specs = []
    for i in range(3):
        raw = WRITER | {"name": f"writer {i}", "seed": 100 * i}
        path = tmp_path / f"w{i}.yaml"
        path.write_text(yaml.safe_dump(raw))
        specs.append(parse_spec(raw))
    procs = [subprocess.Popen([sys.executable, "-m", "engine", "run", str(tmp_path / f"w{i}.yaml"), "--db", str(db),
                               "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              env=os.environ | {"ARENA_CACHE": "off"}) for i in range(3)]
    while any(p.poll() is None for p in procs):  # a reader in the gaps, as a page is
        store.count_matches(db)
    outputs = [p.communicate()[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], outputs
    for spec in specs:
        expected = {m.match_id for m in spec.matches}
        stored = store.rows(db, "SELECT match_id, count(*), any_value(status) FROM matches WHERE run_id = ? "
                                "GROUP BY ALL", [spec.run_id])
        assert {m for m, _, _ in stored} == expected and all(n == 1 and s == "ok" for _, n, s in stored)
        n_done, n_matches, status = store.rows(db, "SELECT n_done, n_matches, status FROM runs WHERE run_id = ?",
                                               [spec.run_id])[0]
        assert (n_done, n_matches, status) == (len(expected), len(expected), "ok")
        seats = store.rows(db, "SELECT count(*), count(DISTINCT match_id) FROM seats JOIN matches USING (match_id) "
                               "WHERE run_id = ?", [spec.run_id])[0]
        assert seats == (3 * len(expected), len(expected))
