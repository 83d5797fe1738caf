"""Who is Spy (WiS paper §3.4-3.5, §4.1): the ranking and the per-role figures of its leaderboard,
over the `rules: wis` Undercover games. An agent is `seats.agent_name` with its strategy; every seat of
a tournament counts.

Ranking = 100 + the sum of the agent's scores - the games it played: it grows (or shrinks) with every game, so
two agents that played different numbers of games are not comparable by it. Beside it, what it gains a game:
points per game = (ranking - 100) / games = the mean of (score - 1) over its seats (a seat without a score counts
0), with its 95% t interval over seats. Per role (spy, civilian, all):
win rate, mean score, vote accuracy (a civilian's votes for the spy / its votes cast, abstentions aside), foul rate
(fouls / speeches) and mean survival rounds.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import special

from engine import store
from engine.papers import seat_summary as summary_seats
from engine.papers.seat_summary import NO_STRATEGY, summed_seat_rows
from engine.papers.wis.games import UNDERCOVER
from engine.score.kept_tables import kept_per_state
from engine.score.precision import fixed_values
from engine.store.selection import ALL, Selection, agent_sql

START_POINTS = 100
PER_GAME = ["points_per_game", "points_per_game_lo", "points_per_game_hi"]
FIGURE_COLUMNS = ["agent", "strategy", "role", "games", "win_rate", "mean_score", "vote_accuracy", "foul_rate",
                  "survival_rounds"]


_METRICS = ("votes_cast", "votes_correct", "fouls", "speeches", "survival_rounds")
_ROLE_ORDER = "CASE role WHEN 'spy' THEN 0 WHEN 'civilian' THEN 1 ELSE 2 END"
# what the figures add up, per agent, strategy and role: seats, wins, the score's sum and the seats with one, the
# civilians' votes cast and right, fouls, speeches, and the survival rounds' sum and the seats with one
_SUMS = ("seats", "won", "score", "scored", "votes_cast", "votes_correct", "fouls", "speeches", "survival_rounds",
         "survived")


def _sums_sql(db: str | Path, selection: Selection, own_rows: bool = False) -> tuple[str, list]:
    """`_SUMS` per agent, strategy and role from the seat summary's rows of the selected `rules: wis` Undercover
    games (`summed_seat_rows`), and its parameters. With `own_rows` (the rows of the filter's agents only
    are kept) the stored rows answer an agent filter too: every seat of theirs is in the matches it picks."""
    rows, params = summed_seat_rows(db, replace(selection, agents=()) if own_rows else selection, UNDERCOVER.sql("k"))

    def total(name: str, civilian: bool = False) -> str:
        role = " AND role = 'civilian'" if civilian else ""
        return f"sum(total) FILTER (WHERE name = '{name}'{role})"

    return f"""
        SELECT agent, strategy, role, {total(summary_seats.SEAT)} AS seats, {total(summary_seats.WON)} AS won,
               {total(summary_seats.SCORE)} AS score,
               sum(seats) FILTER (WHERE name = '{summary_seats.SCORE}') AS scored,
               {total("votes_cast", civilian=True)} AS votes_cast,
               {total("votes_correct", civilian=True)} AS votes_correct, {total("fouls")} AS fouls,
               {total("speeches")} AS speeches, {total("survival_rounds")} AS survival_rounds,
               sum(seats) FILTER (WHERE name = 'survival_rounds') AS survived
        FROM ({rows}) GROUP BY agent, strategy, role""", params


def figures_by_role(db: str | Path, selection: Selection = ALL) -> pd.DataFrame:
    """One row per agent, strategy and role (spy, civilian, all), over the selected games: every seat
    counts once under its own role and once under "all". An agent filter keeps the rows of those agents (the
    Games page shows the chosen model's): every seat they held, which is every seat of theirs in the matches the
    filter picks, so the summary answers it (the other agents' rows of those matches would need the log)."""
    agents = list(selection.agents)
    with store.reading(db):
        sums, params = _sums_sql(db, selection, own_rows=True)
        table = store.query(db, f"""
            WITH seat AS ({sums}),
            parts AS (
                SELECT * FROM seat WHERE role IN ('spy', 'civilian')
                UNION ALL SELECT * REPLACE ('all' AS role) FROM seat)
            SELECT agent, strategy, role, sum(seats) AS games, sum(won) / sum(seats) AS win_rate,
                   sum(score) / nullif(sum(scored), 0) AS mean_score,
                   coalesce(sum(votes_correct), 0) / nullif(sum(votes_cast), 0) AS vote_accuracy,
                   coalesce(sum(fouls), 0) / nullif(sum(speeches), 0) AS foul_rate,
                   sum(survival_rounds) / nullif(sum(survived), 0) AS survival_rounds
            FROM parts {"WHERE agent IN (SELECT unnest(?))" if agents else ""} GROUP BY agent, strategy, role
            ORDER BY agent, strategy, {_ROLE_ORDER}""", params + ([agents] if agents else []))
    if table.empty:
        return pd.DataFrame(columns=FIGURE_COLUMNS)
    return table[FIGURE_COLUMNS].astype({"games": "int64"})


def _points(db: str | Path, selection: Selection) -> pd.DataFrame:
    sums, params = _sums_sql(db, selection)
    return store.query(db, f"""
        SELECT agent, strategy, coalesce(sum(score), 0) AS total, sum(seats) AS games
        FROM ({sums}) GROUP BY agent, strategy""", params)


def _per_game(db: str | Path, selection: Selection) -> pd.DataFrame:
    """Per agent and strategy: points per game (the mean of score - 1 over its seats) and its 95% t interval, read
    from the seats (the seat summary keeps sums, not the spread)."""
    where, params = selection.where("m")
    table = store.query(db, f"""
        SELECT {agent_sql("s")} AS agent, coalesce(s.strategy, '{NO_STRATEGY}') AS strategy, count(*) AS n,
               avg(coalesce(s.score, 0) - 1) AS points_per_game, stddev_samp(coalesce(s.score, 0)) AS sd
        FROM seats s JOIN matches m USING (match_id)
        WHERE {UNDERCOVER.sql("m")} AND ({where}) GROUP BY ALL""", params)
    n = table["n"].to_numpy(dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        half = special.stdtrit(n - 1, 0.975) * table["sd"].to_numpy(dtype=float) / np.sqrt(n)  # scipy's t.ppf
    return table.assign(points_per_game_lo=table["points_per_game"] - half,
                        points_per_game_hi=table["points_per_game"] + half).drop(columns=["n", "sd"])


@kept_per_state
def leaderboard(db: str | Path, selection: Selection = ALL) -> pd.DataFrame:
    """The WiS leaderboard over the selected games: ranking points and points per game first, then the figures of
    each role side by side."""
    with store.reading(db):
        points = _points(db, selection)
        if points.empty:
            return pd.DataFrame(columns=["agent", "strategy", "ranking", *PER_GAME, "games"])
        figures = figures_by_role(db, selection)
        points = points.merge(_per_game(db, selection), on=["agent", "strategy"], how="left")
    points["ranking"] = START_POINTS + points["total"] - points["games"]
    wide = figures.pivot_table(index=["agent", "strategy"], columns="role",
                               values=["win_rate", "mean_score", "vote_accuracy", "foul_rate", "survival_rounds"],
                               aggfunc="first", dropna=False)
    wide.columns = [f"{role}_{name}" if role != "all" else name for name, role in wide.columns]
    board = points[["agent", "strategy", "ranking", *PER_GAME, "games"]].merge(wide.reset_index(),
                                                                                on=["agent", "strategy"])
    order = ["agent", "strategy", "ranking", *PER_GAME, "games", "win_rate", "spy_win_rate", "civilian_win_rate",
             "mean_score", "spy_mean_score", "civilian_mean_score", "vote_accuracy", "foul_rate",
             "spy_foul_rate", "civilian_foul_rate", "survival_rounds", "spy_survival_rounds",
             "civilian_survival_rounds"]
    board = board[[c for c in order if c in board.columns]]
    return board.sort_values(["ranking", "agent"], ascending=[False, True], key=fixed_values).reset_index(drop=True)
