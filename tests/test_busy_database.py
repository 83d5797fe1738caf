"""A busy database: a writer waits as long as it takes, saying which process holds the file, and
carries on (a finished match is never lost to a reader); a reader gives up after its timeout with
one line naming the holder."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import duckdb
import pytest

from engine import store
from engine.store import connections

pytestmark = pytest.mark.slow

HOLD = """
import sys, time, duckdb
con = duckdb.connect(sys.argv[1], read_only=sys.argv[2] == "ro")
print("holding", flush=True)
time.sleep(float(sys.argv[3]))
"""


def hold(db, mode: str, seconds: float) -> subprocess.Popen:
    child = subprocess.Popen([sys.executable, "-c", HOLD, str(db), mode, str(seconds)], stdout=subprocess.PIPE,
                             text=True)
    assert child.stdout.readline().strip() == "holding"
    return child


def test_a_writer_outwaits_a_reader_and_says_who_holds_the_file(db_path, monkeypatch, capsys):
    store.init_db(db_path)
    monkeypatch.setattr(connections, "WAIT_REPORT_EVERY", 0.3)
    holder = hold(db_path, "ro", 1.5)
    start = time.monotonic()
    with store.connect(db_path, timeout=0.1) as con:  # a writer ignores a timeout: it must not lose its match
        con.execute("INSERT INTO metrics VALUES ('m', 0, 'x', 1.0)")
    waited = time.monotonic() - start
    holder.wait()
    assert waited >= 1.0
    said = capsys.readouterr().err
    assert f"held by PID {holder.pid} (" in said and "waiting" in said
    assert store.rows(db_path, "SELECT count(*) FROM metrics") == [(1,)]
    assert store.LONGEST_WAIT["write"] >= 1.0


def test_a_reader_gives_up_with_one_line_naming_the_holder(db_path):
    store.init_db(db_path)
    holder = hold(db_path, "rw", 3.0)
    try:
        with pytest.raises(store.DatabaseError, match=rf"busy .*held by PID {holder.pid} .*try again") as caught:
            with store.connect(db_path, read_only=True, timeout=0.3):
                pass
        assert "\n" not in str(caught.value)
    finally:
        holder.kill()
        holder.wait()


@pytest.mark.parametrize("held, wanted", [("rw", "ro"), ("ro", "rw")])
def test_a_connection_of_this_same_process_in_the_other_mode_is_waited_for(db_path, monkeypatch, capsys, held, wanted):
    """A group commit flushes in a thread while the run (or the dashboard) reads in another: DuckDB refuses a
    second connection of one process in the other mode ("different configuration"), which once failed a read
    mid-run on a loaded machine. It is waited for as another process's lock is, naming this process."""
    import threading

    import duckdb

    store.init_db(db_path)
    monkeypatch.setattr(connections, "WAIT_REPORT_EVERY", 0.1)
    holder = duckdb.connect(str(db_path), read_only=held == "ro")
    outcome = []

    def use_it():
        try:
            with store.connect(db_path, read_only=wanted == "ro") as con:
                outcome.append(con.execute("SELECT count(*) FROM matches").fetchone()[0])
        except Exception as exc:  # noqa: BLE001 - recorded for the assertion below
            outcome.append(exc)

    other = threading.Thread(target=use_it)
    other.start()
    other.join(1.0)  # still waiting while the holder stays open
    holder.close()
    other.join(60)
    assert outcome == [0]
    assert "this process" in capsys.readouterr().err


WRITE = """
import sys
from engine import store
with store.connect(sys.argv[1]) as con:
    con.execute("INSERT INTO metrics VALUES ('m', 0, 'x', 1.0)")
"""


HOLD_UNTIL = """
import sys, time, duckdb
from pathlib import Path
con = duckdb.connect(sys.argv[1], read_only=True)
print("holding", flush=True)
while not Path(sys.argv[2]).exists():
    time.sleep(0.01)
"""


def test_a_new_reader_stands_back_while_a_writer_waits(db_path, monkeypatch, tmp_path):
    """Readers share the file: a stream of them (a dashboard loading page after page) kept a writer out for 13 s.
    A waiting writer marks the file, and a reader that comes meanwhile lets it in first, so it reads the write."""
    import threading

    store.init_db(db_path)
    monkeypatch.setattr(connections, "WRITER_FIRST", 120.0)  # here: until the writer is in, however loaded the machine
    release = tmp_path / "release"
    holder = subprocess.Popen([sys.executable, "-c", HOLD_UNTIL, str(db_path), str(release)], stdout=subprocess.PIPE,
                              text=True)
    assert holder.stdout.readline().strip() == "holding"
    writer = subprocess.Popen([sys.executable, "-c", WRITE, str(db_path)], cwd=store.ROOT)
    seen = []

    def read():
        with store.connect(db_path, read_only=True) as con:  # would share the holder's lock at once
            seen.append(con.execute("SELECT count(*) FROM metrics").fetchone()[0])

    try:
        mark = connections._waiting_mark(db_path)
        deadline = time.monotonic() + 120
        while not mark.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert mark.exists(), "the writer, finding the file held, marks it"
        reader = threading.Thread(target=read)
        reader.start()
        reader.join(0.5)
        assert not seen, "the reader stands back while the writer waits"
    finally:
        release.touch()
    reader.join(120)
    assert holder.wait(60) == 0 and writer.wait(60) == 0
    assert seen == [1] and not mark.exists()


def test_a_reader_stands_back_for_a_fresh_mark_only(db_path):
    """A writer killed while it waited leaves its mark behind: once stale, nobody stands back for it."""
    store.init_db(db_path)
    connections._waiting_mark(db_path).touch()
    assert connections._writer_waiting(db_path)
    old = time.time() - 2 * connections.MARK_FRESH
    os.utime(connections._waiting_mark(db_path), (old, old))
    assert not connections._writer_waiting(db_path)


def test_the_trueskill_replay_holds_no_connection_while_it_replays(db_path, monkeypatch):
    import asyncio

    from engine.play.runner import run_spec
    from engine.play.spec import parse_spec
    from engine.score import trueskill_replay as ratings

    asyncio.run(run_spec(parse_spec({"name": "r", "repeats": 3, "games": [
        {"game": "tictactoe", "lineups": [["bot:random", "bot:equilibrium"]]}]}), db_path, progress=False))
    outcomes = []
    real_replay = ratings._replay

    def replay_while_another_process_writes(*args):
        writer = subprocess.run([sys.executable, "-c", f"import duckdb; duckdb.connect({str(db_path)!r}).close()"],
                                capture_output=True, text=True)
        outcomes.append(writer.returncode)
        return real_replay(*args)

    monkeypatch.setattr(ratings, "_replay", replay_while_another_process_writes)
    assert ratings.replayed_ratings(db_path)
    assert outcomes == [0]  # the writer got the file: the page's replay was not holding it


def test_a_short_read_while_another_process_grows_the_file_is_tried_again(db_path, monkeypatch):
    store.init_db(db_path)
    real_connect, failures = duckdb.connect, []

    def growing(path, read_only=False, config=None):
        if len(failures) < 2:
            failures.append(path)
            raise duckdb.IOException(f'IO Error: Could not read enough bytes from file "{path}"')
        return real_connect(path, read_only=read_only, config=config or {})

    monkeypatch.setattr(duckdb, "connect", growing)
    with store.connect(db_path, read_only=True) as con:
        assert con.execute("SELECT count(*) FROM runs").fetchone() == (0,)
    assert len(failures) == 2


def test_a_run_waits_for_a_busy_database_from_its_first_look_saying_who_holds_it(db_path, tmp_path):
    """A run's first look at the database (is it one of ours? an older schema?) gave up after a reader's 30 s; a run
    waits as long as it takes, as its writes do, and says every 10 s who holds the file."""
    import yaml

    store.init_db(db_path)
    spec = tmp_path / "bots.yaml"
    spec.write_text(yaml.safe_dump({"name": "patient", "repeats": 3, "games": [
        {"game": "tictactoe", "lineups": [{"all": "bot:random"}]}]}))
    holder = hold(db_path, "rw", 600)  # let go once the run has waited past a reader's 30 s, however slow its start
    run = subprocess.Popen([sys.executable, "-m", "engine", "run", str(spec), "--db", str(db_path), "--quiet"],
                           cwd=store.ROOT, stderr=subprocess.PIPE, text=True)
    waits = []
    for line in run.stderr:
        waits += [line] if line.startswith("waiting") else []
        if line.startswith(f"waiting {store.READER_TIMEOUT:.0f} s"):
            break
    holder.terminate()
    holder.wait()
    rest = run.communicate(timeout=600)[1]
    assert run.returncode == 0, rest
    assert [line.split()[1] for line in waits[:3]] == ["10", "20", "30"], waits
    assert all(f"held by PID {holder.pid} (" in line for line in waits)
    assert store.rows(db_path, "SELECT n_done, status FROM runs") == [(3, "ok")]


FOREIGN_WRITE = """
import sys, duckdb
try:
    duckdb.connect(sys.argv[1]).close()
except duckdb.Error:
    sys.exit(3)
"""


def test_a_second_connection_of_this_process_keeps_the_first_ones_lock(db_path):
    """DuckDB's file lock belongs to the process and goes with any descriptor of the file it closes: reading the
    header before a second connection (a page's thread while another reads) dropped the first one's lock, and
    another process could write under its reads."""
    store.init_db(db_path)
    with store.connect(db_path, read_only=True) as first:
        with store.connect(db_path, read_only=True):
            pass
        writer = subprocess.run([sys.executable, "-c", FOREIGN_WRITE, str(db_path)])
        assert writer.returncode == 3, "a writer got in while this process was reading"
        assert first.execute("SELECT count(*) FROM metrics").fetchone() == (0,)
