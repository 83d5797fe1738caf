"""A busy database: a writer waits as long as it takes, saying which process holds the file, and
carries on (a finished match is never lost to a reader); a reader gives up after its timeout with
one line naming the holder."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from engine import store

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
    monkeypatch.setattr(store, "WAIT_REPORT_EVERY", 0.3)
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
