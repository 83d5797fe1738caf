"""Bradley-Terry ratings: an order-free fit (Elo scale: 1000 + 400·log10 odds) on the pairwise outcomes between
the teams of each match (`outcomes.pairwise_outcomes`: the better rank wins, equal ranks tie, teammates are no
pair), with bootstrap confidence intervals over matches as FastChat does; `rank` separates only agents whose
intervals do not overlap.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from engine import store
from engine.score.agent_figures import Summed, summed, summed_matches_and_wins_sql
from engine.score.kept_tables import kept
from engine.score.outcomes import component_numbers, narrowed, numbered_agents, pairwise_outcomes, read_with_played
from engine.store.selection import ALL, Selection, cooperative_games

ELO_SCALE = 400 / np.log(10)
ELO_BASE = 1000.0
RIDGE = 1e-2  # keeps the fit finite when one agent always wins


# Newton converges quadratically: after a full step below this (0.17 Elo), what is left is of its square
STEP_DONE = 1e-3
# a bootstrap resample's fit stops a step sooner (1.7 Elo; what is left, about its square, is far below a
# percentile's own error over 200 resamples)
RESAMPLE_STEP_DONE = 1e-2
CELLS_AT_ONCE = 1_000_000  # the cells of Hessians and pairs fitted at once (8 MB): the memory a fit holds is bounded


BRADLEY_TERRY_COLUMNS = ["agent", "rating", "lo", "hi", "rank", "component", "matches"]


def bradley_terry_table(db: str | Path, game: str | None = None, selection: Selection = ALL, n_boot: int = 200,
                        seed: int = 0) -> pd.DataFrame:
    """Bradley-Terry ratings on the Elo scale with 95% bootstrap intervals (matches resampled: the number of
    matches of each kind drawn from a multinomial, which is the same as drawing matches one by one), fitted
    apart for each connected `component` of the who-played-whom graph (1000 = the average agent of its
    component; agents of different components never met, so their ratings are not comparable);
    rank = 1 + the number of agents of its component whose lower bound is above this agent's upper bound.
    Kept per database state (`kept_tables`): the bootstrap's 200 fits are what cost."""
    selection = narrowed(game, selection)
    if selection is None:
        return pd.DataFrame({c: [] for c in BRADLEY_TERRY_COLUMNS})

    def fitted() -> pd.DataFrame:
        rated = rated_pairs(db, selection)
        return pd.DataFrame({c: [] for c in BRADLEY_TERRY_COLUMNS}) if rated is None else \
            fit_bradley_terry(*rated, n_boot, seed)

    return kept(db, f"bradley-terry {n_boot} {seed} {selection!r}", fitted)


def rated_pairs(db: str | Path, selection: Selection) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    """What `bradley_terry_table` reads of the selection: its pairwise outcomes (`outcomes.pairwise_outcomes`)
    and each agent's contested matches and wins (`rated_read`). Summed from the summaries when the selection is a
    sum of their rows and they are in step with the log (the two read at once), else read from the log: the same
    pairs, kinds numbered alike, either way."""
    with store.reading(db):
        # the pairwise summary has no fallback key: a selection without fallback moves reads the log
        if selection.without_fallbacks or not store.summaries_in_step(db):
            return read_with_played(db, None, selection, pairwise_outcomes)
        where = summed(db, selection)
        return rated_read(*store.queries_at_once(db, [summed_pairs_sql(db, where),
                                                      summed_matches_and_wins_sql(db, where)]))


def rated_read(pairs: pd.DataFrame, played: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    """The pairs and each agent's contested matches and wins (`played`: those columns of `agent_figures` or more)
    as a fit reads them; None when no pair is there to rate."""
    return (pairs, played[["agent", "matches", "wins"]]) if len(pairs) else None


def summed_pairs(db: str | Path, where: Summed) -> pd.DataFrame:
    """`outcomes.pairwise_outcomes` from the pairwise summary rows `where` (`agent_figures.summed`) selects
    (`summed_pairs_sql`)."""
    with store.reading(db):  # a date range's rows are a temporary table of the connection
        return store.query(db, *summed_pairs_sql(db, where))


def summed_pairs_sql(db: str | Path, where: Summed) -> tuple[str, list]:
    """The query of `outcomes.pairwise_outcomes` from the pairwise summary rows `where` selects, and its parameters:
    each agent of a pair by its name (`a_agent_name`, `b_agent_name`), the pair turned so that `a` is the lesser name,
    seat pairs and scores summed per kind of match and pair into its weight and score as the log computes them
    (integer sums divided, so the same doubles), kinds alike (the same signature) pooled and numbered by
    signature. A seat without a role plays on its own unless the game is cooperative (`together`). Inside a
    `store.reading` block: an agent filter's rows are a temporary table of its connection."""
    source = where.source(db, "pairwise_summary")
    return (f"""
            WITH k AS (
              SELECT *, dense_rank() OVER (ORDER BY run_id, game, params::VARCHAR, preset, kind) AS part
              FROM (SELECT *, TRUE AS several FROM {source}) k  -- a pair: several agents by definition
              WHERE {where.condition} AND together = (game IN (SELECT unnest(?)))),
            turned AS (
              SELECT k.part, k.matches, k.comparisons, k.pairs, least(k.a_agent_name, k.b_agent_name) AS a,
                     greatest(k.a_agent_name, k.b_agent_name) AS b,
                     CASE WHEN k.a_agent_name < k.b_agent_name THEN k.score_sum ELSE k.pairs - k.score_sum END AS won
              FROM k),
            per_match AS (
              SELECT part, a, b, any_value(matches) AS matches, sum(pairs) / any_value(comparisons) AS weight,
                     sum(won) / sum(pairs) AS score
              FROM turned GROUP BY part, a, b),
            signed AS (
              SELECT part, any_value(matches) AS matches, sum(hash(a, b, weight, score)::HUGEINT) AS signature
              FROM per_match GROUP BY part),
            kinds AS (
              SELECT row_number() OVER (ORDER BY signature) - 1 AS kind, sum(matches)::BIGINT AS matches,
                     min(part) AS example
              FROM signed GROUP BY signature)
            SELECT k.kind, k.matches, p.a, p.b, p.weight, p.score
            FROM kinds k JOIN per_match p ON p.part = k.example ORDER BY kind, a, b""",
            [*where.params, cooperative_games()])


def fit_bradley_terry(pairs: pd.DataFrame, played: pd.DataFrame, n_boot: int = 200, seed: int = 0,
                      first_only: bool = False) -> pd.DataFrame:
    """`bradley_terry_table` of pairs already read (`rated_pairs`), each component fitted apart. With `first_only`,
    only component 1 is resampled: the others get their ratings without an interval (lo and hi NaN, so no interval
    ranks them apart: rank 1 each), as the headline ranks the first alone."""
    names, (a, b) = numbered_agents(pairs)
    matches = pairs["matches"].to_numpy(np.int64)
    component = component_numbers(a, b, matches, len(names))
    kind, weight, score = pairs["kind"].to_numpy(np.int64), *(pairs[c].to_numpy(float) for c in ("weight", "score"))
    order = np.argsort(component, kind="stable")  # each component's agents together, in name order
    fitted = []
    for number in np.unique(component):
        rows, agents = np.flatnonzero(component[a] == number), np.flatnonzero(component == number)
        resamples = 0 if first_only and number != 1 else n_boot
        fitted.append(_fitted_component(np.searchsorted(agents, a[rows]), np.searchsorted(agents, b[rows]),
                                        len(agents), kind[rows], matches[rows], weight[rows], score[rows],
                                        resamples, seed))
    rating, lo, hi = (ELO_BASE + ELO_SCALE * np.concatenate(column) for column in zip(*fitted, strict=True))
    table = pd.DataFrame({"agent": names[order], "rating": rating, "lo": lo, "hi": hi, "component": component[order]})
    lo, hi, part = (table[c].to_numpy() for c in ("lo", "hi", "component"))
    table["rank"] = 1 + ((lo[None, :] > hi[:, None]) & (part[None, :] == part[:, None])).sum(1)
    table = table.merge(played, on="agent", how="left")
    table["matches"] = table["matches"].fillna(0).astype(int)
    return table.sort_values(["component", "rating", "agent"], ascending=[True, False, True],
                             ignore_index=True)[BRADLEY_TERRY_COLUMNS]


def _fitted_component(a: np.ndarray, b: np.ndarray, n: int, kind: np.ndarray, matches: np.ndarray,
                      weight: np.ndarray, score: np.ndarray, n_boot: int, seed: int
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Strengths (mean 0) of one component's `n` agents and their 95% bootstrap bounds (NaN without resamples).
    A resample draws the component's matches by kind from a multinomial (the same as drawing matches one by one)
    and starts from the full fit. Its scale has no origin of its own, so it is shifted onto the full fit, agents
    weighted by their pair rows in it; an agent with no match in a resample is left out of its percentiles."""
    cell, cell_of_row = np.unique(a * n + b, return_inverse=True)  # the distinct pairs, a before b
    at_once = max(1, CELLS_AT_ONCE // (n * n + len(cell)))  # fits whose Hessians and pairs fit in CELLS_AT_ONCE

    def fit(counts: np.ndarray, start: np.ndarray, done: float) -> np.ndarray:  # counts: fits x rows
        parts = []
        for i in range(0, len(counts), at_once):
            won, lost = (_summed(counts[i:i + at_once], weight * share, cell_of_row, len(cell))
                         for share in (score, 1 - score))
            parts.append(_newton(cell // n, cell % n, won, lost, start[i:i + at_once], done))
        return np.concatenate(parts)

    full = fit(matches[None].astype(float), np.zeros((1, n)), STEP_DONE)
    rating = full[0] - full[0].mean()
    if not n_boot:
        return rating, np.full(n, np.nan), np.full(n, np.nan)
    _, first_row, kind_of_row = np.unique(kind, return_index=True, return_inverse=True)
    per_kind = matches[first_row]
    counts = np.random.default_rng(seed).multinomial(per_kind.sum(), per_kind / per_kind.sum(),
                                                     size=n_boot)[:, kind_of_row].astype(float)
    boot = fit(counts, np.repeat(full, n_boot, 0), RESAMPLE_STEP_DONE)
    boot -= boot.mean(1, keepdims=True)
    rows_played = _summed(counts, 1.0, a, n) + _summed(counts, 1.0, b, n)  # fits x agents
    boot -= ((boot - rating) * rows_played).sum(1, keepdims=True) / rows_played.sum(1, keepdims=True)
    everyone = (rows_played > 0).all()  # numpy's nanpercentile goes column by column: only where it must
    lo, hi = (np.percentile if everyone else np.nanpercentile)(np.where(rows_played > 0, boot, np.nan), (2.5, 97.5),
                                                              axis=0)
    return rating, lo, hi


def _summed(counts: np.ndarray, per_row: np.ndarray | float, index: np.ndarray, size: int) -> np.ndarray:
    """Each fit's `counts` (fits x rows) times `per_row`, summed by the rows' `index` (0 to size - 1): fits x size."""
    at = np.arange(len(counts))[:, None] * size + index
    return np.bincount(at.ravel(), (counts * per_row).ravel(), len(counts) * size).reshape(len(counts), size)


def _newton(a: np.ndarray, b: np.ndarray, won: np.ndarray, lost: np.ndarray, theta: np.ndarray,
            done: float) -> np.ndarray:
    """Bradley-Terry strengths (natural log-odds) of several fits of the same pairs `a` against `b` (each pair
    once): fit i wins and loses them with weights `won[i]` and `lost[i]`, starting from `theta[i]`. Newton steps
    on the ridge-penalised likelihood (strictly concave), a fit's step halved while it does not improve; a fit
    stops once a full step is below `done` or any step below 1e-10, so its strengths do not depend on the others'."""
    theta, n = theta.copy(), theta.shape[1]
    agents = np.arange(n)
    sides = np.eye(n)[a] - np.eye(n)[b], np.eye(n)[a] + np.eye(n)[b]  # pairs x agents: +a - b, a + b

    def loss(t: np.ndarray, w: np.ndarray, lo: np.ndarray) -> np.ndarray:
        d = t[:, a] - t[:, b]  # log(1 + e^d) = d + log(1 + e^-d): one logarithm
        return ((w + lo) * np.logaddexp(0, -d) + lo * d).sum(1) + 0.5 * RIDGE * (t ** 2).sum(1)

    current, going = loss(theta, won, lost), np.arange(len(theta))
    for _ in range(100):
        if not going.size:
            break
        t, w, lo = theta[going], won[going], lost[going]
        p = 1 / (1 + np.exp(t[:, b] - t[:, a]))  # the chance that a beats b
        slope, curve = lo * p - w * (1 - p), (w + lo) * p * (1 - p)
        hessian = np.zeros((len(going), n, n))
        hessian[:, a, b] = hessian[:, b, a] = -curve
        hessian[:, agents, agents] = RIDGE + curve @ sides[1]
        step = np.linalg.solve(hessian, (RIDGE * t + slope @ sides[0])[..., None])[..., 0]
        scale, before = np.ones(len(going)), current[going]
        for _ in range(30):
            trial = loss(t - scale[:, None] * step, w, lo)
            worse = trial > before + 1e-12
            if not worse.any():
                break
            scale[worse] /= 2
        theta[going], current[going] = t - scale[:, None] * step, np.minimum(trial, before)
        largest = np.abs(step).max(1)
        going = going[~(((scale == 1) & (largest < done)) | (scale * largest < 1e-10))]
    return theta
