"""Statistics the dashboard puts on its figures: 95% intervals for win rates and means, and the
robustness comparisons of GAMA-Bench's RQ1 (γ-Bench paper §4.1) made testable.

- `wilson_interval`: the Wilson score interval of a win rate (sound at 0 or n wins, unlike the
  normal approximation), from statsmodels.
- `compare_levels`: scores of one factor's levels (prompt versions, temperatures, strategies,
  repeats) against the default level: mean, spread, a t-test (paired on the seeds both levels
  played when every sample has its pair, Welch otherwise), Holm-adjusted p-values over the
  comparisons and Cohen's d. A level is tested only when it and the default have `MIN_SAMPLE`
  scores each (the paper's five runs); a t-test on two or three scores is left "not tested".
  The statistics come from each level's moments (`compare_moments`, every block at once: the
  Robustness page gets the moments from DuckDB, `engine/present/queries.py`), pooled by `pooled`.
- `robustness_verdict` (`robustness_verdicts`: every block at once): the paper gives no numeric
  criterion. Absence of a significant difference is not robustness, so: unless every level and
  the default have `MIN_SAMPLE` scores, "not enough data"; "sensitive" when a level
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
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

ALPHA = 0.05
Z95 = float(stats.norm.ppf(1 - ALPHA / 2))
MIN_SAMPLE = 5  # scores per level before a level is tested: the paper's own five runs per level (GAMA-Bench §4.1)
NOT_TESTED = "not tested"  # a comparison's `test` where the level or the default has fewer than MIN_SAMPLE scores
COMPARISON_COLUMNS = ["level", "n", "mean", "std", "low", "high", "diff", "diff_low", "diff_high", "test", "pairs",
                      "p", "p_holm", "cohens_d", "significant"]


def wilson_interval(wins, n, alpha: float = ALPHA) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds of the Wilson score interval of wins/n (arrays or scalars; NaN where n = 0):
    statsmodels' `proportion_confint(method="wilson")`."""
    wins, n = np.asarray(wins, dtype=float), np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        low, high = proportion_confint(wins, n, alpha=alpha, method="wilson")
    return np.asarray(low, dtype=float), np.asarray(high, dtype=float)


def holm(pvalues: Sequence[float]) -> np.ndarray:
    """Holm-Bonferroni adjusted p-values (step-down, monotone, capped at 1); NaN stays NaN and is not counted.
    Not statsmodels' `multipletests`: its Holm branch runs a full garbage collection on every call, seconds a
    robustness view in a dashboard process (bench/stats.py)."""
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, np.nan)
    valid = np.flatnonzero(~np.isnan(p))
    order = valid[np.argsort(p[valid], kind="stable")]
    out[order] = np.minimum(1.0, np.maximum.accumulate((valid.size - np.arange(valid.size)) * p[order]))
    return out


def _t_p_values(diff: np.ndarray, se: np.ndarray, df: np.ndarray) -> np.ndarray:
    """Two-sided p of t = diff / se on `df` degrees of freedom (scipy's t distribution): no p where both the
    difference and its standard error are 0 (identical paired scores), 0 where only the standard error is."""
    with np.errstate(invalid="ignore", divide="ignore"):
        p = 2 * stats.t.sf(np.abs(diff / se), df)
    return np.where(se == 0, np.where(diff == 0, np.nan, 0.0), p)


def _welch_parts(n_a, mean_a, var_a, n_b, mean_b, var_b):
    """(mean_b - mean_a, its standard error, Welch-Satterthwaite degrees of freedom) of two samples' counts, means
    and variances: numbers or arrays (every level of the Robustness page at once)."""
    va, vb = var_a / n_a, var_b / n_b
    with np.errstate(invalid="ignore", divide="ignore"):
        df = np.where(va + vb == 0, 1.0, (va + vb) ** 2 / (va**2 / (n_a - 1) + vb**2 / (n_b - 1)))
    return mean_b - mean_a, np.sqrt(va + vb), df


def _paired_parts(pairs, m2):
    """(the standard error of the mean difference, n - 1) of `pairs` differences whose squared deviations from their
    mean sum to `m2`: numbers or arrays."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.sqrt(m2 / (pairs - 1) / pairs), pairs - 1


def _t_intervals(centre: np.ndarray, se: np.ndarray, df: np.ndarray,
                 alpha: float = ALPHA) -> tuple[np.ndarray, np.ndarray]:
    """The (1 - alpha) t intervals centre ± t·se; NaN without a standard error."""
    known = np.isfinite(se) & (df > 0)
    with np.errstate(invalid="ignore"):
        half = stats.t.ppf(1 - alpha / 2, np.where(known, df, 1.0)) * se  # se 0 (equal differences): [centre, centre]
    return np.where(known, centre - half, np.nan), np.where(known, centre + half, np.nan)


def pooled(groups: np.ndarray, n: np.ndarray, mean: np.ndarray,
           m2: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Groups of score moments (count, mean, sum of squared deviations from the mean) pooled into one per group
    number in `groups` (0 to k - 1): the counts, the means and the sums of squares (Chan et al.'s combination: the
    parts' own sums plus their means' spread, with no sum of squares of the raw scores to cancel)."""
    size = int(groups.max()) + 1 if groups.size else 0
    count = np.bincount(groups, n, size)
    with np.errstate(invalid="ignore", divide="ignore"):
        centre = np.bincount(groups, n * mean, size) / count
    spread = np.bincount(groups, m2, size) + np.bincount(groups, n * (mean - centre[groups]) ** 2, size)
    return count, centre, spread


MOMENT_COLUMNS = ["level", "n", "mean", "m2", "pairs", "paired_mean", "paired_m2"]


def compare_levels(scores: pd.DataFrame, default, min_sample: int = MIN_SAMPLE,
                   bounds: tuple[float, float] | None = None) -> pd.DataFrame:
    """Rows of `scores` (`level`, `seed`, `score`) summarised per level (mean, sd, 95% interval of the mean) and
    tested against `default` (the difference, its 95% interval, p): `level_moments` then `compare_moments`, the
    statistics the Robustness page gets from its SQL moments (engine/present/queries.py), here on rows."""
    present = scores["level"].notna().to_numpy()
    if not present.any():
        return pd.DataFrame(columns=COMPARISON_COLUMNS)
    moments = level_moments(scores["level"].to_numpy()[present], scores["seed"].to_numpy()[present],
                            scores["score"].to_numpy(dtype=float)[present], default)
    low, high = bounds if bounds is not None else (np.nan, np.nan)
    return compare_moments(moments.assign(block=0, floor=low, ceiling=high), min_sample).drop(
        columns=["block", "floor", "ceiling"])


def level_moments(levels: np.ndarray, seeds: np.ndarray, values: np.ndarray, default) -> pd.DataFrame:
    """One row per level (the default first, then in order) with its moments (`MOMENT_COLUMNS`: count, mean, sum of
    squared deviations) and, where the scores pair with the default's (each side plays each seed once and both
    played the same seeds), the count, mean and sum of squared deviations of the differences over those pairs."""
    ref_mask = levels == default
    ref, ref_seeds = values[ref_mask], seeds[ref_mask]
    rows = []
    for level in sorted(set(levels), key=lambda v: (v != default, v)):
        mine, mine_seeds = values[levels == level], seeds[levels == level]
        row = {"level": level, "is_default": level == default, "n": mine.size, "mean": mine.mean(),
               "m2": ((mine - mine.mean()) ** 2).sum(), "pairs": np.nan, "paired_mean": np.nan, "paired_m2": np.nan}
        if level != default and _seeds_pair(ref_seeds, mine_seeds):
            diffs = mine[np.argsort(mine_seeds)] - ref[np.argsort(ref_seeds)]
            row |= {"pairs": diffs.size, "paired_mean": diffs.mean(),
                    "paired_m2": ((diffs - diffs.mean()) ** 2).sum()}
        rows.append(row)
    return pd.DataFrame(rows, columns=["is_default", *MOMENT_COLUMNS])


def _seeds_pair(ref_seeds: np.ndarray, seeds: np.ndarray) -> bool:
    """Whether each side played each seed once and both the same seeds: then scores pair on the seed."""
    unique = np.unique(seeds)
    return unique.size == seeds.size == ref_seeds.size and np.array_equal(unique, np.unique(ref_seeds))


def compare_moments(moments: pd.DataFrame, min_sample: int = MIN_SAMPLE) -> pd.DataFrame:
    """Each level of `moments` (`MOMENT_COLUMNS` and a `block` key; each block's rows together, its default first
    where `is_default` says it is there; `floor`/`ceiling`: the range its scores can take, NaN for none) against
    its block's default: mean, sd and 95% interval of the mean (clipped to the range: a mean cannot leave it, its
    t interval can), the difference, and where the level and the default both have `min_sample` scores (below that
    a t-test on 2 or 3 scores decides by chance: `NOT_TESTED`) the test (paired t where the moments of the pairs
    are given, else Welch's t), its p, the 95% interval of the difference and Cohen's d; Holm corrects each block's
    tested levels together. All blocks at once, in numpy: the page compares ~100 blocks on load, and a frame or a
    scipy call per level cost seconds. Returns `moments`' other columns, then `COMPARISON_COLUMNS`."""
    n = moments["n"].to_numpy(dtype=float)
    mean = moments["mean"].to_numpy(dtype=float)
    block = moments["block"].to_numpy()
    first = np.r_[True, block[1:] != block[:-1]] if len(block) else np.zeros(0, dtype=bool)
    ref = np.maximum.accumulate(np.where(first, np.arange(len(block)), 0))  # each row's block's first row
    is_default = first & moments["is_default"].to_numpy(dtype=bool) if "is_default" in moments else first
    has_ref = is_default[ref]
    with np.errstate(invalid="ignore", divide="ignore"):
        var = np.where(n > 1, moments["m2"].to_numpy(dtype=float) / (n - 1), np.nan)
        low, high = _t_intervals(mean, np.sqrt(var / n), n - 1)
        low = np.fmax(low, moments["floor"].to_numpy(dtype=float))  # fmax/fmin: a NaN bound clips nothing
        high = np.fmin(high, moments["ceiling"].to_numpy(dtype=float))
        low, high = np.where(np.isnan(var), np.nan, low), np.where(np.isnan(var), np.nan, high)
        diff = np.where(has_ref & ~is_default, mean - mean[ref], np.nan)
        tested = has_ref & ~is_default & (np.minimum(n, n[ref]) >= max(min_sample, 2))
        pairs = moments["pairs"].to_numpy(dtype=float)
        paired = tested & ~np.isnan(pairs)
        _, welch_se, welch_df = _welch_parts(n[ref], mean[ref], var[ref], n, mean, var)
        paired_se, paired_df = _paired_parts(pairs, moments["paired_m2"].to_numpy(dtype=float))
        centre = np.where(paired, moments["paired_mean"].to_numpy(dtype=float), diff)
        se, df = np.where(paired, paired_se, welch_se), np.where(paired, paired_df, welch_df)
        p = np.where(tested, _t_p_values(centre, se, df), np.nan)
        diff_low, diff_high = _t_intervals(centre, np.where(tested, se, np.nan), df)
        spread = np.sqrt(((n[ref] - 1) * var[ref] + (n - 1) * var) / (n[ref] + n - 2))
        d = np.where(tested & (spread > 0), (mean - mean[ref]) / spread, np.nan)
    p_holm = np.full(len(p), np.nan)
    bounds = np.append(np.flatnonzero(first), len(p))  # each block's first row, then the end
    for start, end in zip(bounds[:-1], bounds[1:], strict=True):
        p_holm[start:end] = holm(p[start:end])
    test = np.where(is_default, "default", np.where(paired, "paired t", np.where(tested, "Welch t", NOT_TESTED)))
    extra = moments.drop(columns=[*MOMENT_COLUMNS, "is_default"], errors="ignore")
    return pd.DataFrame({  # one frame of arrays: assigning column by column is slow
        **{name: extra[name].to_numpy() for name in extra.columns},
        "level": moments["level"].to_numpy(), "n": moments["n"].to_numpy(), "mean": mean, "std": np.sqrt(var),
        "low": low, "high": high, "diff": diff, "diff_low": diff_low, "diff_high": diff_high, "test": test,
        "pairs": pd.array(np.where(paired, pairs, np.nan), dtype="Int64"), "p": p, "p_holm": p_holm, "cohens_d": d,
        "significant": pd.Series([bool(q < ALPHA) if t else None for q, t in zip(p_holm, tested, strict=True)],
                                 dtype=object).to_numpy()})


SCORE_MARGIN = 5.0  # points of a 0-100 score: between the paper's "consistent" 2.4-3.4 and its singled-out 7.6-11.0
SD_MARGIN = 0.5  # standard deviations of the default level's scores, where the score has no fixed scale


def equivalence_margin(default_scores_sd, on_0_100):
    """How far a level's mean may be from the default's and still count as the same (the equivalence margin); of
    arrays, each block's."""
    margin = np.where(on_0_100, SCORE_MARGIN, SD_MARGIN * np.asarray(default_scores_sd, dtype=float))
    return float(margin) if margin.ndim == 0 else margin


def robustness_verdict(comparison: pd.DataFrame, margin: float) -> str:
    """The verdict on one `compare_levels` table (`robustness_verdicts`)."""
    if comparison.empty:
        return "not enough data"
    return robustness_verdicts(comparison.assign(block=0), ["block"], np.full(len(comparison), margin)).iloc[0]


def robustness_verdicts(tables: pd.DataFrame, by: list[str], margin: np.ndarray) -> pd.Series:
    """The verdict on each block of `tables` (`compare_moments`' rows, grouped by the columns `by`, each block's
    default first; `margin`: each row's block's equivalence margin), indexed by the blocks: 'not enough data' unless
    every level was tested (it and the default have MIN_SAMPLE scores: a verdict on the levels that happen to have
    enough would hide the others); 'sensitive' when any differs Holm-significantly from the default; 'robust' when
    every level's 95% interval of the difference lies within ±margin (an equivalence test: a large p alone is
    absence of evidence, not evidence of no effect); else 'inconclusive'. All blocks in one pass: the page judges
    ~100 on load."""
    later = tables.groupby(by, sort=False).cumcount().to_numpy() > 0
    margin = np.asarray(margin, dtype=float)
    low, high = tables["diff_low"].to_numpy(dtype=float), tables["diff_high"].to_numpy(dtype=float)
    # (identical paired scores have an interval, [0, 0], though their p is undefined)
    rows = pd.DataFrame({
        "default_first": ~later & (tables["test"] == "default").to_numpy(),
        "later": later,
        "untested": later & ((tables["test"] == NOT_TESTED).to_numpy() | np.isnan(low) | np.isnan(high)),
        "significant": later & tables["significant"].eq(True).to_numpy(),
        "outside": later & ~((low >= -margin) & (high <= margin) & np.isfinite(margin))})
    for column in by:
        rows[column] = tables[column].to_numpy()
    blocks = rows.groupby(by, sort=False).agg(
        {"default_first": "any", "later": "any", "untested": "any", "significant": "any", "outside": "any"})
    verdict = np.where(blocks["outside"], "inconclusive", "robust")
    verdict = np.where(blocks["significant"], "sensitive", verdict)
    enough = blocks["default_first"] & blocks["later"] & ~blocks["untested"]
    return pd.Series(np.where(enough, verdict, "not enough data"), index=blocks.index, dtype=object)
