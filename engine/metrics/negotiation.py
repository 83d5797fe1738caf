"""LLMArena's Bargain and Bid figures (seed 001 §3-4; SPEC.md), per agent label and strategy, as queries
over the metrics the two games store per seat. Every seat of a two-player match is scored.

- `bargain_table`: games, mean reward (value of the items obtained, 0 without a deal), reward as a share
  of the agent's value of the whole pool, agreement rate, win rate (a deal and the higher value).
- `bid_table`: games, mean reward (v - bid for the winner, else 0), win rate, and the deviation from the
  equilibrium (bid - v/2)/(v/2): its mean and median (0 = equilibrium, 1 = bidding the whole valuation).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from engine.metrics.magic_social import social_seats

BARGAIN_COLUMNS = ["agent", "strategy", "games", "reward", "reward_share", "agreement_rate", "win_rate"]
BID_COLUMNS = ["agent", "strategy", "games", "reward", "win_rate", "bid_deviation", "bid_deviation_median"]


def _mean(rows: pd.DataFrame, name: str) -> float:
    return float(rows[name].mean()) if name in rows and rows[name].notna().any() else float("nan")


def _win_rate(rows: pd.DataFrame) -> float:
    return float(rows["won"].fillna(False).astype(bool).mean())


def bargain_table(db: str | Path) -> pd.DataFrame:
    seats = social_seats(db, "m.game = 'bargain'")
    if seats.empty:
        return pd.DataFrame(columns=BARGAIN_COLUMNS)
    rows = []
    for (agent, strategy), mine in seats.groupby(["agent", "strategy"], sort=True):
        share = (mine["reward"] / mine["max_reward"].where(mine["max_reward"] > 0)).mean()
        rows.append({"agent": agent, "strategy": strategy, "games": len(mine), "reward": _mean(mine, "reward"),
                     "reward_share": float(share), "agreement_rate": _mean(mine, "agreement"),
                     "win_rate": _win_rate(mine)})
    return pd.DataFrame(rows, columns=BARGAIN_COLUMNS).sort_values("reward", ascending=False).reset_index(drop=True)


def bid_table(db: str | Path) -> pd.DataFrame:
    seats = social_seats(db, "m.game = 'bid'")
    if seats.empty:
        return pd.DataFrame(columns=BID_COLUMNS)
    rows = []
    for (agent, strategy), mine in seats.groupby(["agent", "strategy"], sort=True):
        deviations = mine["bid_deviation"].dropna() if "bid_deviation" in mine else pd.Series(dtype=float)
        rows.append({"agent": agent, "strategy": strategy, "games": len(mine), "reward": _mean(mine, "reward"),
                     "win_rate": _win_rate(mine),
                     "bid_deviation": float(deviations.mean()) if len(deviations) else float("nan"),
                     "bid_deviation_median": float(deviations.median()) if len(deviations) else float("nan")})
    return pd.DataFrame(rows, columns=BID_COLUMNS).sort_values("reward", ascending=False).reset_index(drop=True)
