"""The games page, headless: γ-Bench per-round curves, LLMArena's hint ablation and WiS role tables."""

from __future__ import annotations

import asyncio

import pytest
from streamlit.testing.v1 import AppTest

from engine.runner import run_spec
from engine.spec import parse_spec
from tests.page_run import run_page

SPEC = {"name": "games", "seed": 4, "repeats": 2, "games": [
    {"game": "guessing_game", "params": {"players": 4, "rounds": 5},
     "lineups": [["bot:equilibrium", "bot:random", "bot:random", "bot:random"], {"all": "bot:random"}]},
    {"game": "tictactoe", "presets": ["default", "no_hint"], "lineups": [["bot:equilibrium", "bot:random"]]},
    {"game": "undercover", "preset": "wis", "params": {"role_seat": 0}, "lineups": [
        ["bot:injector", "bot:obedient", "bot:letters", "bot:obedient", "bot:letters", "bot:obedient"]]},
]}


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("games") / "results.duckdb"
    asyncio.run(run_spec(parse_spec(SPEC), path, progress=False))
    return path


def page(db, monkeypatch, **params) -> AppTest:
    return run_page("games", db, monkeypatch, **params)


def test_guessing_game_curves_for_the_chosen_agent(db, monkeypatch):
    at = page(db, monkeypatch, game="guessing_game", agent="bot:equilibrium")
    assert not at.exception
    curves = at.dataframe[0].value
    assert list(curves["step"]) == ["1", "2", "3", "4", "5"] and (curves["matches"] == "2").all()  # its 2 matches
    assert {"mean", "target", "winning_number"} <= set(curves.columns)
    assert len(at.get("plotly_chart")) == 1
    every = page(db, monkeypatch, game="guessing_game").dataframe[0].value
    assert (every["matches"] == "4").all()


def test_tictactoe_shows_the_hint_ablation(db, monkeypatch):
    at = page(db, monkeypatch, game="tictactoe")
    assert not at.exception
    ablation = at.dataframe[0].value
    assert set(ablation["hint"]) == {"yes", "no"} and set(ablation["agent"]) == {"bot:equilibrium", "bot:random"}
    assert len(at.get("plotly_chart")) == 1


def test_who_is_spy_role_table(db, monkeypatch):
    at = page(db, monkeypatch, game="undercover")
    assert not at.exception
    roles = at.dataframe[0].value
    assert set(roles["role"]) == {"spy", "civilian", "all"} and "bot:injector" in set(roles["agent"])
