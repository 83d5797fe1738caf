"""Who is Spy (seed 003 §3.4-3.5, §4.1): the ranking and the per-role figures of its leaderboard,
over the `rules: wis` Undercover games. An agent is `seats.label` with its strategy; every seat of
a tournament counts.

Ranking = 100 + the sum of the agent's scores - the games it played. Per role (spy, civilian, all):
win rate, mean score, vote accuracy (a civilian's votes for the spy / its votes cast, abstentions aside), foul rate
(fouls / speeches) and mean survival rounds.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from engine.metrics.magic_social import column, only_on, ratios, social_seats, won_flags
from engine.selection import ALL, Selection

START_POINTS = 100
FIGURE_COLUMNS = ["agent", "strategy", "role", "games", "win_rate", "mean_score", "vote_accuracy", "foul_rate",
                  "survival_rounds"]


def wis_seats(db: str | Path, filters: Selection = ALL) -> pd.DataFrame:
    """The seats of the selected `rules: wis` Undercover games."""
    where, params = filters.where("m")
    return social_seats(db, f"m.game = 'undercover' AND json_extract_string(m.params, '$.rules') = 'wis' AND {where}",
                        params)


def _figures_by_role(seats: pd.DataFrame) -> pd.DataFrame:
    """The figures of each agent, strategy and role (spy, civilian, all) from its seats, in one groupby:
    every seat counts once under its own role (spy or civilian) and once under "all"."""
    if seats.empty:
        return pd.DataFrame(columns=FIGURE_COLUMNS)
    civilian = seats["role"] == "civilian"  # the spy cannot vote for itself: accuracy is a civilian figure
    figures = pd.DataFrame({
        "agent": seats["agent"], "strategy": seats["strategy"], "won": won_flags(seats), "score": seats["score"],
        "votes_cast": only_on(civilian, column(seats, "votes_cast")),
        "votes_correct": only_on(civilian, column(seats, "votes_correct")),
        "fouls": column(seats, "fouls"), "speeches": column(seats, "speeches"),
        "survival_rounds": seats["survival_rounds"] if "survival_rounds" in seats else float("nan")})
    by_role = figures[seats["role"].isin(["spy", "civilian"])].assign(role=seats["role"])
    parts = pd.concat([by_role, figures.assign(role="all")])
    parts["role"] = pd.Categorical(parts["role"], categories=["spy", "civilian", "all"], ordered=True)
    table = parts.groupby(["agent", "strategy", "role"], sort=True, observed=True).agg(
        games=("won", "size"), win_rate=("won", "mean"), mean_score=("score", _series_mean),
        votes_cast=("votes_cast", "sum"), votes_correct=("votes_correct", "sum"), fouls=("fouls", "sum"),
        speeches=("speeches", "sum"), survival_rounds=("survival_rounds", _series_mean)).reset_index()
    table["role"] = table["role"].astype(str)
    table["vote_accuracy"] = ratios(table["votes_correct"], table["votes_cast"])
    table["foul_rate"] = ratios(table["fouls"], table["speeches"])
    return table[FIGURE_COLUMNS]


def _series_mean(values: pd.Series) -> float:
    """Series.mean per group (a call per agent and role, not per seat): the grouped mean sums in another
    order and can differ in the last bit from the figures published before."""
    return float(values.mean())


def figures_by_role(db: str | Path, filters: Selection = ALL) -> pd.DataFrame:
    """One row per agent, strategy and role (spy, civilian, all), over the selected games."""
    return _figures_by_role(wis_seats(db, filters))


def leaderboard(db: str | Path, filters: Selection = ALL) -> pd.DataFrame:
    """The WiS leaderboard over the selected games: ranking points first, then the figures of each role side by
    side."""
    seats = wis_seats(db, filters)
    if seats.empty:
        return pd.DataFrame(columns=["agent", "strategy", "ranking", "games"])
    figures = _figures_by_role(seats)
    points = seats.groupby(["agent", "strategy"]).agg(total=("score", "sum"), games=("score", "size")).reset_index()
    points["ranking"] = START_POINTS + points["total"] - points["games"]
    wide = figures.pivot_table(index=["agent", "strategy"], columns="role",
                               values=["win_rate", "mean_score", "vote_accuracy", "foul_rate", "survival_rounds"],
                               aggfunc="first")
    wide.columns = [f"{role}_{name}" if role != "all" else name for name, role in wide.columns]
    board = points[["agent", "strategy", "ranking", "games"]].merge(wide.reset_index(), on=["agent", "strategy"])
    order = ["agent", "strategy", "ranking", "games", "win_rate", "spy_win_rate", "civilian_win_rate", "mean_score",
             "spy_mean_score", "civilian_mean_score", "vote_accuracy", "foul_rate",
             "spy_foul_rate", "civilian_foul_rate", "survival_rounds", "spy_survival_rounds",
             "civilian_survival_rounds"]
    board = board[[c for c in order if c in board.columns]]
    return board.sort_values(["ranking", "agent"], ascending=[False, True]).reset_index(drop=True)
