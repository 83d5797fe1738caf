"""Skill ratings of agents from the stored match outcomes (SPEC.md, LLMArena seed 001).

Two views of the same outcomes, both read from `seats.rank` (1 = best). A match's teams are its seats
sharing a rank and a role (Undercover's four civilians; a TicTacToe draw is X and O tied at rank 1, two
teams); a match that is one team (cooperative Hanabi, a shared outcome in a game without roles) or one
agent against itself teaches nothing about skill and is left out.

- `trueskill_table`: TrueSkill (mu 25, sigma 25/3) replayed over the matches in the order they
  finished; every seat of a team plays with weight 1/team_size, so the team's performance is its
  members' mean and a 4-vs-1 game is fair to both sides.
- `bradley_terry_table`: an order-free Bradley-Terry fit (Elo scale: 1000 + 400·log10 odds) on the
  pairwise outcomes between teams of each match (the better rank wins, equal ranks tie), with bootstrap
  confidence intervals over matches as FastChat does; `rank` separates only agents whose intervals do not
  overlap.

An agent is `seats.label` (the model string unless the run spec names it).
"""

from __future__ import annotations

from itertools import groupby
from operator import itemgetter
from pathlib import Path

import numpy as np
import pandas as pd
import trueskill
from scipy.optimize import minimize

from engine import store

MU = 25.0
SIGMA = MU / 3
ELO_SCALE = 400 / np.log(10)
ELO_BASE = 1000.0
RIDGE = 1e-2  # keeps the fit finite when one agent always wins


def _seats_sql(game: str | None) -> tuple[str, list]:
    """The ranked seats of finished matches (of `game`, or all), one row per seat with its agent."""
    sql = """
        SELECT m.match_id, m.game, coalesce(m.finished_at, m.started_at) AS finished_at, s.seat, s.rank, s.won,
               coalesce(s.role, '') AS role, coalesce(s.label, s.agent) AS agent
        FROM matches m JOIN seats s USING (match_id)
        WHERE m.status = 'ok' AND s.rank IS NOT NULL"""
    if game is None:
        return sql, []
    return sql + " AND m.game = ?", [game]


def _played(db: str | Path, game: str | None) -> pd.DataFrame:
    """Per agent, the matches it played and the matches in which one of its seats won."""
    seats, params = _seats_sql(game)
    return store.query(db, f"""
        WITH s AS ({seats})
        SELECT agent, count(DISTINCT match_id) AS matches, count(DISTINCT match_id) FILTER (WHERE won) AS wins
        FROM s GROUP BY agent""", params)


def _team_members(db: str | Path, game: str | None) -> pd.DataFrame:
    """One row per match, team (rank and role) and agent with its number of seats, in the order matches finished."""
    seats, params = _seats_sql(game)
    return store.query(db, f"""
        WITH s AS ({seats})
        SELECT match_id, any_value(finished_at) AS finished_at, rank, role, agent, count(*) AS seats,
               sum(count(*)) OVER (PARTITION BY match_id, rank, role) AS team_size
        FROM s GROUP BY match_id, rank, role, agent ORDER BY finished_at, match_id, rank, role, agent""", params)


def _replay(members: pd.DataFrame, env: trueskill.TrueSkill) -> dict[str, trueskill.Rating]:
    """TrueSkill over the matches in order; an agent in several teams of one match moves by the sum of its
    copies' updates and keeps the smallest new sigma."""
    ratings = {agent: env.create_rating() for agent in members["agent"].unique()}
    rows = zip(members["match_id"].tolist(), members["rank"].tolist(), members["role"].tolist(),
               members["agent"].tolist(), (members["seats"] / members["team_size"]).tolist(), strict=True)
    for _, match in groupby(rows, key=itemgetter(0)):
        teams: dict[tuple[int, str], list[tuple[str, float]]] = {}
        for _, rank, role, agent, weight in match:
            teams.setdefault((rank, role), []).append((agent, weight))
        if len(teams) < 2 or len({a for team in teams.values() for a, _ in team}) < 2:
            continue  # one team, or an agent against itself: nothing learned
        keys = sorted(teams)
        new = env.rate([tuple(ratings[a] for a, _ in teams[k]) for k in keys], ranks=[rank for rank, _ in keys],
                       weights=[tuple(w for _, w in teams[k]) for k in keys])
        moved: dict[str, list[trueskill.Rating]] = {}
        for k, group in zip(keys, new, strict=True):
            for (agent, _), rating in zip(teams[k], group, strict=True):
                moved.setdefault(agent, []).append(rating)
        for agent, copies in moved.items():
            old = ratings[agent]
            mu = old.mu + sum(c.mu - old.mu for c in copies)
            ratings[agent] = env.create_rating(mu, min(c.sigma for c in copies))
    return ratings


def trueskill_table(db: str | Path, game: str | None = None) -> pd.DataFrame:
    """TrueSkill of every agent over the matches of `game` (all games when None), best conservative first."""
    columns = ["agent", "mu", "sigma", "conservative", "matches", "wins"]
    members = _team_members(db, game)
    if members.empty:
        return pd.DataFrame({c: [] for c in columns})
    env = trueskill.TrueSkill(mu=MU, sigma=SIGMA, draw_probability=0.1)
    ratings = _replay(members, env)
    table = pd.DataFrame([{"agent": a, "mu": r.mu, "sigma": r.sigma} for a, r in ratings.items()])
    table["conservative"] = table["mu"] - 3 * table["sigma"]
    table = table.merge(_played(db, game), on="agent", how="left")
    table[["matches", "wins"]] = table[["matches", "wins"]].fillna(0).astype(int)
    return table.sort_values(["conservative", "agent"], ascending=[False, True], ignore_index=True)[columns]


def pairwise_outcomes(db: str | Path, game: str | None = None) -> pd.DataFrame:
    """One row per match and pair of different agents in different teams: `a`, `b`, the share of the
    match's comparisons it stands for (`weight`, a match weighs 1) and `score` (1 a wins, 0.5 tie)."""
    seats, params = _seats_sql(game)
    return store.query(db, f"""
        WITH s AS ({seats}),
        pairs AS (
          SELECT x.match_id, least(x.agent, y.agent) AS a, greatest(x.agent, y.agent) AS b,
                 CASE WHEN x.rank = y.rank THEN 0.5
                      WHEN (x.rank < y.rank) = (x.agent < y.agent) THEN 1.0 ELSE 0.0 END AS score
          FROM s x JOIN s y ON x.match_id = y.match_id AND x.seat < y.seat AND x.agent <> y.agent
                           AND NOT (x.rank = y.rank AND x.role = y.role))
        SELECT match_id, a, b, count(*) / sum(count(*)) OVER (PARTITION BY match_id) AS weight,
               avg(score) AS score
        FROM pairs GROUP BY match_id, a, b ORDER BY match_id, a, b""", params)


def _fit(a: np.ndarray, b: np.ndarray, wins: np.ndarray, losses: np.ndarray, n: int, start: np.ndarray) -> np.ndarray:
    """Bradley-Terry strengths (natural log-odds, mean 0) maximising the weighted likelihood of the pairs."""

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        d = theta[a] - theta[b]
        nll = wins * np.logaddexp(0, -d) + losses * np.logaddexp(0, d)
        grad_d = -wins / (1 + np.exp(d)) + losses / (1 + np.exp(-d))
        grad = np.bincount(a, grad_d, n) - np.bincount(b, grad_d, n) + RIDGE * theta
        return float(nll.sum() + 0.5 * RIDGE * theta @ theta), grad

    theta = minimize(loss, start, jac=True, method="L-BFGS-B").x
    return theta - theta.mean()


def bradley_terry_table(db: str | Path, game: str | None = None, n_boot: int = 200, seed: int = 0) -> pd.DataFrame:
    """Bradley-Terry ratings on the Elo scale with 95% bootstrap intervals (matches resampled); rank =
    1 + the number of agents whose lower bound is above this agent's upper bound."""
    columns = ["agent", "rating", "lo", "hi", "rank", "matches"]
    pairs = pairwise_outcomes(db, game)
    if pairs.empty:
        return pd.DataFrame({c: [] for c in columns})
    agents = np.array(sorted(set(pairs["a"]) | set(pairs["b"])))
    index = {name: i for i, name in enumerate(agents)}
    a = pairs["a"].map(index).to_numpy()
    b = pairs["b"].map(index).to_numpy()
    weight = pairs["weight"].to_numpy()
    score = pairs["score"].to_numpy()
    match_codes, match_ids = pd.factorize(pairs["match_id"])
    n = len(agents)
    theta = _fit(a, b, weight * score, weight * (1 - score), n, np.zeros(n))
    rng = np.random.default_rng(seed)
    draws = rng.multinomial(len(match_ids), np.full(len(match_ids), 1 / len(match_ids)), size=n_boot)
    boot = np.array([_fit(a, b, w * weight * score, w * weight * (1 - score), n, theta)
                     for w in draws[:, match_codes]]) if n_boot else theta[None, :]
    lo, hi = np.percentile(boot, [2.5, 97.5], axis=0)
    table = pd.DataFrame({"agent": agents, "rating": ELO_BASE + ELO_SCALE * theta,
                          "lo": ELO_BASE + ELO_SCALE * lo, "hi": ELO_BASE + ELO_SCALE * hi})
    table["rank"] = [1 + int((table["lo"] > h).sum()) for h in table["hi"]]
    table = table.merge(_played(db, game), on="agent", how="left")
    table["matches"] = table["matches"].fillna(0).astype(int)
    return table.sort_values(["rating", "agent"], ascending=[False, True], ignore_index=True)[columns]
