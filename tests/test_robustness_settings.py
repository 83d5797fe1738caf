"""The robustness query compares like with like: a game's scores are split by setting (preset and params) before
levels are compared, each setting is named as every page names it, and intervals of the mean stay in the range the
scores can take."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from engine.present import queries
from engine.score import stats

TEN = json.dumps({"players": 10, "rounds": 20, "max": 100})
THREE = json.dumps({"players": 3, "rounds": 1, "max": 100})


def scores(rows: list[tuple]) -> pd.DataFrame:
    """robustness_scores' shape from (game, preset, params, seed, repeat, score) rows of a bot (no condition)."""
    frame = pd.DataFrame(rows, columns=["game", "preset", "params", "seed", "repeat", "score"])
    return frame.assign(run_id="r", prompt_version=None, temperature=float("nan"), strategy=None,
                        max_tokens=float("nan"))


def test_settings_are_compared_apart_and_named_as_on_every_page():
    """bot:random on the first run: 10-player guessing games (repeats 0-2) and 3-player ones (repeats 0-5), once
    pooled into one comparison; now two blocks, each its own default and Holm family."""
    rows = [("guessing_game", "default", TEN, r, r, 50.0 + r) for r in range(3) for _ in range(5)]
    rows += [("guessing_game", "default", THREE, r, r, 20.0 + 10 * r) for r in range(6) for _ in range(3)]
    frame = scores(rows)
    table = queries.robustness_tables(frame)[("repeat", "guessing_game")]
    assert set(table["setting"]) == {"vanilla", "custom: players=3, rounds=1"}  # the paper's 10 players, 20 rounds
    ten, three = (table[table["setting"] == name] for name in ("vanilla", "custom: players=3, rounds=1"))
    assert list(ten["level"]) == [0, 1, 2] and list(ten["n"]) == [5, 5, 5]
    assert list(three["level"]) == list(range(6)) and list(three["n"]) == [3] * 6
    assert list(three["test"]) == ["default"] + [stats.NOT_TESTED] * 5 and three["significant"].isna().all()
    assert list(ten["test"].iloc[1:]) != [stats.NOT_TESTED] * 2  # five a level: tested
    assert stats.robustness_verdict(three.reset_index(drop=True), margin=5) == "not enough data"


def test_settings_that_differ_only_in_what_changes_no_rule_are_one_setting():
    """A valuation seed draws other private values under the same rules: one setting, named by its preset."""
    frame = scores([("sealed_bid_auction", "no_hint", json.dumps({"valuation_seed": s}), s, r, float(s + r))
                    for s in range(5) for r in range(2)])
    table = queries.robustness_tables(frame)[("repeat", "sealed_bid_auction")]
    assert set(table["setting"]) == {"no_hint · vanilla"} and list(table["n"]) == [5, 5]


def test_intervals_of_the_mean_stay_in_the_observed_range_or_the_0_100_scale():
    """Chameleon has no fixed scale: its intervals stay between its lowest and highest score (0 and 2); γ-Bench's
    guessing game stays on 0-100."""
    chameleon = [("chameleon", "default", "{}", s, r, [0, 2, 0, 1, 2][s]) for r in range(2) for s in range(5)]
    guessing = [("guessing_game", "default", THREE, s, r, [99, 98, 60, 99, 97][s]) for r in range(2) for s in range(5)]
    tables = queries.robustness_tables(scores(chameleon + guessing))
    assert tables[("repeat", "chameleon")]["low"].min() == 0 and tables[("repeat", "chameleon")]["high"].max() == 2
    assert tables[("repeat", "guessing_game")]["high"].max() == pytest.approx(100)
    assert queries.score_range("chameleon", pd.Series([0.0, 2.0, 1.0])) == (0.0, 2.0)
    assert queries.score_range("guessing_game", pd.Series([14.0, 77.0])) == (0.0, 100.0)
