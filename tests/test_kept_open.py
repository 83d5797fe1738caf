"""While a process serves pages, a file it read stays open between reads (`connections.KEEP_OPEN`): the next read
opens from the database already in memory. The file is let go when idle, as soon as a writer of the arena waits
for it, before this process writes, and when another file is put in its place; outside serving nothing is kept."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import pytest

from engine import store
from engine.store import connections

pytestmark = pytest.mark.slow

FOREIGN_WRITE = """
import sys, duckdb
try:
    duckdb.connect(sys.argv[1]).close()
except duckdb.Error:
    sys.exit(3)
"""

ARENA_WRITE = """
import sys, time
from engine import store
start = time.monotonic()
with store.connect(sys.argv[1]) as con:
    con.execute("INSERT INTO metrics VALUES ('m', 0, 'x', 1.0)")
print(f"{time.monotonic() - start:.3f}")
"""


def foreign_writer_gets_in(db) -> bool:
    """Whether a plain DuckDB writer in another process (no mark, no wait) opens the file at once."""
    return subprocess.run([sys.executable, "-c", FOREIGN_WRITE, str(db)]).returncode == 0


def count(db) -> int:
    with store.connect(db, read_only=True) as con:
        return con.execute("SELECT count(*) FROM metrics").fetchone()[0]


@pytest.fixture
def db(db_path):
    store.init_db(db_path)
    return db_path


def test_a_file_read_while_serving_stays_open_then_is_let_go_when_idle(db, monkeypatch):
    monkeypatch.setattr(connections, "KEEP_OPEN", 1.0)
    with store.serving_pages():
        count(db)
        assert not foreign_writer_gets_in(db), "kept open after the read"
        deadline = time.monotonic() + 30
        while not foreign_writer_gets_in(db):
            assert time.monotonic() < deadline, "let go once idle for KEEP_OPEN s"
            time.sleep(0.2)


def test_outside_serving_a_read_keeps_nothing_open(db):
    count(db)
    assert foreign_writer_gets_in(db)


def test_leaving_serving_lets_every_file_go(db):
    with store.serving_pages():
        count(db)
    assert foreign_writer_gets_in(db)


def test_an_arena_writer_gets_in_while_pages_keep_reading(db):
    """A dashboard reading every 50 ms holds the file all the time: the waiting writer's mark lets it in, and the
    reads after its write see it."""
    stop = threading.Event()
    seen = []

    def keep_reading():
        while not stop.is_set():
            seen.append(count(db))
            time.sleep(0.05)

    with store.serving_pages():
        count(db)
        reader = threading.Thread(target=keep_reading)
        reader.start()
        try:
            writer = subprocess.run([sys.executable, "-c", ARENA_WRITE, str(db)], cwd=store.ROOT, capture_output=True,
                                    text=True, timeout=120)
            assert writer.returncode == 0, writer.stderr
            waited = float(writer.stdout)
            deadline = time.monotonic() + 30
            while 1 not in seen and time.monotonic() < deadline:
                time.sleep(0.05)
        finally:
            stop.set()
            reader.join(30)
    assert waited < connections.KEEP_OPEN, f"the writer waited {waited:.2f} s: the kept file was not let go for it"
    assert seen[-1] == 1, seen[-20:]


def test_this_process_writes_at_once_though_it_keeps_the_file_open(db):
    with store.serving_pages():
        count(db)
        start = time.monotonic()
        with store.connect(db) as con:
            con.execute("INSERT INTO metrics VALUES ('m', 0, 'x', 1.0)")
        assert time.monotonic() - start < 1.0, "its own kept connection would make it wait for itself"
        assert count(db) == 1


def test_a_file_put_in_place_of_the_kept_one_is_read_as_itself(db, tmp_path):
    """A file kept open and then replaced (a new results.duckdb moved in) must not be read from the old one."""
    other = tmp_path / "other.duckdb"
    store.init_db(other)
    with store.connect(other) as con:
        con.execute("INSERT INTO metrics VALUES ('m', 0, 'x', 1.0)")
    with store.serving_pages():
        assert count(db) == 0
        os.replace(other, db)
        assert count(db) == 1
