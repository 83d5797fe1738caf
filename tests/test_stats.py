"""The dashboard's statistics on known values: Wilson bounds, Holm by hand, the robustness table's paired and
Welch t-tests and intervals against scipy's on the same scores, Cohen's d, and the paper's robustness verdict
on its own Table 5."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from engine.score import stats

pytestmark = pytest.mark.slow


def test_wilson_interval_matches_the_formula_and_handles_the_edges():
    lo, hi = stats.wilson_interval(7, 10)
    # by hand: z = 1.96, p = .7, n = 10
    z, p, n = stats.Z95, 0.7, 10
    centre = (p + z * z / 20) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / 400) / (1 + z * z / n)
    assert lo == pytest.approx(centre - half) and hi == pytest.approx(centre + half)
    assert lo == pytest.approx(0.3968, abs=1e-4) and hi == pytest.approx(0.8922, abs=1e-4)
    lo0, hi0 = stats.wilson_interval(np.array([0, 5]), np.array([5, 5]))
    assert lo0[0] == pytest.approx(0.0) and 0 < hi0[0] < 0.5 and hi0[1] == pytest.approx(1.0) and lo0[1] > 0.5
    assert all(math.isnan(x) for x in stats.wilson_interval(0, 0))


def test_holm_adjusts_by_hand():
    # sorted p: .01 (x4) = .04, .02 (x3) = .06, .03 (x2) = .06 (monotone), .04 (x1) = .06 (monotone)
    adjusted = stats.holm([0.04, 0.01, 0.03, 0.02])
    assert adjusted == pytest.approx([0.06, 0.04, 0.06, 0.06])
    assert stats.holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])
    with_nan = stats.holm([float("nan"), 0.01, 0.04])
    assert math.isnan(with_nan[0]) and with_nan[1:] == pytest.approx([0.02, 0.04])


def test_cohens_d_uses_the_pooled_standard_deviation():
    def d(reference: list[float], other: list[float]) -> float:
        scores = pd.DataFrame({"level": ["a"] * len(reference) + ["b"] * len(other), "seed": range(10, 10 + len(
            reference) + len(other)), "score": [*reference, *other]})
        return stats.compare_levels(scores, "a", min_sample=2)["cohens_d"].iloc[1]

    assert d([1, 2, 3], [3, 4, 5]) == pytest.approx(2.0)  # both sd 1, means 2 apart
    assert d([1, 2, 3, 4], [2, 4]) == pytest.approx(0.5 / np.sqrt((3 * 5 / 3 + 1 * 2) / 4))  # pooled: n - 1 weights
    assert math.isnan(d([1, 1], [1, 1]))  # no spread


def test_compare_levels_pairs_on_shared_seeds_and_falls_back_to_welch():
    scores = pd.DataFrame({
        "level": ["v1"] * 4 + ["v2"] * 4 + ["v3"] * 3,
        "seed": [0, 1, 2, 3, 0, 1, 2, 3, 10, 11, 12],
        "score": [50, 52, 48, 51, 60, 63, 57, 61, 49, 55, 47],
    })
    table = stats.compare_levels(scores, "v1", min_sample=3).set_index("level")
    assert list(table.index) == ["v1", "v2", "v3"] and table.loc["v1", "test"] == "default"
    assert table.loc["v2", "test"] == "paired t" and table.loc["v2", "pairs"] == 4
    assert table.loc["v2", "p"] == pytest.approx(sps.ttest_rel([50, 52, 48, 51], [60, 63, 57, 61]).pvalue)
    assert table.loc["v3", "test"] == "Welch t" and pd.isna(table.loc["v3", "pairs"])
    assert table.loc["v3", "p"] == pytest.approx(sps.ttest_ind([50, 52, 48, 51], [49, 55, 47], equal_var=False).pvalue)
    assert list(table["p_holm"][1:]) == pytest.approx(list(stats.holm(table["p"][1:])))
    assert bool(table.loc["v2", "significant"]) and not bool(table.loc["v3", "significant"])
    assert table.loc["v2", "diff"] == pytest.approx(10.0)


def test_verdict_robust_only_when_the_difference_is_shown_small():
    """Robust needs the 95% interval of each level's difference inside the margin (an equivalence test);
    a large p at a wide interval is inconclusive, a Holm-significant level sensitive; too few scores: no verdict."""
    seeds = [0, 1, 2, 3, 4, 5]
    guess = [65.4, 62.3, 63.9, 58.3, 67.3, 61.0]  # the paper's Table 5 guessing game levels: consistent

    def table(levels: dict[str, list[float]], min_sample: int = stats.MIN_SAMPLE) -> pd.DataFrame:
        return stats.compare_levels(pd.DataFrame(
            [{"level": k, "seed": s, "score": v} for k, vs in levels.items() for s, v in zip(seeds, vs, strict=False)]),
            "v1", min_sample)

    same = table({"v1": guess, "v2": [g + d for g, d in zip(guess, [1, -1, 0.5, -0.5, 0, 0.3], strict=True)]})
    row = same.iloc[1]
    assert -stats.SCORE_MARGIN < row["diff_low"] < row["diff"] < row["diff_high"] < stats.SCORE_MARGIN
    assert stats.robustness_verdict(same, margin=stats.SCORE_MARGIN) == "robust"
    # n = 6 a level, p about 0.5: nothing significant, but the interval of the difference spans ±20 points
    noisy = table({"v1": [20, 80, 35, 70, 50, 60], "v2": [60, 30, 90, 55, 75, 40]})
    assert 0.3 < noisy["p"].iloc[1] < 0.8 and noisy["diff_low"].iloc[1] < -stats.SCORE_MARGIN
    assert stats.robustness_verdict(noisy, margin=stats.SCORE_MARGIN) == "inconclusive"
    shifted = table({"v1": guess, "v2": [g + 20 + d for g, d in zip(guess, [1, -1, 0.5, -0.5, 0, 0.3], strict=True)],
                     "v3": guess[::-1]})
    assert bool(shifted.set_index("level").loc["v2", "significant"])
    assert stats.robustness_verdict(shifted, margin=stats.SCORE_MARGIN) == "sensitive"
    assert stats.robustness_verdict(table({"v1": guess}), margin=5) == "not enough data"
    assert stats.robustness_verdict(table({"v1": guess[:1], "v2": guess[1:2]}), margin=5) == "not enough data"
    two_each = {"v1": guess[:2], "v2": [g + 40 for g in guess[:2]]}  # a big shift, but n = 2 a level
    assert stats.robustness_verdict(table(two_each), margin=5) == "not enough data"
    assert stats.robustness_verdict(table(two_each, min_sample=2), margin=5) != "not enough data"  # a verdict above
    # a deterministic model (temperature 0) scoring the same under both prompts: the paired t-test's p is undefined
    # (no spread), but the difference is known exactly, [0, 0]: robust, not "not enough data"
    identical = table({"v1": guess, "v2": guess})
    assert np.isnan(identical["p"].iloc[1]) and identical["diff_low"].iloc[1] == identical["diff_high"].iloc[1] == 0
    assert stats.robustness_verdict(identical, margin=stats.SCORE_MARGIN) == "robust"


def test_intervals_of_the_mean_and_of_the_difference_match_scipy():
    scores = pd.DataFrame({"level": ["a"] * 4 + ["b"] * 5, "seed": [0, 1, 2, 3, 0, 1, 2, 3, 4],
                           "score": [50, 52, 48, 51, 60, 63, 57, 61, 49]})
    table = stats.compare_levels(scores, "a", min_sample=4).set_index("level")
    b = scores[scores["level"] == "b"]["score"]
    want = sps.t.interval(0.95, len(b) - 1, loc=b.mean(), scale=sps.sem(b))
    assert (table.loc["b", "low"], table.loc["b", "high"]) == pytest.approx(want)
    welch = sps.ttest_ind(b, scores[scores["level"] == "a"]["score"], equal_var=False).confidence_interval()
    assert (table.loc["b", "diff_low"], table.loc["b", "diff_high"]) == pytest.approx((welch.low, welch.high))


def test_a_level_below_the_minimum_is_not_tested_and_denies_a_verdict():
    """The first run's bot:random, repeats of a guessing game: the default and level 1 with 5 scores, levels 2 and
    3 with 3 each. Only level 1 is tested (Holm over it alone); the others show their mean and difference but no
    p, no interval of the difference, no significance; and the factor gets no verdict, however far level 1 is."""
    rows = [("0", s, 30 + s) for s in range(5)] + [("1", s, 80 + s) for s in range(5)]
    rows += [("2", s, 90.0) for s in range(3)] + [("3", s, 10.0) for s in range(3)]
    table = stats.compare_levels(pd.DataFrame(rows, columns=["level", "seed", "score"]), "0").set_index("level")
    assert list(table["test"]) == ["default", "paired t", stats.NOT_TESTED, stats.NOT_TESTED]
    assert table.loc["1", "significant"] is True and table.loc["1", "p_holm"] == table.loc["1", "p"]  # one test
    for level in ("2", "3"):
        row = table.loc[level]
        assert row["significant"] is None and np.isnan(row["p"]) and np.isnan(row["p_holm"])
        assert np.isnan(row["diff_low"]) and np.isnan(row["cohens_d"]) and row["n"] == 3
    assert table.loc["2", "diff"] == pytest.approx(90 - 32)
    assert table.loc["0", "significant"] is None  # the default is not tested against itself
    assert stats.robustness_verdict(table.reset_index(), margin=5) == "not enough data"
    every_level_has_five = stats.compare_levels(pd.DataFrame(rows[:10], columns=["level", "seed", "score"]), "0")
    assert stats.robustness_verdict(every_level_has_five, margin=5) == "sensitive"


def test_a_default_below_the_minimum_tests_nothing():
    rows = [("v1", s, 50.0 + s) for s in range(3)] + [("v2", s, 60.0 + s) for s in range(8)]
    table = stats.compare_levels(pd.DataFrame(rows, columns=["level", "seed", "score"]), "v1")
    assert list(table["test"]) == ["default", stats.NOT_TESTED] and table["p_holm"].isna().all()
    assert stats.robustness_verdict(table, margin=5) == "not enough data"


def test_intervals_of_the_mean_are_clipped_to_the_score_range():
    """Chameleon's 0-2 score: a t interval over 0, 2, 0 runs to -3.3 and 4.6; a mean cannot leave 0-2."""
    scores = pd.DataFrame({"level": ["a"] * 3 + ["b"] * 3, "seed": [0, 1, 2] * 2, "score": [0, 2, 0, 2, 2, 0]})
    loose = stats.compare_levels(scores, "a")
    assert loose["low"].min() < 0 and loose["high"].max() > 2
    clipped = stats.compare_levels(scores, "a", bounds=(0.0, 2.0))
    assert clipped["low"].min() == 0 and clipped["high"].max() == 2
    assert list(clipped["mean"]) == list(loose["mean"])
