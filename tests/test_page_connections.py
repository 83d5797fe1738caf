"""While runs write, every connection a page opens waits for a gap between their flushes: served through app.py, a
page that only reads opens the file once for all its queries (after the one-line check of the file), while Launch,
which stops runs and waits for them, shares nothing (a stopped run's last write must not wait on that page)."""

from __future__ import annotations

import asyncio
from contextlib import contextmanager

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.store import connections, reader
from tests.page_run import serve_like_the_dashboard

pytestmark = pytest.mark.slow

READING_PAGES = ("overview", "leaderboard", "games", "robustness", "abilities", "transcripts")


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("connections") / "results.duckdb"
    spec = {"name": "mixed", "seed": 4, "repeats": 4, "games": [
        {"game": "tictactoe", "lineups": [["bot:random", "bot:equilibrium"]]},
        {"game": "guessing_game", "params": {"players": 3, "rounds": 2},
         "lineups": [["bot:random", "bot:random", "bot:equilibrium"]]}]}
    asyncio.run(run_spec(parse_spec(spec), path, progress=False))
    return path


@pytest.fixture
def opened(monkeypatch):
    """Every `store.connect` of the test, and whether a shared read connection was open while Launch ran."""
    calls = []
    real = connections.connect

    @contextmanager
    def counting(db, read_only=False, timeout=30.0):
        calls.append(read_only)
        with real(db, read_only, timeout) as con:
            yield con

    monkeypatch.setattr(connections, "connect", counting)
    return calls


def test_a_reading_page_opens_the_file_once_for_all_its_queries(db, monkeypatch, opened):
    serve_like_the_dashboard(monkeypatch)
    monkeypatch.setenv("ARENA_DB", str(db))
    at = AppTest.from_file("../app.py", default_timeout=120).run()
    for page in READING_PAGES:
        st.cache_data.clear()  # every scorer computed afresh: the most queries a load makes
        opened.clear()
        at.switch_page(f"pages/{page}.py").run()
        assert not at.exception, page
        assert opened == [True], f"{page}: one connection, opened by the file check, shared by every query"


def test_launch_holds_no_connection_while_it_runs(db, monkeypatch, opened):
    serve_like_the_dashboard(monkeypatch)
    monkeypatch.setenv("ARENA_DB", str(db))
    shared_during_launch = []
    real_reader = reader._reader

    @contextmanager
    def watching_reader(*args, **kwargs):
        shared_during_launch.append(bool(reader._READING.get()))
        with real_reader(*args, **kwargs) as con:
            yield con

    monkeypatch.setattr(reader, "_reader", watching_reader)
    at = AppTest.from_file("../app.py", default_timeout=120).run()
    shared_during_launch.clear()
    at.switch_page("pages/launch.py").run()
    assert not at.exception and at.title[0].value == "Launch a run"
    assert shared_during_launch and not any(shared_during_launch)
