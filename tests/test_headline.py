"""engine/papers/headline.py: each suite ranks by the number its title states, one rule decides who is ranked, and an
interval that cannot be computed says why instead of printing as a precise number."""

from __future__ import annotations

import pandas as pd
import pytest

from engine import store
from engine.papers import headline
from engine.papers.registry import get_suite
from engine.store.selection import ALL
from tests.test_ratings import write_outcomes


def test_the_per_game_ratings_use_the_headline_rule(tmp_path):
    """Bargain of the first run: bot:fair had 6 matches of one kind of outcome and printed 1389.17 [1389.17,
    1389.17], ranked 1; now it is provisional, unranked, and says why it has no interval."""
    db = tmp_path / "few.duckdb"
    write_outcomes(db, "bargain", [[("fair", 1, 7.0), ("accept", 2, 3.0)]] * 6)
    rated = headline.ratings(db, ALL.of_game("bargain")).set_index("agent")
    assert rated["provisional"].all() and rated["rank"].isna().all()  # 6 < MIN_MATCHES
    assert rated.loc["fair", "note"] == "no finite rating: won every comparison"
    assert rated.loc["accept", "note"] == "no finite rating: lost every comparison"


def test_an_interval_of_zero_width_is_not_ranked_and_says_why(tmp_path):
    db = tmp_path / "alike.duckdb"
    draw = [("x", 1, 0.5, "X"), ("y", 1, 0.5, "O")]
    write_outcomes(db, "tictactoe", [draw] * (headline.MIN_MATCHES + 2))
    rated = headline.ratings(db, ALL).set_index("agent")
    assert not rated["provisional"].any()
    assert (rated["note"] == "no interval: every match alike").all() and rated["rank"].isna().all()


def test_enough_matches_and_a_real_interval_are_ranked(tmp_path):
    db = tmp_path / "enough.duckdb"
    n = headline.MIN_MATCHES + 2
    write_outcomes(db, "tictactoe", [[("x", 1, 1.0, "X"), ("y", 2, 0.0, "O")]] * (n - 4)
                   + [[("x", 2, 0.0, "X"), ("y", 1, 1.0, "O")]] * 4)
    rated = headline.ratings(db, ALL).set_index("agent")
    assert (rated["note"] == "").all() and list(rated["rank"]) == [1, 1]  # overlapping intervals share rank 1
    assert (rated["value_hi"] > rated["value_lo"]).all()


def test_an_interval_wholly_below_another_never_shares_rank_1():
    lo, hi = pd.Series([0.74, 0.67, 0.0, 0.2]), pd.Series([0.90, 0.84, 0.15, 0.8])
    ranks = headline.ranks(lo, hi, pd.Series([True] * 4))
    assert list(ranks) == [1, 1, 4, 1]  # 0.00-0.15 lies wholly below the three others


def test_magic_ranks_by_the_win_rate_it_shows(tmp_path):
    """MAgIC's headline ranked by Bradley-Terry intervals while it showed win rates: five agents shared rank 1, one
    of them winning 0.00. It ranks by the win rate now, from the win rate's own Wilson interval."""
    db = tmp_path / "magic.duckdb"
    n = headline.MIN_MATCHES + 2
    write_outcomes(db, "cost_sharing", [[("fair", 1, 60.0), ("selfish", 2, 0.0)]] * n)
    table = headline.headline(db, "magic").set_index("agent")
    assert get_suite("magic").headline.by == "win_rate"
    assert (table["value"] == table["win_rate"]).all() and (table["value_lo"] == table["win_lo"]).all()
    assert table.loc["fair", "rank"] == 1 and table.loc["selfish", "rank"] == 2


def test_gamabench_ranks_by_its_0_100_score(tmp_path):
    """γ-Bench's title says 0-100, and its headline showed Bradley-Terry ratings near 1000."""
    db = tmp_path / "gama.duckdb"
    n = headline.MIN_MATCHES + 2
    write_outcomes(db, "guessing_game", [[("a", 1, 0.0), ("b", 2, 0.0)]] * n)
    scores = [(f"guessing_game-{i}", seat, "gamabench_score", value) for i in range(n)
              for seat, value in ((0, 80.0 + i % 3), (1, 40.0 + i % 5))]
    with store.connect(db) as con:
        con.executemany("INSERT INTO metrics (match_id, seat, name, value) VALUES (?, ?, ?, ?)", scores)
    table = headline.headline(db, "gamabench").set_index("agent")
    assert get_suite("gamabench").headline.title == "γ-Bench score 0-100"
    assert table["value"].between(0, 100).all()
    assert table.loc["a", "value"] == pytest.approx(sum(80.0 + i % 3 for i in range(n)) / n)
    assert table.loc["a", "value_lo"] < table.loc["a", "value"] < table.loc["a", "value_hi"]
    assert table.loc["a", "rank"] == 1 and table.loc["b", "rank"] == 2


def test_the_games_pages_win_rates_are_the_headlines(tmp_path):
    """Games showed LLMArena's figures with a win rate of their own (self-play counted): bot:random's TicTacToe
    win rate there differed from Leaderboards and Overview. Every win rate is seats won / seats held over
    contested matches."""
    from engine.papers.llmarena.analyses import hint_ablation
    from engine.papers.llmarena.negotiation import bargain_table

    db = tmp_path / "rates.duckdb"
    write_outcomes(db, "tictactoe", [[("random", 1, 1.0, "X"), ("random", 2, 0.0, "O")]] * 3
                   + [[("random", 2, 0.0, "X"), ("equilibrium", 1, 1.0, "O")]] * 2)
    write_outcomes(db, "bargain", [[("fair", 1, 5.0), ("fair", 2, 3.0)]] * 3
                   + [[("fair", 1, 7.0), ("greedy", 2, 0.0)], [("fair", 2, 2.0), ("greedy", 1, 8.0)]])
    for game, figures in (("tictactoe", hint_ablation(db)), ("bargain", bargain_table(db))):
        one = headline.agent_figures(db, ALL.of_game(game)).set_index("agent")["win_rate"]
        theirs = figures.set_index("agent")["win_rate"]
        assert theirs.to_dict() == pytest.approx(one.to_dict()), game
    assert headline.agent_figures(db, ALL.of_game("tictactoe")).set_index("agent").loc["random", "win_rate"] == 0


def test_an_agent_scoring_the_same_in_every_match_is_ranked_on_that_score(tmp_path):
    """bot:equilibrium scores 100 in every γ-Bench match: its mean is exact, [100, 100], and it ranks first; it was
    left unranked ('every match alike') below a model scoring 69.5 [56.6 to 82.5]."""
    db = tmp_path / "constant.duckdb"
    n = headline.MIN_MATCHES + 2
    write_outcomes(db, "guessing_game", [[("best", 1, 0.0), ("model", 2, 0.0)]] * n)
    scores = [(f"guessing_game-{i}", seat, "gamabench_score", value) for i in range(n)
              for seat, value in ((0, 100.0), (1, 55.0 + 3 * (i % 7)))]
    with store.connect(db) as con:
        con.executemany("INSERT INTO metrics (match_id, seat, name, value) VALUES (?, ?, ?, ?)", scores)
    table = headline.headline(db, "gamabench").set_index("agent")
    assert table.loc["best", "value_lo"] == table.loc["best", "value_hi"] == 100.0
    assert table.loc["best", "note"] == "" and table.loc["best", "rank"] == 1 and table.loc["model", "rank"] == 2


def test_a_scores_interval_stays_on_its_scale(first_run_db, monkeypatch):
    """A mean of a few 0-100 scores far apart has a t interval past the scale (local/smollm2 once read "79.8 [46.8 to
    112.9]"): it stops at the scale's ends."""
    table = headline.headline(first_run_db, "gamabench")
    assert table["value_lo"].ge(0).all() and table["value_hi"].le(100).all()
    matches = {"wide": [100.0, 90.0, 70.0], "low": [0.0, 10.0, 30.0]}
    summed = pd.DataFrame([{"agent": agent, "game": "guessing_game", "count": len(scores), "total": sum(scores),
                            "squares": sum(x * x for x in scores)} for agent, scores in matches.items()])
    monkeypatch.setattr(headline.store, "query", lambda db, sql, params=None: summed.copy())  # the matches' sums
    scored = headline.scores(first_run_db, ALL, "score", bounds=(0, 100)).set_index("agent")
    assert scored.loc["wide", "value_hi"] == 100 and 0 < scored.loc["wide", "value_lo"] < scored.loc["wide", "value"]
    assert scored.loc["low", "value_lo"] == 0 and scored.loc["low", "value_hi"] < 100


def test_coverage_of_a_database_not_made_yet_is_empty(tmp_path):
    assert headline.coverage(tmp_path / "absent.duckdb", "gamabench") == ([], [])


def test_a_game_without_a_winner_counts_in_no_win_rate(tmp_path):
    """A colleague's finding: an agent that played only Hanabi (cooperative: no seat wins) showed 0.0% in
    LLMArena's headline win rate, and an agent's Hanabi matches counted as lost beside its TicTacToe wins. The
    headline's win rate is over the games that declare a winner: none for the first, TicTacToe's for the other."""
    import asyncio

    from engine.play.runner import run_spec
    from engine.play.spec import parse_spec

    db = tmp_path / "hanabi.duckdb"
    asyncio.run(run_spec(parse_spec({"name": "mixed", "seed": 5, "repeats": 3, "games": [
        {"game": "hanabi", "lineups": [["bot:random", "bot:hint_follower"]]},
        {"game": "tictactoe", "lineups": [["bot:equilibrium", "bot:random"], ["bot:random", "bot:equilibrium"]]},
    ]}), db, progress=False))
    board = headline.headline(db, "llmarena").set_index("agent")
    tictactoe = headline.agent_figures(db, ALL.of_game("tictactoe")).set_index("agent")
    assert pd.isna(board.loc["bot:hint_follower", "win_rate"])  # it was 0.0
    assert board.loc["bot:random", "win_rate"] == pytest.approx(tictactoe.loc["bot:random", "win_rate"])
    assert board.loc["bot:random", "matches"] == 9  # its Hanabi matches still count as played


def test_an_agent_filter_that_picks_no_match_of_a_suite_gives_its_empty_tables(tmp_path):
    """An agent filter is answered from the summary rows of the matches it picks (a temporary table, from the log):
    for an agent who played none of a suite's games the suite's headline and table are empty. It raised 'Table
    with name selected_agent_summary_... does not exist', since no part of no match made the table."""
    import asyncio

    from engine.papers.registry import all_suites
    from engine.play.runner import run_spec
    from engine.play.spec import parse_spec
    from engine.store.selection import Selection

    db = tmp_path / "bots.duckdb"
    spec = parse_spec({"name": "tictactoe only", "seed": 1, "repeats": 2,
                       "games": [{"game": "tictactoe", "lineups": [["bot:random", "bot:equilibrium"]]}]})
    assert asyncio.run(run_spec(spec, db, progress=False)).errors == 0
    assert store.summaries_in_step(db)
    only = Selection(agents=("bot:random",))
    assert set(headline.headline(db, "llmarena", only)["agent"]) == {"bot:random", "bot:equilibrium"}
    for suite in set(all_suites()) - {"llmarena"}:
        assert headline.headline(db, suite, only).empty, suite
        assert get_suite(suite).leaderboard(db, only).empty, suite
