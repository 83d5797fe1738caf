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

from engine.metrics.magic_social import social_seats

START_POINTS = 100
FIGURE_COLUMNS = ["agent", "strategy", "role", "games", "win_rate", "mean_score", "vote_accuracy", "foul_rate",
                  "survival_rounds"]


def wis_seats(db: str | Path) -> pd.DataFrame:
    return social_seats(db, "m.game = 'undercover' AND json_extract_string(m.params, '$.rules') = 'wis'")


def _figures(rows: pd.DataFrame) -> dict[str, float]:
    def total(name: str) -> float:
        return float(rows[name].fillna(0).sum()) if name in rows else 0.0

    voters = rows[rows["role"] == "civilian"]  # the spy cannot vote for itself: accuracy is a civilian figure
    cast, speeches = float(voters["votes_cast"].fillna(0).sum()) if "votes_cast" in rows else 0.0, total("speeches")
    correct = float(voters["votes_correct"].fillna(0).sum()) if "votes_correct" in rows else 0.0
    return {
        "games": len(rows),
        "win_rate": float(rows["won"].fillna(False).astype(bool).mean()),
        "mean_score": float(rows["score"].mean()),
        "vote_accuracy": correct / cast if cast else float("nan"),
        "foul_rate": total("fouls") / speeches if speeches else float("nan"),
        "survival_rounds": float(rows["survival_rounds"].mean()) if "survival_rounds" in rows else float("nan"),
    }


def figures_by_role(db: str | Path) -> pd.DataFrame:
    """One row per agent, strategy and role (spy, civilian, all)."""
    seats = wis_seats(db)
    if seats.empty:
        return pd.DataFrame(columns=FIGURE_COLUMNS)
    rows = []
    for (agent, strategy), mine in seats.groupby(["agent", "strategy"], sort=True):
        for role, part in [("spy", mine[mine["role"] == "spy"]), ("civilian", mine[mine["role"] == "civilian"]),
                           ("all", mine)]:
            if len(part):
                rows.append({"agent": agent, "strategy": strategy, "role": role} | _figures(part))
    return pd.DataFrame(rows, columns=FIGURE_COLUMNS)


def leaderboard(db: str | Path) -> pd.DataFrame:
    """The WiS leaderboard: ranking points first, then the figures of each role side by side."""
    seats = wis_seats(db)
    figures = figures_by_role(db)
    if seats.empty:
        return pd.DataFrame(columns=["agent", "strategy", "ranking", "games"])
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
