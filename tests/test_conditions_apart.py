"""Two conditions are never one row: a γ-Bench setting is named by every parameter it changes (one naming function,
engine.games.settings.setting_label, on Leaderboards' γ-Bench table as on Robustness), and a model played at two
max_tokens is two agents on every table and in `scores`."""

from __future__ import annotations

import asyncio
import io

import pandas as pd
import pytest

from engine import store
from engine.cli.main import main
from engine.games.settings import setting_labels
from engine.papers import headline
from engine.papers.gamabench import scores as gamabench
from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.testing import StubReply, StubServer
from tests.page_run import run_page

SETTINGS = {"name": "settings", "seed": 4, "games": [
    {"game": "guessing_game", "params": {"players": 3, "rounds": 1}, "repeats": 5, "lineups": [{"all": "bot:random"}]},
    {"game": "guessing_game", "params": {"players": 3, "rounds": 2}, "repeats": 4, "lineups": [{"all": "bot:random"}]},
]}


@pytest.fixture(scope="module")
def settings_db(tmp_path_factory):
    path = tmp_path_factory.mktemp("settings") / "results.duckdb"
    asyncio.run(run_spec(parse_spec(SETTINGS), path, progress=False))
    return path


def test_two_settings_of_one_game_are_two_rows_named_as_every_page_names_them(settings_db, monkeypatch):
    table = gamabench.leaderboard(settings_db)
    rounds_1, rounds_2 = "custom: players=3, rounds=1", "custom: players=3, rounds=2"
    assert table.set_index("setting")["matches"].to_dict() == {rounds_1: 5, rounds_2: 4}  # was one "custom" row of 9
    matches = store.query(settings_db, "SELECT game, preset, params::VARCHAR AS params FROM matches")
    assert set(table["setting"]) == set(setting_labels(matches))  # Robustness' names
    at = run_page("leaderboard", settings_db, monkeypatch)
    assert not at.exception
    shown = next(df.value for df in at.dataframe if "guessing_game" in df.value.columns)
    assert sorted(shown["setting"]) == [rounds_1, rounds_2]


def guess(request: dict) -> StubReply:
    return StubReply('{"chosen_number": 10}')


@pytest.fixture(scope="module")
def tokens_db(tmp_path_factory):
    """One model at two max_tokens, in the same matches: nothing else tells the two seats apart."""
    path = tmp_path_factory.mktemp("max_tokens") / "results.duckdb"
    with StubServer(guess) as stub:
        seat = {"agent": "openai/stub-model", "api_base": stub.url, "temperature": 0.0}
        spec = {"name": "tokens", "seed": 1, "repeats": 3, "games": [
            {"game": "guessing_game", "params": {"players": 2, "rounds": 1},
             "lineups": [[seat | {"max_tokens": 64}, seat | {"max_tokens": 128}]]}]}
        asyncio.run(run_spec(parse_spec(spec), path, progress=False))
    return path


def test_a_model_at_two_max_tokens_is_two_agents_everywhere(tokens_db, capsys):
    two = {f"openai/stub-model (t=0.0, max_tokens={cap})" for cap in (64, 128)}
    assert set(headline.agent_figures(tokens_db)["agent"]) == two  # contested: two agents at the table
    assert set(headline.headline(tokens_db, "gamabench")["agent"]) == two
    assert main(["scores", "--suite", "gamabench", "--db", str(tokens_db), "--format", "csv"]) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert set(table["model"]) == two and len(table) == 2


def test_robustness_shows_the_two_max_tokens_apart(tokens_db, monkeypatch):
    at = run_page("robustness", tokens_db, monkeypatch, agent="openai/stub-model")
    assert not at.exception
    played = next(df.value for df in at.dataframe if "condition" in df.value.columns)
    assert len(played) == 2 and all(played["scores"] == "3")
    assert sorted(c.split(" · ")[-1] for c in played["condition"]) == ["max_tokens=128", "max_tokens=64"]
