"""Statistics the dashboard puts on its figures: 95% intervals for win rates and means, and the
robustness comparisons of GAMA-Bench's RQ1 (γ-Bench paper §4.1) made testable.

- `wilson_interval`: the Wilson score interval of a win rate (sound at 0 or n wins, unlike the
  normal approximation), statsmodels' formula.
- `compare_levels`: scores of one factor's levels (prompt versions, temperatures, strategies,
  repeats) against the default level: mean, spread, a t-test (paired on the seeds both levels
  played when every sample has its pair, Welch otherwise), Holm-adjusted p-values over the
  comparisons and Cohen's d. A level is tested only when it and the default have `MIN_SAMPLE`
  scores each (the paper's five runs); a t-test on two or three scores is left "not tested".
- `robustness_verdict`: the paper gives no numeric criterion. Absence of a significant difference is
  not robustness, so: unless every level and the default have `MIN_SAMPLE` scores, "not enough
  data"; "sensitive" when a level
  differs from the default with a Holm-significant p (alpha 0.05); "robust" only when every level's
  95% interval of the difference lies inside an equivalence margin (`equivalence_margin`: 5 points
  of γ-Bench's 0-100 score, between the paper's "consistent" spread of 2.4-3.4 and the 7.6-11.0 it
  singles out in Table 5; half a standard deviation of the default's scores on other scales);
  otherwise "inconclusive". The paper's own figure, the standard deviation of the scores across
  levels, is shown beside it by the page.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import special

ALPHA = 0.05
Z95 = float(special.ndtri(1 - ALPHA / 2))
MIN_SAMPLE = 5  # scores per level before a level is tested: the paper's own five runs per level (GAMA-Bench §4.1)
NOT_TESTED = "not tested"  # a comparison's `test` where the level or the default has fewer than MIN_SAMPLE scores
COMPARISON_COLUMNS = ["level", "n", "mean", "std", "low", "high", "diff", "diff_low", "diff_high", "test", "pairs",
                      "p", "p_holm", "cohens_d", "significant"]


def wilson_interval(wins, n, alpha: float = ALPHA) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds of the Wilson score interval of wins/n (arrays or scalars; NaN where n = 0): statsmodels'
    `proportion_confint(method="wilson")` formula, which tests/test_page_imports.py pins it to. Ours: importing
    statsmodels (and the scipy.stats it loads) cost every dashboard process 45 MB for this one formula."""
    wins, n = np.asarray(wins, dtype=float), np.asarray(n, dtype=float)
    z = -special.ndtri(alpha / 2)  # scipy's norm.isf(alpha / 2), computed as statsmodels does to the last bit
    z2 = z ** 2
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = wins / n
        denominator = 1 + z2 / n
        center = (rate + z2 / (2 * n)) / denominator
        half = z * np.sqrt(rate * (1.0 - rate) / n + z2 / (4.0 * n ** 2)) / denominator
        # the interval holds its rate: 0 wins give a lower bound of 0, not 5.6e-17 left by rounding
        return np.asarray(np.fmin(center - half, rate), dtype=float), np.asarray(np.fmax(center + half, rate),
                                                                                dtype=float)


def holm(pvalues: Sequence[float]) -> np.ndarray:
    """Holm-Bonferroni adjusted p-values (step-down, monotone, capped at 1); NaN stays NaN and is not counted.
    Ours, not statsmodels' `multipletests`: that one runs a full garbage collection on every call (0.2-0.7 s
    in a dashboard process, once per robustness table: bench/stats.py); tests/test_stats.py pins this one to
    it on random inputs."""
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, np.nan)
    valid = np.flatnonzero(~np.isnan(p))
    m = valid.size
    running = 0.0
    for rank, idx in enumerate(valid[np.argsort(p[valid], kind="stable")]):
        running = max(running, min(1.0, (m - rank) * p[idx]))
        out[idx] = running
    return out


def cohens_d(reference: Sequence[float], other: Sequence[float]) -> float:
    """(mean(other) - mean(reference)) / pooled standard deviation; NaN when it is undefined."""
    a, b = np.asarray(reference, dtype=float), np.asarray(other, dtype=float)
    if a.size < 2 or b.size < 2:
        return float("nan")
    pooled = np.sqrt(((a.size - 1) * a.var(ddof=1) + (b.size - 1) * b.var(ddof=1)) / (a.size + b.size - 2))
    return float((b.mean() - a.mean()) / pooled) if pooled > 0 else float("nan")


def _t_p_value(diff: float, se: float, df: float) -> float:
    """Two-sided p of t = diff / se, by formula: scipy's `ttest_ind`/`ttest_rel` cost 5-40x more a call
    (bench/stats.py), and the robustness page runs hundreds; tests/test_stats.py pins these to scipy's on
    random samples. The t distribution's tails are scipy.special's `stdtr`/`stdtrit`, what `scipy.stats.t.sf`/`ppf`
    compute after checking their arguments (0.1-0.2 ms a call: the page makes ~1,000)."""
    if se == 0:
        return float("nan") if diff == 0 else 0.0
    return float(2 * special.stdtr(df, -abs(diff / se)))


def _welch_parts(reference: np.ndarray, other: np.ndarray) -> tuple[float, float, float]:
    """(mean(other) - mean(reference), its standard error, Welch-Satterthwaite degrees of freedom)."""
    va, vb = reference.var(ddof=1) / reference.size, other.var(ddof=1) / other.size
    df = 1.0 if va + vb == 0 else (va + vb) ** 2 / (va**2 / (reference.size - 1) + vb**2 / (other.size - 1))
    return float(other.mean() - reference.mean()), float(np.sqrt(va + vb)), df


def _paired_parts(reference: np.ndarray, other: np.ndarray) -> tuple[float, float, float]:
    """(mean difference other - reference over the pairs, its standard error, n - 1)."""
    diffs = other - reference
    return float(diffs.mean()), float(diffs.std(ddof=1) / np.sqrt(diffs.size)), diffs.size - 1


def welch_test(reference: Sequence[float], other: Sequence[float]) -> float:
    """Two-sided p-value of Welch's unequal-variance t-test; NaN with fewer than 2 values a side."""
    a, b = np.asarray(reference, dtype=float), np.asarray(other, dtype=float)
    if a.size < 2 or b.size < 2:
        return float("nan")
    return _t_p_value(*_welch_parts(a, b))


def paired_test(reference: Sequence[float], other: Sequence[float]) -> float:
    """Two-sided p-value of the paired t-test; NaN with fewer than 2 pairs."""
    a, b = np.asarray(reference, dtype=float), np.asarray(other, dtype=float)
    if a.size < 2:
        return float("nan")
    return _t_p_value(*_paired_parts(a, b))


def t_interval(centre: float, se: float, df: float, alpha: float = ALPHA) -> tuple[float, float]:
    """The (1 - alpha) t interval centre ± t·se; NaN without a standard error."""
    if not np.isfinite(se) or df <= 0:
        return float("nan"), float("nan")
    half = float(special.stdtrit(df, 1 - alpha / 2)) * se
    return centre - half, centre + half


def mean_interval(values: Sequence[float], alpha: float = ALPHA) -> tuple[float, float]:
    """The 95% t interval of the mean of `values`; NaN with fewer than 2."""
    v = np.asarray(values, dtype=float)
    if v.size < 2:
        return float("nan"), float("nan")
    return t_interval(float(v.mean()), float(v.std(ddof=1) / np.sqrt(v.size)), v.size - 1, alpha)


def _compare(ref_seeds: np.ndarray, ref: np.ndarray, seeds: np.ndarray, mine: np.ndarray) -> dict:
    """The test of `mine` against `ref` (2 scores or more each): paired on the seed when each side plays each seed
    once and both sides played the same seeds, Welch otherwise; its p and the 95% interval of the difference."""
    ref_by_seed, mine_by_seed = dict(zip(ref_seeds, ref, strict=True)), dict(zip(seeds, mine, strict=True))
    if len(ref_by_seed) == ref.size and len(mine_by_seed) == mine.size and ref_by_seed.keys() == mine_by_seed.keys():
        order = sorted(ref_by_seed)
        test, pairs = "paired t", len(order)
        parts = _paired_parts(np.array([ref_by_seed[k] for k in order]), np.array([mine_by_seed[k] for k in order]))
    else:
        test, pairs, parts = "Welch t", float("nan"), _welch_parts(ref, mine)
    low, high = t_interval(*parts)
    return {"test": test, "pairs": pairs, "p": _t_p_value(*parts), "diff_low": low, "diff_high": high}


def compare_levels(scores: pd.DataFrame, default, min_sample: int = MIN_SAMPLE,
                   bounds: tuple[float, float] | None = None) -> pd.DataFrame:
    """Rows of `scores` (`level`, `seed`, `score`) summarised per level (mean, sd, 95% interval of the mean) and
    tested against `default` (the difference, its 95% interval, p). The first row is the default itself (no test);
    Holm corrects the tested levels' p-values together. A level is tested only when it and the default both have
    `min_sample` scores: below that a t-test on 2 or 3 scores decides by chance, so the level is `NOT_TESTED` (its
    mean and difference shown; no interval of the difference, p, Cohen's d or significance). `bounds` (lo, hi), the
    range the scores can take, clips the intervals of the mean: a mean cannot leave it, its t interval can."""
    present = scores["level"].notna().to_numpy()
    if not present.any():
        return pd.DataFrame(columns=COMPARISON_COLUMNS)
    return comparison_table(level_comparisons(scores["level"].to_numpy()[present], scores["seed"].to_numpy()[present],
                                              scores["score"].to_numpy(dtype=float)[present], default, min_sample,
                                              bounds))


def level_comparisons(levels: np.ndarray, seeds: np.ndarray, values: np.ndarray, default,
                      min_sample: int = MIN_SAMPLE, bounds: tuple[float, float] | None = None) -> list[dict]:
    """`compare_levels`' rows as dicts, from arrays of levels (none missing), seeds and scores: the robustness page
    compares ~100 factors on load, and one frame per table (`comparison_table`) costs far less than one per
    comparison."""
    order = sorted(set(levels), key=lambda v: (v != default, v))
    ref_mask = levels == default
    ref, ref_seeds = values[ref_mask], seeds[ref_mask]
    rows = []
    for level in order:
        mask = levels == level
        mine = values[mask]
        low, high = mean_interval(mine)
        if bounds is not None:
            low, high = float(np.clip(low, *bounds)), float(np.clip(high, *bounds))
        row = {"level": level, "n": mine.size, "mean": mine.mean(),
               "std": mine.std(ddof=1) if mine.size > 1 else float("nan"), "low": low, "high": high,
               "diff": float("nan"), "diff_low": float("nan"), "diff_high": float("nan"),
               "test": "default" if level == default else NOT_TESTED, "pairs": float("nan"), "p": float("nan"),
               "cohens_d": float("nan")}
        if level != default and ref.size:
            row["diff"] = mine.mean() - ref.mean()
            if min(ref.size, mine.size) >= max(min_sample, 2):
                row |= _compare(ref_seeds, ref, seeds[mask], mine) | {"cohens_d": cohens_d(ref, mine)}
        rows.append(row)
    for row, p_holm in zip(rows, holm([row["p"] for row in rows]), strict=True):
        tested = row["test"] not in ("default", NOT_TESTED)
        row |= {"p_holm": p_holm, "significant": bool(p_holm < ALPHA) if tested else None}
    return rows


def comparison_table(rows: list[dict], first: tuple[str, ...] = ()) -> pd.DataFrame:
    """Rows of `level_comparisons` as a frame: the columns `first` (a caller's own), then COMPARISON_COLUMNS, the
    pairs as whole numbers (blank for Welch), significant True, False or None (not tested)."""
    columns = {name: [row[name] for row in rows] for name in (*first, *COMPARISON_COLUMNS)}
    columns["pairs"] = pd.array([None if np.isnan(v) else int(v) for v in columns["pairs"]], dtype="Int64")
    columns["significant"] = pd.Series(columns["significant"], dtype=object)
    return pd.DataFrame(columns)


SCORE_MARGIN = 5.0  # points of a 0-100 score: between the paper's "consistent" 2.4-3.4 and its singled-out 7.6-11.0
SD_MARGIN = 0.5  # standard deviations of the default level's scores, where the score has no fixed scale


def equivalence_margin(default_scores_sd: float, on_0_100: bool) -> float:
    """How far a level's mean may be from the default's and still count as the same (the equivalence margin)."""
    return SCORE_MARGIN if on_0_100 else SD_MARGIN * default_scores_sd


def robustness_verdict(comparison: pd.DataFrame, margin: float) -> str:
    """The verdict on one `compare_levels` table: 'not enough data' unless every level was tested (it and the default
    have MIN_SAMPLE scores: a verdict on the levels that happen to have enough would hide the others); 'sensitive'
    when any differs Holm-significantly from the default; 'robust' when every level's 95% interval of the
    difference lies within ±`margin` (an equivalence test: a large p alone is absence of evidence, not evidence of
    no effect); else 'inconclusive'."""
    if len(comparison) < 2 or comparison.iloc[0]["test"] != "default":
        return "not enough data"
    levels = comparison.iloc[1:]
    if (levels["test"] == NOT_TESTED).any() or levels[["diff_low", "diff_high"]].isna().any(axis=None):
        return "not enough data"  # (identical paired scores have an interval, [0, 0], though their p is undefined)
    if levels["significant"].eq(True).any():
        return "sensitive"
    inside = (levels["diff_low"] >= -margin) & (levels["diff_high"] <= margin)
    return "robust" if bool(np.isfinite(margin)) and inside.all() else "inconclusive"
