"""Statistics the dashboard puts on its figures: 95% intervals for win rates and means, and the
robustness comparisons of GAMA-Bench's RQ1 (seed 002 §4.1) made testable.

- `wilson_interval`: the Wilson score interval of a win rate (sound at 0 or n wins, unlike the
  normal approximation), from statsmodels.
- `compare_levels`: scores of one factor's levels (prompt versions, temperatures, strategies,
  repeats) against the default level: mean, spread, a t-test (paired on the seeds both levels
  played when every sample has its pair, Welch otherwise), Holm-adjusted p-values over the
  comparisons and Cohen's d.
- `robustness_verdict`: SPEC.md gives no numeric criterion, so a game is robust to a factor when no
  level differs from the default with a Holm-significant p (alpha 0.05). The paper's own figure, the
  standard deviation of the scores across levels (Table 5: 2.4-3.4 "consistent", 7.6-11.0 singled
  out), is shown beside it by the page, not used for the verdict.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats as sps
from statsmodels.stats.proportion import proportion_confint

ALPHA = 0.05
Z95 = float(sps.norm.ppf(1 - ALPHA / 2))
COMPARISON_COLUMNS = ["level", "n", "mean", "std", "diff", "test", "pairs", "p", "p_holm", "cohens_d", "significant"]


def wilson_interval(wins, n, alpha: float = ALPHA) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds of the Wilson score interval of wins/n (statsmodels' `proportion_confint`; arrays
    or scalars; NaN where n = 0)."""
    wins, n = np.asarray(wins, dtype=float), np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        low, high = proportion_confint(wins, n, alpha=alpha, method="wilson")
    return np.asarray(low, dtype=float), np.asarray(high, dtype=float)


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
    random samples."""
    if se == 0:
        return float("nan") if diff == 0 else 0.0
    return float(2 * sps.t.sf(abs(diff / se), df))


def welch_test(reference: Sequence[float], other: Sequence[float]) -> float:
    """Two-sided p-value of Welch's unequal-variance t-test; NaN with fewer than 2 values a side."""
    a, b = np.asarray(reference, dtype=float), np.asarray(other, dtype=float)
    if a.size < 2 or b.size < 2:
        return float("nan")
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    if va + vb == 0:
        return _t_p_value(b.mean() - a.mean(), 0.0, 1.0)
    df = (va + vb) ** 2 / (va**2 / (a.size - 1) + vb**2 / (b.size - 1))
    return _t_p_value(a.mean() - b.mean(), float(np.sqrt(va + vb)), df)


def paired_test(reference: Sequence[float], other: Sequence[float]) -> float:
    """Two-sided p-value of the paired t-test; NaN with fewer than 2 pairs."""
    diffs = np.asarray(reference, dtype=float) - np.asarray(other, dtype=float)
    if diffs.size < 2:
        return float("nan")
    return _t_p_value(diffs.mean(), float(diffs.std(ddof=1) / np.sqrt(diffs.size)), diffs.size - 1)


def _compare(ref_seeds: np.ndarray, ref: np.ndarray, seeds: np.ndarray, mine: np.ndarray) -> tuple[str, int, float]:
    """Paired on the seed when each side plays each seed once and both sides played the same seeds; Welch otherwise."""
    ref_by_seed, mine_by_seed = dict(zip(ref_seeds, ref, strict=True)), dict(zip(seeds, mine, strict=True))
    if len(ref_by_seed) == ref.size and len(mine_by_seed) == mine.size and ref_by_seed.keys() == mine_by_seed.keys() \
            and ref.size >= 2:
        order = sorted(ref_by_seed)
        return "paired t", len(order), paired_test([ref_by_seed[k] for k in order], [mine_by_seed[k] for k in order])
    return "Welch t", 0, welch_test(ref, mine)


def compare_levels(scores: pd.DataFrame, default) -> pd.DataFrame:
    """Rows of `scores` (`level`, `seed`, `score`) summarised per level and tested against `default`.
    The first row is the default itself (no test); Holm corrects the other levels' p-values together."""
    scores = scores[scores["level"].notna()]
    if scores.empty:
        return pd.DataFrame(columns=COMPARISON_COLUMNS)
    levels, seeds = scores["level"].to_numpy(), scores["seed"].to_numpy()
    values = scores["score"].to_numpy(dtype=float)
    order = sorted(set(levels), key=lambda v: (v != default, v))
    ref_mask = levels == default
    ref, ref_seeds = values[ref_mask], seeds[ref_mask]
    rows = []
    for level in order:
        mask = levels == level
        mine = values[mask]
        row = {"level": level, "n": mine.size, "mean": mine.mean(),
               "std": mine.std(ddof=1) if mine.size > 1 else float("nan"), "diff": float("nan"),
               "test": "default" if level == default else "", "pairs": 0, "p": float("nan"), "cohens_d": float("nan")}
        if level != default and ref.size:
            test, pairs, p = _compare(ref_seeds, ref, seeds[mask], mine)
            row |= {"diff": mine.mean() - ref.mean(), "test": test, "pairs": pairs, "p": p,
                    "cohens_d": cohens_d(ref, mine)}
        rows.append(row)
    table = pd.DataFrame(rows)
    table["p_holm"] = holm(table["p"])
    table["significant"] = table["p_holm"] < ALPHA
    return table[COMPARISON_COLUMNS]


MIN_SAMPLE = 5  # scores per level before a verdict: the paper's own five runs per level (GAMA-Bench §4.1)


def robustness_verdict(comparison: pd.DataFrame, min_sample: int = MIN_SAMPLE) -> str:
    """'not robust' when any level of a `compare_levels` table differs Holm-significantly from the default,
    'robust' when at least one level was tested and none does; only levels with `min_sample` scores or more
    (the default's included) are judged, so two runs a level give 'not enough data', not a verdict."""
    if comparison.empty or comparison.iloc[0]["test"] != "default" or comparison.iloc[0]["n"] < min_sample:
        return "not enough data"
    tested = comparison[(comparison["test"] != "default") & (comparison["n"] >= min_sample)]
    if tested.empty or tested["p_holm"].isna().all():
        return "not enough data"
    return "not robust" if tested["significant"].any() else "robust"
