"""The games page, headless: γ-Bench per-round curves, LLMArena's hint ablation and WiS role tables."""

from __future__ import annotations

import asyncio

import pytest
from streamlit.testing.v1 import AppTest

from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from pages.shared.markdown import plain
from tests.page_run import run_page

pytestmark = pytest.mark.slow

SPEC = {"name": "games", "seed": 4, "repeats": 2, "games": [
    {"game": "guessing_game", "params": {"players": 4, "rounds": 5},
     "lineups": [["bot:equilibrium", "bot:random", "bot:random", "bot:random"], {"all": "bot:random"}]},
    {"game": "tictactoe", "presets": ["default", "no_hint"], "lineups": [["bot:equilibrium", "bot:random"]]},
    {"game": "undercover", "preset": "wis", "params": {"role_seat": 0}, "lineups": [
        ["bot:injector", "bot:obedient", "bot:letters", "bot:obedient", "bot:letters", "bot:obedient"]]},
    {"game": "battle_royale", "params": {"players": 3, "rounds": 4}, "lineups": [{"all": "bot:random"}]},
    {"game": "pirate_game", "lineups": [{"all": "bot:equilibrium"}]},
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
    # a reviewer's finding: the legend named the series by their raw columns (winning_number)
    legend = {trace["name"] for trace in charts_of(at)[0]["data"]}
    assert {"mean", "target", "winning number"} <= legend and not any("_" in name for name in legend)
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
    # a seat counts as a game played in Who is Spy: the name its suite's table gives it, defined under the table
    assert "seats played" in roles.columns and "games" not in roles.columns
    assert any("**seats played**: seats the agent held" in m.value for m in at.markdown)


def test_a_figure_leaves_out_the_fields_naming_a_seat(db, monkeypatch):
    """Battle Royale's shooter and target are seats: their mean over matches means nothing, so the per-round
    figures leave them out (`engine.store.step_fields.seat_fields`)."""
    at = page(db, monkeypatch, game="battle_royale")
    assert not at.exception
    curves = at.dataframe[0].value
    assert {"hit (%)", "players_left"} <= set(curves.columns) and not {"shooter", "target"} & set(curves.columns)


def test_per_round_curves_are_drawn_per_setting_and_legends_say_yes_no(first_run_db, monkeypatch):
    """A new user's pass on the first run: guessing_game's round 1 averaged 10-player twenty-round and 3-player
    one-round games in one curve; the hint legend said True/False beside a table saying yes/no; WiS' role table
    said "games" for what Leaderboards calls "seats played"; shares were drawn 0-1 beside tables in %."""
    import json

    at = page(first_run_db, monkeypatch, game="guessing_game")
    assert not at.exception
    curves = at.dataframe[0].value
    three = "custom: players=3, reading=lenient, retry=feedback, rounds=1"  # runs/quick.yaml's SmolLM2 games
    assert set(curves["setting"]) == {"vanilla", three}
    assert list(curves[curves["setting"] == three]["step"]) == ["1"]
    titles = [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]
    assert any(t.endswith("per-round figures, vanilla") for t in titles), titles
    assert any(t.endswith(f"per-round figures, {three}") for t in titles), titles
    said = " ".join(c.value for c in at.caption)
    assert f"{three}: " in said and "vanilla: " in said
    hints = page(first_run_db, monkeypatch, game="tictactoe")
    spec = json.loads(hints.get("plotly_chart")[0].proto.spec)
    assert {t["name"] for t in spec["data"]} == {"yes", "no"} and spec["layout"]["yaxis"]["tickformat"] == ".0%"
    spy = page(first_run_db, monkeypatch, game="undercover")
    roles = next(df.value for df in spy.dataframe if "role" in df.value.columns)
    assert "seats played" in roles.columns and "games" not in roles.columns


def charts_of(at) -> list[dict]:
    import json

    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def test_battle_royales_charts_name_what_they_draw(db, monkeypatch):
    """Issue 29: Battle Royale's players-left chart said "value" on its axis and had no legend: a chart of one
    series names it on its axis and in the legend; every series takes a colour of the arena's palette."""
    from engine.present.palette import PALETTE

    charts = charts_of(page(db, monkeypatch, game="battle_royale"))
    assert len(charts) == 2  # players left, and the share of shots that hit (a count and a share never share an axis)
    for chart in charts:
        names = [t["name"] for t in chart["data"]]
        assert chart["layout"]["showlegend"] and names and all(names), names
        assert chart["layout"]["yaxis"]["title"]["text"] in {"players_left", "hit (share)"}
        assert {t["line"]["color"] for t in chart["data"]} <= set(PALETTE)


def test_pirates_table_has_no_blank_round_and_its_one_round_is_drawn_as_bars(db, monkeypatch):
    """Issue 29: the Pirate game's proposal step records only the proposer (a seat, hidden), so its row read blank
    beside "2" matches, and the one round of votes was a line chart of a lone dot."""
    at = page(db, monkeypatch, game="pirate_game")
    assert not at.exception
    curves = at.dataframe[0].value
    figures = curves.drop(columns=["setting", "step", "matches"], errors="ignore")
    assert len(curves) and not figures.eq("").all(axis=1).any(), curves
    charts = charts_of(at)
    assert charts and all(t["type"] == "bar" for chart in charts for t in chart["data"]), charts


def test_the_game_picker_offers_the_games_the_chosen_runs_played(db, tmp_path, monkeypatch):
    """A new user's pass: with a run of tictactoe alone chosen, the page opened on guessing_game ("nothing
    recorded for this selection") and offered all the database's games."""
    import shutil

    path = tmp_path / "two_runs.duckdb"
    shutil.copy(db, path)
    only = {"name": "only_tictactoe", "seed": 1, "games": [{"game": "tictactoe",
                                                             "lineups": [["bot:random", "bot:equilibrium"]]}]}
    asyncio.run(run_spec(parse_spec(only), path, progress=False))
    at = page(path, monkeypatch, runs=parse_spec(only).run_id)
    assert not at.exception
    picker = next(s for s in at.selectbox if s.label == "Game")
    assert list(picker.options) == ["tictactoe"] and picker.value == "tictactoe"
    assert len(page(path, monkeypatch).selectbox[0].options) == len(SPEC["games"])


def test_hanabis_chart_is_named_once_and_its_columns_are_defined(tmp_path, monkeypatch):
    """A new user's report: the Hanabi chart read "Hanabi action shares (shares)" and nothing under its table said
    what its columns are, where every other game's figures define theirs. The unit is named only to tell a figure's
    charts apart (a count and a share on two charts); each column has its line under the table."""
    db = tmp_path / "hanabi.duckdb"
    asyncio.run(run_spec(parse_spec({"name": "hanabi", "seed": 1, "games": [
        {"game": "hanabi", "lineups": [["bot:random", "bot:hint_follower"]]}]}), db, progress=False))
    at = page(db, monkeypatch, game="hanabi")
    assert not at.exception
    assert [chart["layout"]["title"]["text"] for chart in charts_of(at)] == ["Hanabi action shares"]
    lines = " ".join(m.value for m in at.markdown)  # under the table, folded: "Column definitions"
    for column in ("play_share (%)", "reveal_share (%)", "discard_share (%)", "actions", "mean_score (0-10)"):
        assert f"**{plain(column)}**: " in lines, column
