"""`engine serve` starts the dashboard with its readers bounded by `connections.PAGES_READER_MEMORY` (the process holds
Streamlit and pandas beside them: bench/dashboard.py); other processes' readers keep READER_MEMORY."""

from __future__ import annotations

import os
import sys

from engine import store
from engine.store import connections
from tests.test_serve_process import free_port


def reader_limit(db) -> str:
    with store.connect(db, read_only=True) as con:
        return con.execute("SELECT current_setting('memory_limit')").fetchone()[0]


def test_the_dashboards_readers_are_bounded_tighter_while_it_serves(db_path, monkeypatch):
    from streamlit.web import cli as streamlit_cli

    from engine.cli.main import main

    store.init_db(db_path)
    seen = []
    monkeypatch.setattr(streamlit_cli, "main", lambda: seen.append(reader_limit(db_path)) or 0)  # the server
    monkeypatch.setattr(sys, "argv", list(sys.argv))  # serve sets these: restored after the test
    monkeypatch.setenv("ARENA_DB", str(db_path))
    monkeypatch.chdir(os.getcwd())
    monkeypatch.setenv(connections.READER_MEMORY_ENV, "")  # unset; serve sets it: restored after the test
    assert reader_limit(db_path) == "244.1 MiB"  # READER_MEMORY, 256 MB, as DuckDB prints it
    assert main(["serve", "--db", str(db_path), "--port", str(free_port())]) == 0
    assert seen == ["122.0 MiB"]  # PAGES_READER_MEMORY, 128 MB
