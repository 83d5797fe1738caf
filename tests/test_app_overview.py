"""The first page, headless: runs, matches and per-game wins and mean scores from a real database."""

from __future__ import annotations

import asyncio

import pytest
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


@pytest.mark.parametrize(("path", "title", "notices"), [
    ("leaderboards", "Leaderboards", []),  # the menu's plural: its page, no notice
    ("Transcript", "Transcripts", []),  # a letter short, another case
    ("nosuchpage", "Game Arena for LLMs", ["No page 'nosuchpage': showing Overview."]),
])
def test_a_mistyped_page_path_opens_the_page_it_means_or_says_once_that_it_is_not_here(tmp_path, monkeypatch, path,
                                                                                      title, notices):
    """/leaderboards showed Streamlit's "Page not found" box on top of the app's own notice: two messages for one
    thing, and the plural the menu shows did not reach its page."""
    from streamlit.commands import navigation
    from streamlit.testing.v1 import app_test

    from pages.shared.markdown import plain
    from tests.page_run import ServedNavigation

    class OpenedAt(ServedNavigation):  # the browser's first request: a page named by the URL's path, no hash yet
        asked = False

        def set_script_intent(self, page_script_hash, page_name):
            first = not OpenedAt.asked  # the script runner's, before app.py runs (app.py's own passes as it is)
            OpenedAt.asked = True
            super().set_script_intent(page_script_hash, path if first else page_name)

    not_found = []
    monkeypatch.setattr(app_test, "PagesManager", OpenedAt)
    monkeypatch.setattr(navigation, "send_page_not_found", lambda ctx: not_found.append(ctx))
    monkeypatch.setenv("ARENA_DB", str(tmp_path / "none.duckdb"))
    at = AppTest.from_file("../app.py", default_timeout=60).run()
    assert not at.exception and not not_found  # Streamlit's own box never sent
    assert at.title[0].value == title
    said = [e.value for kind in ("markdown", "warning", "info", "caption") for e in at.get(kind)]
    assert [s for s in said if s.startswith("No page")] == [plain(n) for n in notices]  # as the page escapes it
