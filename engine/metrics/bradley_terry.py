"""Bradley-Terry ratings: an order-free fit (Elo scale: 1000 + 400·log10 odds) on the pairwise outcomes between
the teams of each match (`outcomes.pairwise_outcomes`: the better rank wins, equal ranks tie, teammates are no
pair), with bootstrap confidence intervals over matches as FastChat does; `rank` separates only agents whose
intervals do not overlap.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import sparse

from engine import store
from engine.metrics.agent_figures import Summed, agent_figures, summed
from engine.metrics.kept_tables import kept
from engine.metrics.outcomes import components, narrowed, pairwise_outcomes, read_with_played
from engine.selection import ALL, Selection, agent_sql, cooperative_games
from engine.store.summaries import SETTINGS_SOURCE, SIDE

ELO_SCALE = 400 / np.log(10)
ELO_BASE = 1000.0
RIDGE = 1e-2  # keeps the fit finite when one agent always wins


def _fit(pair_a: np.ndarray, pair_b: np.ndarray, wins: np.ndarray, losses: np.ndarray, agents: np.ndarray
         ) -> np.ndarray:
    """Bradley-Terry strengths (natural log-odds, mean 0) maximising the weighted likelihood of several problems
    at once (one per component: problems x fits x pairs of `wins` and `losses`, their `pair_a` and `pair_b` agent
    numbers problems x pairs, `agents` each problem's count), padded to one size: a pair of a problem's padding has
    no weight and an agent of its padding no pair, so its strength stays 0. Newton steps on the ridge-penalised
    log-likelihood, which is strictly concave, halving a fit's step that does not improve it; a problem stops
    when its steps do, as if fitted alone. Stacked, because a week at a million matches is 15 components of 8
    agents and a loop over them spent its time in numpy's per-call overhead."""
    problems, fits, pairs = wins.shape
    n = int(agents.max())
    real = (wins + losses).any(1)  # problems x pairs: the pairs that are not padding
    sign = np.zeros((problems, pairs, n))
    where = np.nonzero(real)
    sign[where[0], where[1], pair_a[where]], sign[where[0], where[1], pair_b[where]] = 1.0, -1.0
    # a pair adds its weight to 4 cells of its problem's Hessian (a,a), (b,b), (a,b), (b,a): one sparse product for
    # every fit, where the pairs' dense outer products (pairs x agents x agents) took seconds and 350 MB at 120 agents
    base = (np.arange(problems) * n * n)[:, None]
    cells = np.stack([base + pair_a * n + pair_a, base + pair_b * n + pair_b, base + pair_a * n + pair_b,
                      base + pair_b * n + pair_a], -1)[real]
    from_pairs = sparse.csr_matrix((np.tile([1.0, 1.0, -1.0, -1.0], len(cells)),
                                    (cells.ravel(), np.repeat(np.flatnonzero(real), 4))),
                                   shape=(problems * n * n, problems * pairs))
    ridge = RIDGE * np.eye(n)
    signs_t = sign.transpose(0, 2, 1)

    def loss(theta: np.ndarray) -> np.ndarray:
        d = theta @ signs_t
        # wins·log(1 + e^-d) + losses·log(1 + e^d), as log(1 + e^d) = d + log(1 + e^-d): one logarithm, not two
        return ((wins + losses) * np.logaddexp(0, -d) + losses * d).sum(2) + 0.5 * RIDGE * (theta ** 2).sum(2)

    theta = np.zeros((problems, fits, n))
    current = loss(theta)
    going = np.ones(problems, bool)
    for _ in range(100):
        d = theta @ signs_t
        p = 1 / (1 + np.exp(-d))
        grad = (-wins * (1 - p) + losses * p) @ sign + RIDGE * theta
        weights = ((wins + losses) * p * (1 - p)).transpose(0, 2, 1).reshape(problems * pairs, fits)
        hessian = (from_pairs @ weights).reshape(problems, n, n, fits).transpose(0, 3, 1, 2) + ridge
        step = np.linalg.solve(hessian, grad[..., None])[..., 0] * going[:, None, None]
        scale = np.ones((problems, fits))
        for _ in range(30):
            trial = loss(theta - scale[..., None] * step)
            worse = trial > current + 1e-12
            if not worse.any():
                break
            scale[worse] /= 2
        theta, current = theta - scale[..., None] * step, np.minimum(trial, current)
        going &= np.abs(scale[..., None] * step).max((1, 2)) >= 1e-10
        if not going.any():
            break
    own = np.arange(n) < agents[:, None]  # problems x agents: the real ones
    mean = (theta * own[:, None, :]).sum(2, keepdims=True) / agents[:, None, None]
    return theta - mean


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


def rated_pairs(db: str | Path, selection: Selection, figures: pd.DataFrame | None = None
                ) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    """What `bradley_terry_table` reads of the selection: its pairwise outcomes (`outcomes.pairwise_outcomes`)
    and each agent's contested matches and wins (None: nothing to rate). Summed from the summaries when the
    selection is a sum of their rows and they are in step with the log (as the headline's figures, which the
    caller may pass as `figures`: its `agent_figures`), else read from the log: the same pairs, kinds numbered
    alike, either way."""
    with store.reading(db):
        # the pairwise summary has no fallback key: a selection without fallback moves reads the log
        if selection.without_fallbacks or not store.summaries_in_step(db):
            return read_with_played(db, None, selection, pairwise_outcomes)
        pairs = summed_pairs(db, summed(db, selection))
        played = agent_figures(db, selection) if figures is None else figures
    return (pairs, played[["agent", "matches", "wins"]]) if len(pairs) else None


def summed_pairs(db: str | Path, where: Summed) -> pd.DataFrame:
    """`outcomes.pairwise_outcomes` from the pairwise summary rows `where` (`agent_figures.summed`) selects:
    each agent of a pair named as the log names it (`agent_sql`), the pair turned so that `a` is the lesser name,
    seat pairs and scores summed per kind of match and pair into its weight and score as the log computes them
    (integer sums divided, so the same doubles), kinds alike (the same signature) pooled and numbered by
    signature. A seat without a role plays on its own unless the game is cooperative (`together`)."""
    with store.reading(db):  # a date range's rows are a temporary table of the connection
        source = where.source(db, "pairwise_summary")
        same = " AND ".join(f"n{{p}}.{c} IS NOT DISTINCT FROM k.{{p}}_{c}" for c in SIDE)
        return store.query(db, f"""
            WITH k AS (
              SELECT *, dense_rank() OVER (ORDER BY run_id, game, params::VARCHAR, preset, kind) AS part
              FROM (SELECT *, TRUE AS several FROM {source}) k  -- a pair: several agents by definition
              WHERE {where.condition} AND together = (game IN (SELECT unnest(?)))),
            who AS (SELECT DISTINCT {", ".join(f"a_{c} AS {c}" for c in SIDE)} FROM k
                    UNION SELECT DISTINCT {", ".join(f"b_{c}" for c in SIDE)} FROM k),
            names AS (SELECT *, {agent_sql("w", source=SETTINGS_SOURCE)} AS name
                      FROM (SELECT *, label AS agent FROM who) w),
            turned AS (
              SELECT k.part, k.matches, k.comparisons, k.pairs, least(na.name, nb.name) AS a,
                     greatest(na.name, nb.name) AS b,
                     CASE WHEN na.name < nb.name THEN k.score_sum ELSE k.pairs - k.score_sum END AS won
              FROM k JOIN names na ON {same.format(p="a")} JOIN names nb ON {same.format(p="b")}),
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


def fit_bradley_terry(pairs: pd.DataFrame, played: pd.DataFrame, n_boot: int = 200, seed: int = 0) -> pd.DataFrame:
    """`bradley_terry_table` of pairs already read (`rated_pairs`). Each component is set up from arrays, not from a
    DataFrame of its own (a week at a million matches has 15 components, whose pandas groupings took 230 of 550
    ms), and components of about one size are fitted together (`_fit`)."""
    component = pairs["a"].map(components(pairs)).to_numpy()
    names = {c: pairs[c].to_numpy(object) for c in ("a", "b")}
    numbers = {"kind": pairs["kind"].to_numpy(np.int64), "matches": pairs["matches"].to_numpy(np.int64),
               **{c: pairs[c].to_numpy(float) for c in ("weight", "score")}}
    problems = {number: _Problem.of(names["a"][own], names["b"][own], **{c: v[own] for c, v in numbers.items()},
                                    n_boot=n_boot, seed=seed)
                for number in np.unique(component) for own in [component == number]}
    by_size: dict[int, list] = {}  # components padded to at most twice their agents: a solve costs agents³
    for number, problem in problems.items():
        by_size.setdefault(len(problem.agents).bit_length(), []).append(number)
    thetas = {}
    for numbers_of_size in by_size.values():
        alike = [problems[number] for number in numbers_of_size]
        fitted = _fit(*_padded(alike), np.array([len(p.agents) for p in alike]))
        thetas.update({number: theta[:, :len(problems[number].agents)]
                       for number, theta in zip(numbers_of_size, fitted, strict=True)})
    table = pd.concat([problems[number].rated(thetas[number]).assign(component=number) for number in problems],
                      ignore_index=True)
    lo, hi, part = (table[c].to_numpy() for c in ("lo", "hi", "component"))
    table["rank"] = 1 + ((lo[None, :] > hi[:, None]) & (part[None, :] == part[:, None])).sum(1)
    table = table.merge(played, on="agent", how="left")
    table["matches"] = table["matches"].fillna(0).astype(int)
    return table.sort_values(["component", "rating", "agent"], ascending=[True, False, True],
                             ignore_index=True)[BRADLEY_TERRY_COLUMNS]


@dataclass(frozen=True)
class _Problem:
    """One connected component's fit: its agents (in the order of their names), its distinct pairs (agent numbers),
    the weights won and lost on them in the full data (row 0) and in each bootstrap resample (`wins`, `losses`:
    fits x pairs), and each agent's matches in each (`plays`: fits x agents)."""

    agents: np.ndarray
    pair_a: np.ndarray
    pair_b: np.ndarray
    wins: np.ndarray
    losses: np.ndarray
    plays: np.ndarray

    @classmethod
    def of(cls, a: np.ndarray, b: np.ndarray, kind: np.ndarray, matches: np.ndarray, weight: np.ndarray,
           score: np.ndarray, n_boot: int, seed: int) -> _Problem:
        """From one component's pair rows (`rated_pairs`' columns); matches resampled by kind."""
        agents = np.array(sorted(set(a) | set(b)))
        index = {name: i for i, name in enumerate(agents)}
        row_a, row_b = np.array([index[x] for x in a]), np.array([index[x] for x in b])
        # the distinct (a, b) pairs, numbered in the order of their names (the agents are numbered in that order)
        keys, cells = np.unique(np.stack([row_a, row_b], 1), axis=0, return_inverse=True)
        cells = cells.ravel()
        kinds, first_row, kind_of_row = np.unique(kind, return_index=True, return_inverse=True)  # numbered from 0
        kinds = matches[first_row]  # the matches of each kind (each row of a kind holds them)
        to_cells = np.zeros((len(a), len(keys)))
        to_cells[np.arange(len(a)), cells] = 1.0
        rng = np.random.default_rng(seed)
        draws = np.vstack([kinds, rng.multinomial(kinds.sum(), kinds / kinds.sum(), size=n_boot)]
                          )[:, kind_of_row.ravel()]
        plays = np.zeros((len(a), len(agents)))
        plays[np.arange(len(a)), row_a] = plays[np.arange(len(a)), row_b] = 1.0
        return cls(agents, keys[:, 0], keys[:, 1], draws @ ((weight * score)[:, None] * to_cells),
                   draws @ ((weight * (1 - score))[:, None] * to_cells), draws @ plays)

    def rated(self, thetas: np.ndarray) -> pd.DataFrame:
        """Agent, rating, lo, hi from the fits' strengths (fits x agents: the full data's, then the resamples')."""
        theta, boot, weights = thetas[0], thetas[1:], self.plays[1:]
        if not len(boot):  # no resample: the interval is the rating
            boot, weights = thetas[:1], self.plays[:1]
        # The scale has no origin of its own, so each resample is shifted onto the full fit, agents weighted by
        # the matches they have in it; an agent with no match in a resample has no strength there (not the
        # ridge's 0) and is left out of its percentiles.
        boot = boot - ((boot - theta) * weights).sum(1, keepdims=True) / weights.sum(1, keepdims=True)
        lo, hi = _percentiles(boot, weights > 0, (2.5, 97.5))
        return pd.DataFrame({"agent": self.agents, "rating": ELO_BASE + ELO_SCALE * theta,
                             "lo": ELO_BASE + ELO_SCALE * lo, "hi": ELO_BASE + ELO_SCALE * hi})


def _padded(problems: list[_Problem]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The problems' pair numbers (problems x pairs) and wins and losses (problems x fits x pairs), padded with
    pairs of agent 0 that weigh nothing."""
    pairs = max(len(p.pair_a) for p in problems)

    def pad(values: np.ndarray) -> np.ndarray:
        return np.pad(values, [(0, 0)] * (values.ndim - 1) + [(0, pairs - values.shape[-1])])

    return tuple(np.stack([pad(getattr(p, name)) for p in problems]) for name in ("pair_a", "pair_b", "wins",
                                                                                    "losses"))


def _percentiles(values: np.ndarray, kept: np.ndarray, qs: tuple[float, ...]) -> list[np.ndarray]:
    """`np.nanpercentile(np.where(kept, values, nan), qs, axis=0)` (linear interpolation, the same doubles) for
    every column at once, where numpy's own goes column by column (a third of a small fit's time)."""
    ordered = np.sort(np.where(kept, values, np.nan), axis=0)  # NaN sorts last
    count = kept.sum(0)
    out = []
    for q in qs:
        index = (count - 1) * np.true_divide(q, 100)
        below = np.floor(index)
        gamma = index - below
        low = np.clip(below, 0, None).astype(int)
        high = np.minimum(low + 1, np.maximum(count - 1, 0))
        a, b = (np.take_along_axis(ordered, i[None, :], 0)[0] for i in (low, high))
        diff = b - a
        value = np.where(gamma >= 0.5, b - diff * (1 - gamma), a + diff * gamma)
        out.append(np.where(count > 0, value, np.nan))
    return out
