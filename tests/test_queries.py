"""The dashboard's queries on a small played database: counts against the seats table, Wilson bounds,
γ-Bench's table with its published rows, filters, per-round curves and the robustness rows."""

from __future__ import annotations

import asyncio
from datetime import date, timedelta

import pytest

from engine import store
from engine.papers import headline
from engine.papers.gamabench import scores as gamabench
from engine.papers.gamabench.importer import import_dir
from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.present import queries
from engine.store.selection import Selection
from tests.test_gamabench_import import RAW

pytestmark = pytest.mark.slow

SPEC = {"name": "q", "seed": 3, "repeats": 3, "games": [
    {"game": "tictactoe", "lineups": [["bot:equilibrium", "bot:random"]]},
    {"game": "guessing_game", "params": {"players": 4, "rounds": 3}, "lineups": [{"all": "bot:random"}]},
    {"game": "guessing_game", "lineups": [{"challenger": "bot:equilibrium", "others": "bot:random"}]},
]}


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("queries") / "results.duckdb"
    asyncio.run(run_spec(parse_spec(SPEC), path, progress=False))
    import_dir(RAW / "guessing_game", path)
    return path


def test_win_rates_are_seats_won_over_seats_held_with_self_play_left_out(db):
    """One definition on every page (engine/papers/headline.py): a seat is a trial, a match where every seat is the
    same agent is no trial at all (bot:random's four-seat self-play, GAMA-Bench's all-gpt records)."""
    table = headline.agent_figures(db, by_game=True).set_index(["game", "agent"])
    seats = store.query(db, """SELECT m.game, coalesce(s.label, s.agent) AS agent, s.match_id, s.won
                               FROM seats s JOIN matches m USING (match_id) WHERE m.status = 'ok'""")
    contested = seats[seats["match_id"].map(seats.groupby("match_id")["agent"].nunique()) > 1]
    assert len(contested) < len(seats)  # there is self-play to leave out
    assert set(table.index) == set(contested.groupby(["game", "agent"]).groups)
    for (game, agent), rows in contested.groupby(["game", "agent"]):
        assert table.loc[(game, agent), "seats"] == len(rows)
        assert table.loc[(game, agent), "wins"] == rows["won"].sum()
        assert table.loc[(game, agent), "matches"] == rows["match_id"].nunique()
    assert (table["win_lo"] <= table["win_rate"]).all() and (table["win_rate"] <= table["win_hi"]).all()
    overall = headline.agent_figures(db).set_index("agent")
    assert overall.loc["bot:equilibrium", "matches"] == 33  # 3 tictactoe + 30 guessing games (10 seats x 3)
    assert overall.loc["bot:random", "seats"] == 3 + 30 * 9  # its self-play games not counted


def test_gamabench_table_marks_published_rows_and_settings(db):
    table = gamabench.leaderboard(db)
    published = table[table["source"] == "published"]
    assert list(published["model"]) == ["gpt-3.5-turbo-0125"]
    assert published["guessing_game"].iloc[0] == pytest.approx(63.4, abs=0.05)  # the repository's 5-run mean
    assert set(table["setting"]) == {"vanilla", "custom: players=4, rounds=3"}  # a row per setting value


def test_filters_narrow_by_run_game_preset_and_date(db):
    runs = queries.filter_options(db)
    ours = runs[runs["source"] == "engine"]["run_id"].iloc[0]
    assert not headline.agent_figures(db, Selection(run_ids=(ours,))).empty
    assert set(headline.agent_figures(db, Selection(games=("tictactoe",)), by_game=True)["game"]) == {"tictactoe"}
    assert headline.agent_figures(db, Selection(presets=("no_such",))).empty
    tomorrow = date.today() + timedelta(days=2)
    assert headline.agent_figures(db, Selection(date_from=tomorrow)).empty


def test_round_curves_average_each_rounds_record(db):
    mine = Selection(games=("guessing_game",), presets=("default",), agents=("bot:equilibrium",))
    curves = gamabench.round_curves(db, mine)
    assert list(curves["step"]) == list(range(1, 21)) and (curves["matches"] == 30).all()  # 10 seats x 3 repeats
    # each record's target is 2/3 of its mean
    assert list(curves["target"]) == pytest.approx(list(curves["mean"] * 2 / 3))
    assert gamabench.round_curves(db, Selection(games=("guessing_game",), agents=("nobody",))).empty
    with pytest.raises(ValueError, match="one game"):
        gamabench.round_curves(db, Selection())


def test_round_curves_number_the_steps_that_draw_from_1(tmp_path):
    """The Pirate Game records a proposal (a plan, names: no number) and then its vote: a one-round game showed its
    only round as "round 2" (a new user's report)."""
    db = tmp_path / "pirates.duckdb"
    spec = {"name": "pirates", "seed": 1, "repeats": 2, "games": [
        {"game": "pirate_game", "lineups": [{"all": "bot:random"}]}]}
    asyncio.run(run_spec(parse_spec(spec), db, progress=False))
    curves = gamabench.round_curves(db, Selection(games=("pirate_game",)))
    # the proposal records a plan and the proposer's seat (who, not how much: no figure); its vote is round 1
    assert list(curves["step"]) == [1] and "proposer" not in curves.columns
    assert {"accepts", "passed"} <= set(curves.columns)
    figures = curves.drop(columns=["setting", "step", "matches"])
    assert figures.notna().all(axis=None)


def test_robustness_rows_use_the_match_score_when_the_agent_holds_every_seat(db):
    rows = queries.robustness_scores(db, "gpt-3.5-turbo-0125")
    stored = store.query(db, """SELECT value FROM metrics x JOIN matches m USING (match_id) JOIN runs r USING (run_id)
                                WHERE r.source LIKE 'import:%' AND x.seat IS NULL AND x.name = 'gamabench_score'""")
    assert sorted(rows["score"]) == pytest.approx(sorted(stored["value"]))
    assert set(rows["temperature"]) == {1.0} and len(rows) == 5
    tables = queries.robustness_tables(rows)
    assert list(tables) == [("repeat", "guessing_game")]  # the only factor that varies
    table = tables[("repeat", "guessing_game")]
    assert list(table["level"]) == [0, 1, 2, 3, 4] and list(table["n"]) == [1] * 5
    assert list(table["mean"]) == pytest.approx(list(rows.sort_values("repeat")["score"]))


def test_the_dashboard_bench_fills_a_schema_true_database_and_runs_every_page_query(tmp_path):
    import importlib.util
    from pathlib import Path

    script = Path(__file__).parent.parent / "bench" / "dashboard.py"
    spec = importlib.util.spec_from_file_location("bench_dashboard", script)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    path = tmp_path / "bench.duckdb"
    bench.fill(path, 320, 10)
    counts = store.query(path, "SELECT (SELECT count(*) FROM matches) m, (SELECT count(*) FROM turns) t").iloc[0]
    assert (counts.m, counts.t) == (320, 3200)
    results = {name: fn() for calls in bench.page_queries(path).values() for name, fn in calls}
    settings = store.query(path, "SELECT DISTINCT label, temperature, prompt_version, strategy FROM seats")
    assert len(results["agent_figures one run"]) <= len(settings)  # a model at each setting is an agent
    assert len(results["gamabench headline"]) > 0
    assert set(results["gamabench leaderboard"]["source"]) == {"ours", "published"}
    assert {"step", "matches", "mean", "target"} <= set(results["rounds_guessing_game"].columns)
