"""LLMArena's Bargain and Bid figures (seed 001 §3-4; SPEC.md), per agent label and strategy, as queries
over the metrics the two games store per seat. Every seat of a two-player match is scored.

- `bargain_table`: games, mean reward (value of the items obtained, 0 without a deal), reward as a share
  of the agent's value of the whole pool, agreement rate, win rate (a deal and the higher value wins, no deal is a
  draw counting half; over contested matches: the one win rate of engine/headline.py).
- `bid_table`: games, mean reward (v - bid for the winner, else 0), win rate, and the deviation from the
  equilibrium (bid - v/2)/(v/2): its mean and median (0 = equilibrium, 1 = bidding the whole valuation).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd

from engine import store
from engine.metrics.magic_social import column, social_seats
from engine.metrics.ratings import seat_outcomes_sql
from engine.selection import ALL, Selection

BARGAIN_COLUMNS = ["agent", "strategy", "games", "reward", "reward_share", "agreement_rate", "win_rate"]
BID_COLUMNS = ["agent", "strategy", "games", "reward", "win_rate", "bid_deviation", "bid_deviation_median"]


def _mean(rows: pd.DataFrame, name: str) -> float:
    return float(rows[name].mean()) if name in rows and rows[name].notna().any() else float("nan")


def _win_rate(rows: pd.DataFrame) -> float:
    """(Seats won + half the seats drawn) / seats held over contested matches: the one definition of
    engine/headline.py, from each seat's `credit` (`ratings.OUTCOME`)."""
    contested = rows[rows["contested"]]
    return float(contested["credit"].mean()) if len(contested) else float("nan")


def _per_agent(db: str | Path, game: str, filters: Selection, columns: list[str],
               figures: Callable[[pd.DataFrame], dict[str, float]]) -> pd.DataFrame:
    """One row per agent and strategy over the selected matches of `game`: games, mean reward, win rate, and
    the game's own `figures` of the agent's seats; best reward first."""
    where, params = filters.where("m")
    seats = social_seats(db, f"m.game = '{game}' AND {where}", params)
    if seats.empty:
        return pd.DataFrame(columns=columns)
    outcomes, outcome_params = seat_outcomes_sql(filters.of_game(game))
    credits = store.query(db, f"SELECT match_id, seat, credit FROM ({outcomes})", outcome_params)
    seats = seats.merge(credits, on=["match_id", "seat"], how="left")
    seats["contested"] = seats.groupby("match_id")["agent"].transform("nunique") > 1  # self-play: one agent
    rows = [{"agent": agent, "strategy": strategy, "games": len(mine), "reward": _mean(mine, "reward"),
             "win_rate": _win_rate(mine)} | figures(mine)
            for (agent, strategy), mine in seats.groupby(["agent", "strategy"], sort=True)]
    return pd.DataFrame(rows, columns=columns).sort_values("reward", ascending=False).reset_index(drop=True)


def _bargain_figures(mine: pd.DataFrame) -> dict[str, float]:
    pool = column(mine, "max_reward")
    share = (column(mine, "reward") / pool.where(pool > 0)).mean()
    return {"reward_share": float(share), "agreement_rate": _mean(mine, "agreement")}


def _bid_figures(mine: pd.DataFrame) -> dict[str, float]:
    deviations = mine["bid_deviation"].dropna() if "bid_deviation" in mine else pd.Series(dtype=float)
    return {"bid_deviation": float(deviations.mean()) if len(deviations) else float("nan"),
            "bid_deviation_median": float(deviations.median()) if len(deviations) else float("nan")}


def bargain_table(db: str | Path, filters: Selection = ALL) -> pd.DataFrame:
    return _per_agent(db, "bargain", filters, BARGAIN_COLUMNS, _bargain_figures)


def bid_table(db: str | Path, filters: Selection = ALL) -> pd.DataFrame:
    return _per_agent(db, "bid", filters, BID_COLUMNS, _bid_figures)
