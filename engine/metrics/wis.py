"""Who is Spy (WiS paper §3.4-3.5, §4.1): the ranking and the per-role figures of its leaderboard,
over the `rules: wis` Undercover games. An agent is `seats.label` with its strategy; every seat of
a tournament counts.

Ranking = 100 + the sum of the agent's scores - the games it played. Per role (spy, civilian, all):
win rate, mean score, vote accuracy (a civilian's votes for the spy / its votes cast, abstentions aside), foul rate
(fouls / speeches) and mean survival rounds.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from engine import store
from engine.metrics.magic_social import NO_STRATEGY
from engine.precision import fixed_values
from engine.selection import ALL, Selection, agent_sql
from engine.suites.wis import UNDERCOVER

START_POINTS = 100
FIGURE_COLUMNS = ["agent", "strategy", "role", "games", "win_rate", "mean_score", "vote_accuracy", "foul_rate",
                  "survival_rounds"]


_METRICS = ("votes_cast", "votes_correct", "fouls", "speeches", "survival_rounds")
_ROLE_ORDER = "CASE role WHEN 'spy' THEN 0 WHEN 'civilian' THEN 1 ELSE 2 END"


def _seats_sql(where: str) -> str:
    """One row per seat of the selected `rules: wis` Undercover games with its WiS metrics, for DuckDB to
    aggregate: the scorers return one row per agent and role, never the seats (79k games are 1 GB as a frame).
    A missing count is 0; vote accuracy is a civilian figure (the spy cannot vote for itself)."""
    pivot = ", ".join(f"sum(value) FILTER (WHERE name = '{n}') AS {n}" for n in _METRICS)
    return f"""
        WITH sel AS (
            SELECT s.match_id, s.seat, {agent_sql("s")} AS agent,
                   coalesce(s.strategy, '{NO_STRATEGY}') AS strategy, s.role, s.score,
                   CAST(coalesce(s.won, false) AS DOUBLE) AS won
            FROM seats s JOIN matches m USING (match_id)
            WHERE {UNDERCOVER.sql("m")} AND ({where})),
        per_seat AS (
            SELECT match_id, seat, {pivot} FROM metrics
            WHERE seat IS NOT NULL AND name IN {_METRICS} AND match_id IN (SELECT match_id FROM sel)
            GROUP BY match_id, seat)
        SELECT sel.agent, sel.strategy, sel.role, sel.score, sel.won,
               CASE WHEN sel.role = 'civilian' THEN coalesce(p.votes_cast, 0) ELSE 0 END AS votes_cast,
               CASE WHEN sel.role = 'civilian' THEN coalesce(p.votes_correct, 0) ELSE 0 END AS votes_correct,
               coalesce(p.fouls, 0) AS fouls, coalesce(p.speeches, 0) AS speeches, p.survival_rounds
        FROM sel LEFT JOIN per_seat p USING (match_id, seat)"""


def figures_by_role(db: str | Path, selection: Selection = ALL) -> pd.DataFrame:
    """One row per agent, strategy and role (spy, civilian, all), over the selected games: every seat
    counts once under its own role and once under "all"."""
    where, params = selection.where("m")
    table = store.query(db, f"""
        WITH seat AS ({_seats_sql(where)}),
        parts AS (
            SELECT * FROM seat WHERE role IN ('spy', 'civilian')
            UNION ALL SELECT * REPLACE ('all' AS role) FROM seat)
        SELECT agent, strategy, role, count(*) AS games, avg(won) AS win_rate, avg(score) AS mean_score,
               sum(votes_correct) / nullif(sum(votes_cast), 0) AS vote_accuracy,
               sum(fouls) / nullif(sum(speeches), 0) AS foul_rate, avg(survival_rounds) AS survival_rounds
        FROM parts GROUP BY agent, strategy, role
        ORDER BY agent, strategy, {_ROLE_ORDER}""", params)
    if table.empty:
        return pd.DataFrame(columns=FIGURE_COLUMNS)
    return table[FIGURE_COLUMNS].astype({"games": "int64"})


def _points(db: str | Path, selection: Selection) -> pd.DataFrame:
    where, params = selection.where("m")
    return store.query(db, f"""
        SELECT agent, strategy, coalesce(sum(score), 0) AS total, count(*) AS games
        FROM ({_seats_sql(where)}) GROUP BY agent, strategy""", params)


def leaderboard(db: str | Path, selection: Selection = ALL) -> pd.DataFrame:
    """The WiS leaderboard over the selected games: ranking points first, then the figures of each role side by
    side."""
    with store.reading(db):
        points = _points(db, selection)
        if points.empty:
            return pd.DataFrame(columns=["agent", "strategy", "ranking", "games"])
        figures = figures_by_role(db, selection)
    points["ranking"] = START_POINTS + points["total"] - points["games"]
    wide = figures.pivot_table(index=["agent", "strategy"], columns="role",
                               values=["win_rate", "mean_score", "vote_accuracy", "foul_rate", "survival_rounds"],
                               aggfunc="first", dropna=False)
    wide.columns = [f"{role}_{name}" if role != "all" else name for name, role in wide.columns]
    board = points[["agent", "strategy", "ranking", "games"]].merge(wide.reset_index(), on=["agent", "strategy"])
    order = ["agent", "strategy", "ranking", "games", "win_rate", "spy_win_rate", "civilian_win_rate", "mean_score",
             "spy_mean_score", "civilian_mean_score", "vote_accuracy", "foul_rate",
             "spy_foul_rate", "civilian_foul_rate", "survival_rounds", "spy_survival_rounds",
             "civilian_survival_rounds"]
    board = board[[c for c in order if c in board.columns]]
    return board.sort_values(["ranking", "agent"], ascending=[False, True], key=fixed_values).reset_index(drop=True)
