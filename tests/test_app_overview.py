"""The first page, headless: runs, matches and per-game wins and mean scores from a real database."""

from __future__ import annotations

import asyncio

from streamlit.testing.v1 import AppTest

from engine.runner import run_spec
from engine.spec import parse_spec

SPEC = {"name": "overview", "seed": 2, "repeats": 2, "games": [
    {"game": "tictactoe", "lineups": [["bot:equilibrium", "bot:random"]]},
    {"game": "prisoners_dilemma", "lineups": [["bot:equilibrium", "bot:fixed:cooperate", "bot:fixed:cooperate"]]},
]}


def test_overview_lists_runs_and_per_game_wins(db_path, monkeypatch):
    asyncio.run(run_spec(parse_spec(SPEC), db_path, progress=False))
    monkeypatch.setenv("ARENA_DB", str(db_path))
    at = AppTest.from_file("../pages/overview.py", default_timeout=60).run()
    assert not at.exception
    frames = [df.value for df in at.dataframe]
    runs = frames[0]
    assert list(runs["name"]) == ["overview"] and runs["n_done"][0] == "4"  # shown as text
    per_agent = {(row.agent, row.wins, row.seats) for df in frames for row in df.itertuples()
                 if "wins" in df.columns}
    # the defector wins both dilemmas; the cooperators win none (the page shows text: no "None", no "nan")
    assert ("bot:equilibrium", "2", "2") in per_agent and ("bot:fixed:cooperate", "0", "4") in per_agent


def test_overview_on_an_empty_database_says_how_to_fill_it(tmp_path, monkeypatch):
    monkeypatch.setenv("ARENA_DB", str(tmp_path / "none.duckdb"))
    at = AppTest.from_file("../pages/overview.py", default_timeout=60).run()
    assert not at.exception
    assert "No matches yet" in at.info[0].value
