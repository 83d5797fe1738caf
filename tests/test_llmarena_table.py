"""LLMArena's table: normalized TrueSkill per game, normalized average reward for Bid and Hanabi, the average."""

from __future__ import annotations

import pandas as pd
import pytest

from engine.cli.main import main
from engine.papers.llmarena.leaderboard import leaderboard
from engine.score.ratings import trueskill_table
from tests.test_ratings import write_outcomes


@pytest.fixture
def arena_db(tmp_path):
    db = tmp_path / "arena.duckdb"
    upset = [("weak", 1, 1.0), ("strong", 2, 0.0)]
    write_outcomes(db, "tictactoe", [[("strong", 1, 1.0), ("weak", 2, 0.0)]] * 6 + [upset])
    write_outcomes(db, "bid", [[("strong", 1, 4.0), ("weak", 2, 0.0)], [("weak", 1, 1.0), ("strong", 2, 0.0)]])
    write_outcomes(db, "hanabi", [[("strong", 1, 6.0), ("strong", 1, 6.0)], [("weak", 1, 3.0), ("weak", 1, 3.0)]])
    return db


def test_normalized_scores_and_average(arena_db):
    table = leaderboard(arena_db).set_index("agent")
    assert list(table.columns) == ["tictactoe", "bid", "hanabi", "average", "games", "bid_reward", "hanabi_reward"]
    mu = trueskill_table(arena_db, "tictactoe").set_index("agent")["mu"]
    assert table.loc["weak", "tictactoe"] == pytest.approx(mu["weak"] / mu["strong"] * 100)
    assert table.loc["strong", "tictactoe"] == pytest.approx(100)
    assert table.loc["strong", "bid_reward"] == pytest.approx(2.0) and table.loc["weak", "bid"] == pytest.approx(25)
    assert table.loc["weak", "hanabi_reward"] == pytest.approx(3.0) and table.loc["weak", "hanabi"] == pytest.approx(50)
    expected = (table.loc["weak", "tictactoe"] + 25 + 50) / 3
    assert table.loc["weak", "average"] == pytest.approx(expected)
    assert list(table.index) == ["strong", "weak"] and (table["games"] == 3).all()


def test_absent_games_are_left_out_and_cli_prints_the_table(arena_db, tmp_path, capsys):
    assert leaderboard(tmp_path / "none.duckdb").empty
    assert main(["scores", "--suite", "llmarena", "--db", str(arena_db), "--format", "csv"]) == 0
    printed = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out))
    assert "connect_four" not in printed.columns and "undercover" not in printed.columns
    assert printed.loc[printed["agent"] == "strong", "average"].item() == pytest.approx(100)


def test_the_table_follows_the_filters(arena_db):
    """The run, preset and date filters select the matches of every column (TrueSkill and rewards alike)."""
    from datetime import timedelta

    from engine.store.selection import Selection
    from tests.test_ratings import START

    assert leaderboard(arena_db, Selection(run_ids=("synthetic",))).equals(leaderboard(arena_db))
    assert leaderboard(arena_db, Selection(run_ids=("another",))).empty
    assert leaderboard(arena_db, Selection(date_to=(START - timedelta(days=1)).date())).empty
    tictactoe_only = leaderboard(arena_db, Selection(games=("tictactoe",))).set_index("agent")
    assert list(tictactoe_only.columns) == ["tictactoe", "average", "games"] and (tictactoe_only["games"] == 1).all()


def _undercover(wins: int, losses: int, hero: str) -> list[list[tuple]]:
    """Undercover matches of `hero` as the undercover against four civilians of `civ`: `wins` won, `losses` lost."""
    won = [(hero, 1, 1.0, "undercover")] + [("civ", 2, 0.0, "civilian")] * 4
    lost = [(hero, 2, 0.0, "undercover")] + [("civ", 1, 1.0, "civilian")] * 4
    return [won] * wins + [lost] * losses


def test_undercover_column_is_the_undercovers_win_rate_over_llmarena_rules_only(tmp_path):
    db = tmp_path / "under.duckdb"
    write_outcomes(db, "undercover", _undercover(3, 1, "a") + _undercover(1, 3, "b"), {"rules": "llmarena"})
    alone = leaderboard(db).set_index("agent")
    # §3.1: the win rate as the undercover (3/4 and 1/4), normalized to the best; civ never played it
    assert alone.loc["a", "undercover_win_rate"] == 0.75 and alone.loc["b", "undercover_win_rate"] == 0.25
    assert alone.loc["a", "undercover"] == pytest.approx(100) and alone.loc["b", "undercover"] == pytest.approx(100 / 3)
    assert "civ" not in alone.index
    # MAgIC's and Who-is-Spy's Undercover games in the same database change nothing
    write_outcomes(db, "undercover", _undercover(4, 0, "b") + _undercover(4, 0, "civ"), {"rules": "magic"}, tag="m")
    write_outcomes(db, "undercover", _undercover(0, 4, "a"), {"rules": "wis", "players": 6}, tag="w")
    pd.testing.assert_frame_equal(leaderboard(db).set_index("agent"), alone)
