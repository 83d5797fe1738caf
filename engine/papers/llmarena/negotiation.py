"""LLMArena's Bargain and Bid figures (LLMArena paper §3-4; docs/METRICS.md), per agent label and strategy, as queries
over the metrics the two games store per seat. Every seat of a two-player match is scored.

- `bargain_table`: games, mean reward (value of the items obtained, 0 without a deal), reward as a share
  of the agent's value of the whole pool, agreement rate, win rate (a deal and the higher value wins, no deal is a
  draw counting half; over contested matches: the one win rate of engine/papers/headline.py).
- `bid_table`: games, mean reward (v - bid for the winner, else 0), win rate, and the deviation from the
  equilibrium (bid - v/2)/(v/2): its mean and median (0 = equilibrium, 1 = bidding the whole valuation).

DuckDB adds them up: one row per agent and strategy leaves the database, never the seats, so memory stays
bounded however many matches there are.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from engine import store
from engine.papers.llmarena.analyses import agents_rows
from engine.papers.seat_summary import NO_STRATEGY
from engine.score.ratings import seat_outcomes_sql
from engine.store.selection import ALL, Selection, agent_sql

BARGAIN_COLUMNS = ["agent", "strategy", "games", "reward", "reward_share", "agreement_rate", "win_rate"]
BID_COLUMNS = ["agent", "strategy", "games", "reward", "win_rate", "bid_deviation", "bid_deviation_median"]

# each game's own figures: the per-seat metrics they read, and their aggregates over an agent's seats
# (a missing reward counts 0 in the share; a pool the agent values at 0 has no share)
BARGAIN_FIGURES = (("reward", "max_reward", "agreement"), {
    "reward_share": "avg(coalesce(reward, 0) / max_reward) FILTER (WHERE max_reward > 0)",
    "agreement_rate": "avg(agreement)"})
BID_FIGURES = (("reward", "bid_deviation"), {
    "bid_deviation": "avg(bid_deviation)", "bid_deviation_median": "median(bid_deviation)"})


def _per_agent(db: str | Path, game: str, selection: Selection, columns: list[str],
               figures: tuple[tuple[str, ...], dict[str, str]]) -> pd.DataFrame:
    """One row per agent and strategy over the selected matches of `game`: games (seats held), mean reward,
    win rate over contested matches (more than one agent at the table; each seat's `credit`,
    `ratings.OUTCOME`: the one win rate of engine/papers/headline.py) and the game's own `figures`; best reward
    first."""
    where, params = selection.where("m")
    outcomes, outcome_params = seat_outcomes_sql(selection.of_game(game))
    metrics, aggregates = figures
    pivot = ", ".join(f"sum(value) FILTER (WHERE name = '{n}') AS {n}" for n in metrics)
    names = ", ".join(f"'{n}'" for n in metrics)
    own = ", ".join(f"{sql} AS {name}" for name, sql in aggregates.items())
    table = store.query(db, f"""
        WITH sel AS (
            SELECT s.match_id, s.seat, {agent_sql("s")} AS agent,
                   coalesce(s.strategy, '{NO_STRATEGY}') AS strategy
            FROM seats s JOIN matches m USING (match_id)
            WHERE m.status = 'ok' AND m.game = ? AND ({where})),
        outcome AS (SELECT match_id, seat, credit FROM ({outcomes})),
        tables AS (SELECT match_id, count(DISTINCT agent) > 1 AS contested FROM sel GROUP BY match_id),
        per_seat AS (
            SELECT match_id, seat, {pivot} FROM metrics
            WHERE seat IS NOT NULL AND name IN ({names}) AND match_id IN (SELECT match_id FROM sel)
            GROUP BY match_id, seat)
        SELECT agent, strategy, count(*) AS games, avg(reward) AS reward,
               avg(credit) FILTER (WHERE contested) AS win_rate, {own}
        FROM sel JOIN tables USING (match_id) LEFT JOIN outcome USING (match_id, seat)
        LEFT JOIN per_seat USING (match_id, seat)
        GROUP BY agent, strategy ORDER BY reward DESC NULLS LAST, agent, strategy""", [game, *params, *outcome_params])
    if table.empty:
        return pd.DataFrame(columns=columns)
    return table[columns].astype({"games": "int64"})


@agents_rows  # a median is of the whole history, and the metrics of every match are read
def bargain_table(db: str | Path, selection: Selection = ALL) -> pd.DataFrame:
    return _per_agent(db, "bargain", selection, BARGAIN_COLUMNS, BARGAIN_FIGURES)


@agents_rows
def bid_table(db: str | Path, selection: Selection = ALL) -> pd.DataFrame:
    return _per_agent(db, "bid", selection, BID_COLUMNS, BID_FIGURES)
