"""The first page, headless: runs, matches and per-game wins and mean scores from a real database."""

from __future__ import annotations

import asyncio

from streamlit.testing.v1 import AppTest

from engine.play.runner import run_spec
from engine.play.spec import parse_spec

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
    assert list(runs["name"]) == ["overview"] and runs["matches played"][0] == "4"  # shown as text
    per_agent = {(row.agent, row.wins, row.seats) for df in frames for row in df.itertuples()
                 if "wins" in df.columns}
    # the defector wins both dilemmas; the cooperators win none (the page shows text: no "None", no "nan")
    assert ("bot:equilibrium", "2", "2") in per_agent and ("bot:fixed:cooperate", "0", "4") in per_agent


def test_overview_on_an_empty_database_says_how_to_fill_it(tmp_path, monkeypatch):
    monkeypatch.setenv("ARENA_DB", str(tmp_path / "none.duckdb"))
    at = AppTest.from_file("../pages/overview.py", default_timeout=60).run()
    assert not at.exception
    assert "No matches yet" in at.info[0].value


def test_each_games_score_is_defined_and_the_transcript_link_comes_first(db_path, monkeypatch):
    """guessing_game's mean_score read 100 for an agent that wins 14%: a number no page defined. Every game says
    what its score counts, the page shows it under the game and as the column's help; the matches table opens
    with its transcript link (it sat past the right edge of a 1400 px window)."""
    import json

    from engine.games import all_games
    from engine.games.base import Game

    undefined = [name for name, game in all_games().items() if game.score_meaning == Game.score_meaning]
    assert not undefined, f"games whose score means nothing stated: {undefined}"
    asyncio.run(run_spec(parse_spec(SPEC), db_path, progress=False))
    monkeypatch.setenv("ARENA_DB", str(db_path))
    at = AppTest.from_file("../pages/overview.py", default_timeout=60).run()
    per_game = [df for df in at.dataframe if "mean score" in df.value.columns]
    helps = {json.loads(df.proto.columns)["mean score"]["help"] for df in per_game}
    assert helps == {all_games()["tictactoe"].score_meaning, all_games()["prisoners_dilemma"].score_meaning}
    matches = at.dataframe[-1]
    assert list(matches.value.columns)[0] == "transcript"
    assert json.loads(matches.proto.columns)["transcript"]["pinned"] is True
