"""A versus B (engine/score/compare.py, `python -m engine compare`) and the headline command, on bots whose order
is known by construction: TicTacToe's minimax (`bot:equilibrium`) never loses, so against `bot:random` it wins or
draws every match, and against a common opponent it scores more than `bot:random` on the same seeds."""

from __future__ import annotations

import asyncio
import io
import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from engine import store
from engine.cli.main import main
from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.present.numbers import on_one_scale
from engine.present.suite_tables import versus_view
from engine.score import compare

EQ, RANDOM, OPPONENT = "bot:equilibrium", "bot:random", "opponent · bot:random"  # a label, before the agent it names
REPEATS = 12
SPEC = {"name": "versus", "seed": 0, "repeats": REPEATS,
        "agents": {"opponent": {"agent": "bot:random", "label": "opponent"}},
        "games": [
            {"game": "tictactoe", "lineups": [[EQ, RANDOM], [RANDOM, EQ], [EQ, "opponent"], [RANDOM, "opponent"]]},
            {"game": "guessing_game", "params": {"players": 3}, "lineups": [
                [EQ, "opponent", "opponent"], [RANDOM, "opponent", "opponent"], [EQ, RANDOM, "opponent"]]},
        ]}


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("versus") / "results.duckdb"
    asyncio.run(run_spec(parse_spec(SPEC), path, progress=False))
    return path


def row(table: pd.DataFrame, game: str) -> pd.Series:
    return table.set_index("game").loc[game]


def test_the_equilibrium_bot_beats_random_head_to_head_and_scores_above_it_on_the_same_seeds(db):
    table = compare.compare(db, EQ, RANDOM)
    assert list(table["game"]) == ["guessing_game", "tictactoe", compare.OVERALL]
    tic = row(table, "tictactoe")
    met = store.rows(db, """
        SELECT count(*) FROM matches m WHERE game = 'tictactoe'
        AND m.match_id IN (SELECT match_id FROM seats WHERE coalesce(label, agent) = 'bot:equilibrium')
        AND m.match_id IN (SELECT match_id FROM seats WHERE coalesce(label, agent) = 'bot:random')""")
    assert tic["matches"] == met[0][0] == 2 * REPEATS  # both lineups, every seed
    assert tic["losses"] == 0 and tic["wins"] + tic["draws"] == tic["matches"]  # minimax never loses
    assert tic["win_share"] == (tic["wins"] + tic["draws"] / 2) / tic["matches"]
    assert 0.5 < tic["win_lo"] < tic["win_share"] < tic["win_hi"] <= 1
    assert tic["pairs"] == REPEATS and tic["diff"] > 0 and tic["diff_lo"] < tic["diff"] < tic["diff_hi"]
    overall = row(table, compare.OVERALL)
    assert overall["matches"] == table["matches"].iloc[:-1].sum() and overall["pairs"] == table["pairs"].iloc[:-1].sum()


def test_the_pairs_are_the_same_seed_against_the_same_opponent_and_the_test_is_scipys(db):
    """The TicTacToe pairs, found again by SQL: A's seat-0 score against `opponent` and B's, seed by seed; the paired
    t-test is scipy's on them, Holm statsmodels' over the games' p."""
    mine = store.query(db, """
        SELECT m.seed, s.agent, s.score FROM matches m JOIN seats s USING (match_id)
        WHERE m.game = 'tictactoe' AND s.seat = 0
        AND m.match_id IN (SELECT match_id FROM seats WHERE label = 'opponent')
        ORDER BY m.seed""").pivot(index="seed", columns="agent", values="score")
    assert len(mine) == REPEATS and mine[EQ].mean() > mine[RANDOM].mean()
    table = compare.compare(db, EQ, RANDOM)
    tic = row(table, "tictactoe")
    test = stats.ttest_rel(mine[EQ], mine[RANDOM])
    assert tic["diff"] == pytest.approx((mine[EQ] - mine[RANDOM]).mean())
    assert tic["p"] == pytest.approx(test.pvalue)
    assert (tic["diff_lo"], tic["diff_hi"]) == pytest.approx(tuple(test.confidence_interval(0.95)))
    games = table.iloc[:-1]
    np.testing.assert_allclose(games["p_holm"], multipletests(games["p"], method="holm")[1])
    assert np.isnan(row(table, compare.OVERALL)["p_holm"])  # the pooled row is no member of the family


def test_swapping_a_and_b_mirrors_every_figure(db):
    forward, backward = (compare.compare(db, *pair).set_index("game") for pair in ((EQ, RANDOM), (RANDOM, EQ)))
    assert (forward["wins"] == backward["losses"]).all() and (forward["draws"] == backward["draws"]).all()
    np.testing.assert_allclose(forward["win_share"], 1 - backward["win_share"])
    np.testing.assert_allclose(forward["diff"], -backward["diff"])
    np.testing.assert_allclose(forward["p"], backward["p"])


def test_the_matrices_hold_each_pairs_share_and_count_mirrored(db):
    shares, counts = compare.matrices(db, order=(RANDOM, EQ))
    assert list(shares["agent"]) == [RANDOM, EQ, OPPONENT] == list(shares.columns[1:])  # the order asked, then the rest
    shares, counts = shares.set_index("agent"), counts.set_index("agent")
    versus = compare.compare(db, EQ, RANDOM)
    assert counts.loc[EQ, RANDOM] == counts.loc[RANDOM, EQ] == row(versus, compare.OVERALL)["matches"]
    assert shares.loc[EQ, RANDOM] == pytest.approx(row(versus, compare.OVERALL)["win_share"])
    assert shares.loc[EQ, RANDOM] + shares.loc[RANDOM, EQ] == pytest.approx(1)
    assert np.isnan(shares.loc[EQ, EQ]) and counts.loc[EQ, EQ] == 0  # self-play is no battle


def cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_commands_csv_and_json_parse_to_the_functions_numbers(db, capsys):
    expected = on_one_scale(compare.compare(db, EQ, RANDOM))
    code, out, _ = cli(capsys, "compare", EQ, RANDOM, "--db", str(db), "--format", "csv")
    assert code == 0
    pd.testing.assert_frame_equal(pd.read_csv(io.StringIO(out)), expected, check_dtype=False, rtol=1e-5)
    code, out, _ = cli(capsys, "compare", EQ, RANDOM, "--db", str(db), "--format", "json")
    assert code == 0
    numeric = dict.fromkeys(expected.select_dtypes("number").columns, float)  # a column all null reads as None
    pd.testing.assert_frame_equal(pd.DataFrame(json.loads(out)).astype(numeric), expected, check_dtype=False,
                                  rtol=1e-5)
    code, out, _ = cli(capsys, "compare", EQ, RANDOM, "--db", str(db))
    assert code == 0 and out.strip() == versus_view(compare.compare(db, EQ, RANDOM)).to_string(index=False).strip()
    code, out, _ = cli(capsys, "headline", "--suite", "llmarena", "--db", str(db), "--format", "json")
    ranked = pd.DataFrame(json.loads(out))
    assert code == 0 and list(ranked["agent"])[0] == EQ and ranked["agent"].is_unique
    code, out, _ = cli(capsys, "headline", "--suite", "llmarena", "--db", str(db), "--format", "csv")
    assert code == 0 and list(pd.read_csv(io.StringIO(out))["agent"]) == list(ranked["agent"])


def test_bad_input_is_one_line_and_exit_2(db, tmp_path, capsys):
    empty = tmp_path / "empty.duckdb"
    store.init_db(empty)
    missing = tmp_path / "missing.duckdb"
    for args, said in [
        (("compare", EQ, "nobody", "--db", str(db)), "unknown agent 'nobody'"),
        (("compare", EQ, EQ, "--db", str(db)), "compared with itself"),
        (("compare", EQ, RANDOM, "--db", str(empty)), "holds no match"),
        (("compare", EQ, RANDOM, "--db", str(missing)), "no database at"),
        (("headline", "--suite", "llmarena", "--db", str(empty)), "holds no match"),
        (("headline", "--suite", "llmarena", "--db", str(missing)), "no database at"),
    ]:
        code, out, err = cli(capsys, *args)
        assert code == 2 and not out and len(err.strip().splitlines()) == 1 and said in err, args
        assert "Traceback" not in err
    assert not missing.exists()


def test_the_log_gives_the_figures_the_summaries_give(db, monkeypatch):
    summed = compare.compare(db, EQ, RANDOM), compare.matrices(db), compare.agent_names(db)
    monkeypatch.setattr(store, "summaries_in_step", lambda db: False)
    logged = compare.compare(db, EQ, RANDOM), compare.matrices(db), compare.agent_names(db)
    pd.testing.assert_frame_equal(summed[0], logged[0])
    for ours, theirs in zip(summed[1], logged[1], strict=True):
        pd.testing.assert_frame_equal(ours, theirs)
    assert summed[2] == logged[2] == [EQ, RANDOM, OPPONENT]
