"""A suite's headline table, Chatbot-Arena style, and the one definition of each number it shows (the
dashboard prints `DEFINITIONS` under the table, and every page that shows a win rate uses `contested`).

Only contested matches count: a match where every seat is the same agent (self-play) says nothing about
who is better, so it is left out of win rates and ratings. An agent with fewer than `MIN_MATCHES`
contested matches is provisional: shown, not ranked. Ranks come from the rating intervals: an agent's
rank is 1 + the number of ranked agents whose 95% interval lies wholly above its own, so agents whose
intervals overlap share a rank.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from engine import store
from engine.metrics import stats
from engine.metrics.ratings import bradley_terry_table
from engine.selection import ALL, Selection
from engine.suites import get_suite

MIN_MATCHES = 10
DEFINITIONS = {
    "rank": f"1 + the number of ranked agents whose rating interval lies wholly above this agent's (overlapping "
            f"intervals share a rank); agents with fewer than {MIN_MATCHES} contested matches are provisional "
            "and not ranked",
    "rating": "Bradley-Terry strength on the Elo scale (1000 = the average agent) fitted on the pairwise outcomes "
              "of contested matches, with its 95% bootstrap interval (matches resampled)",
    "win rate": "seats won / seats held, over contested matches (self-play, where every seat is the same agent, "
                "is left out), with its 95% Wilson interval; the same on every page",
    "matches": "contested matches in which the agent held at least one seat",
    "valid moves": "share of the agent's decisions whose answer was legal, possibly after a re-ask, without a "
                   "random fallback move (bots: always)",
    "fallback wins": "seats won in matches where the agent made at least one random fallback move: wins an LLM "
                     "may owe to chance",
    "cost": "dollars the agent's calls cost, per contested match (blank when some call had no price)",
}
COLUMNS = ["rank", "agent", "provisional", "rating", "rating_lo", "rating_hi", "win_rate", "win_lo", "win_hi",
           "matches", "seats", "wins", "valid_rate", "fallback_wins", "cost_per_match"]


def contested(selection: Selection, alias: str = "m") -> tuple[str, list]:
    """A SQL condition over `matches AS alias`: selected, finished and not self-play (two agents or more)."""
    return replace(selection, contested=True).where(alias)


def agent_figures(db: str | Path, selection: Selection = ALL, by_game: bool = False) -> pd.DataFrame:
    """Per agent (and game): contested matches, seats, seats won and the win rate with its Wilson interval, the
    mean seat score, decisions and the share that were valid, fallback wins, and cost per match (NaN when a
    call had no price)."""
    where, params = contested(selection)
    game = "m.game, " if by_game else ""
    table = store.query(db, f"""
        WITH picked AS (SELECT m.match_id, m.game FROM matches m WHERE {where}),
        moves AS (
          SELECT t.match_id, t.seat, count(*) AS decisions,
                 count(*) FILTER (WHERE coalesce(t.legal, true) AND NOT coalesce(t.fallback, false)) AS valid,
                 count(*) FILTER (WHERE t.fallback) AS fallbacks, sum(t.cost_usd) AS cost,
                 count(*) FILTER (WHERE t.cost_usd IS NULL AND t.tokens_in > 0) AS unpriced
          FROM turns t WHERE t.seat IS NOT NULL AND t.match_id IN (SELECT match_id FROM picked) GROUP BY ALL)
        SELECT {game}coalesce(s.label, s.agent) AS agent, count(DISTINCT s.match_id) AS matches, count(*) AS seats,
               count(*) FILTER (WHERE s.won) AS wins, avg(s.score) AS mean_score,
               sum(coalesce(x.decisions, 0)) AS decisions, sum(coalesce(x.valid, 0)) AS valid,
               count(*) FILTER (WHERE s.won AND x.fallbacks > 0) AS fallback_wins,
               sum(coalesce(x.cost, 0)) AS cost, sum(coalesce(x.unpriced, 0)) AS unpriced
        FROM picked m JOIN seats s USING (match_id)
        LEFT JOIN moves x ON x.match_id = s.match_id AND x.seat = s.seat
        GROUP BY ALL""", params)
    if table.empty:
        return table
    table["win_rate"] = table["wins"] / table["seats"]
    low, high = stats.wilson_interval(table["wins"], table["seats"])
    table["win_lo"], table["win_hi"] = np.clip(low, 0, 1), np.clip(high, 0, 1)
    table["valid_rate"] = np.where(table["decisions"] > 0, table["valid"] / table["decisions"].where(
        table["decisions"] > 0, 1), np.nan)
    table["cost_per_match"] = np.where(table["unpriced"] > 0, np.nan, table["cost"] / table["matches"])
    return table


def per_game(db: str | Path, filters: Selection = ALL) -> pd.DataFrame:
    """`agent_figures` per game: the table of a suite that defines none of its own (the games outside the papers)."""
    return agent_figures(db, filters, by_game=True)


def ranks(lo: pd.Series, hi: pd.Series, ranked: pd.Series) -> pd.Series:
    """1 + the number of ranked agents whose interval lies wholly above this one's; NA where not ranked."""
    above = [int(((lo > h) & ranked).sum()) + 1 for h in hi]
    return pd.Series(above, index=lo.index, dtype="Int64").where(ranked)


def headline(db: str | Path, suite: str, selection: Selection = ALL) -> pd.DataFrame:
    """One row per agent over the contested matches of suite `suite` in the selection, the ranked first (best
    rating first), then the provisional ones."""
    scope = selection.within(get_suite(suite).variants)
    figures = agent_figures(db, scope)
    if figures.empty:
        return pd.DataFrame(columns=COLUMNS)
    rated = bradley_terry_table(db, filters=scope)[["agent", "rating", "lo", "hi"]].rename(
        columns={"lo": "rating_lo", "hi": "rating_hi"})
    table = figures.merge(rated, on="agent", how="left")
    table["provisional"] = table["matches"] < MIN_MATCHES
    table["rank"] = ranks(table["rating_lo"], table["rating_hi"], ~table["provisional"] & table["rating"].notna())
    table = table.sort_values(["provisional", "rating", "win_rate", "agent"], ascending=[True, False, False, True],
                              na_position="last", ignore_index=True)
    return table[COLUMNS]
