"""LLMArena's main table (LLMArena paper Table 1, docs/METRICS.md): per game a normalized score, and their average.

- `leaderboard(db)`: one row per agent; for the rated games (TicTacToe, ConnectFour, Texas Hold'em,
  Bargain) the TrueSkill mu replayed over the game's matches (`ratings.trueskill_table`: team members
  weigh 1, `trueskill.rate`'s default) as a share of the best agent's mu · 100, among the agents of the
  game's largest group linked by matches (LLMArena's arena pairs every model with every other; an agent
  that never met that group is blank); for Undercover the
  agent's win rate as the undercover (§3.1: the model under test against four fixed civilians; raw in
  `undercover_win_rate`) as a share of the best · 100, only for agents that played the undercover;
  for Bid and Hanabi the agent's average reward (raw in `bid_reward`, `hanabi_reward`; a Hanabi seat's
  reward is its team's score) as a share of the best average · 100; `average` = the mean of the
  agent's normalized scores over the games it played, `games` = how many. Games absent from the
  database are left out. Only LLMArena's own rules count (Undercover with `rules: llmarena`): MAgIC
  and Who-is-Spy games in the same database change nothing.

The analyses of §4 (hint ablation, ConnectFour rewards, poker actions vs win probability, Hanabi action
shares) are in `engine.papers.llmarena.analyses`; Bargain and Bid figures in `engine.papers.llmarena.negotiation`;
TrueSkill and Bradley-Terry tables of any game in `engine.score.ratings`.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pandas as pd

from engine import store
from engine.papers.llmarena.games import GAMES, OWN_RULES, REWARD_GAMES
from engine.score.kept_tables import kept
from engine.score.precision import fixed_values
from engine.score.ratings import trueskill_table
from engine.store.selection import ALL, Selection, agent_sql


def _games_played(db: str | Path, selection: Selection) -> set[str]:
    where, params = selection.where("m")
    df = store.query(db, f"SELECT DISTINCT game FROM matches m WHERE {where} AND game IN (SELECT unnest(?))",
                     [*params, list(GAMES)])
    return set(df["game"]) if not df.empty else set()


def average_rewards(db: str | Path, game: str, selection: Selection = ALL) -> pd.Series:
    """Per agent, its mean seat score over the selected finished matches of `game`."""
    where, params = selection.where("m")
    df = store.query(db, f"""
        SELECT {agent_sql("s")} AS agent, avg(s.score) AS reward
        FROM matches m JOIN seats s USING (match_id)
        WHERE {where} AND m.game = ? AND s.score IS NOT NULL GROUP BY ALL""", [*params, game])
    return df.set_index("agent")["reward"] if not df.empty else pd.Series(dtype=float)


def undercover_win_rates(db: str | Path, selection: Selection = ALL) -> pd.Series:
    """Per agent that played the undercover in the selected Undercover matches: its win rate in that role."""
    where, params = selection.where("m")
    df = store.query(db, f"""
        SELECT {agent_sql("s")} AS agent, avg(CASE WHEN s.won THEN 1.0 ELSE 0.0 END) AS win_rate
        FROM matches m JOIN seats s USING (match_id)
        WHERE {where} AND m.game = 'undercover' AND s.role = 'undercover' GROUP BY ALL""", params)
    return df.set_index("agent")["win_rate"] if not df.empty else pd.Series(dtype=float)


def _compared_skills(db: str | Path, game: str, selection: Selection) -> pd.Series:
    """Per agent of the game's largest group of agents linked by matches (`ratings.components`), its TrueSkill mu:
    skills of agents that never met that group are on another scale, and one that never met another agent has
    none. These games have one rule set, and the replay skips self-play itself: the selection without its
    `contested` flag rates the same matches and can reuse the replay saved next to the database."""
    table = trueskill_table(db, game, replace(selection, contested=False))
    return table[table["component"] == 1].set_index("agent")["mu"]


def _normalized(values: pd.Series) -> pd.Series:
    best = values.max()
    return values / best * 100 if best > 0 else values * float("nan")


def leaderboard(db: str | Path, selection: Selection = ALL) -> pd.DataFrame:
    """LLMArena's table over the selected matches of its own rules (every such match by default). Kept per
    database state (`kept_tables`): its TrueSkill columns are replays of the whole history."""
    return kept(db, f"llmarena {selection!r}", lambda: _leaderboard(db, selection))


def _leaderboard(db: str | Path, selection: Selection) -> pd.DataFrame:
    own = selection.within(OWN_RULES)
    with store.reading(db):
        present = _games_played(db, own)
        played = [g for g in GAMES if g in present]
        columns: dict[str, pd.Series] = {}
        for game in played:
            if game in REWARD_GAMES:
                reward = average_rewards(db, game, own)
                columns[f"{game}_reward"] = reward
                columns[game] = _normalized(reward)
            elif game == "undercover":
                rates = undercover_win_rates(db, own)
                columns["undercover_win_rate"] = rates
                columns[game] = _normalized(rates)
            else:
                columns[game] = _normalized(_compared_skills(db, game, selection))
    if not played:
        return pd.DataFrame()
    table = pd.DataFrame(columns)
    table["average"] = table[played].mean(axis=1)
    table["games"] = table[played].notna().sum(axis=1)
    raw = [f"{g}_reward" for g in played if g in REWARD_GAMES] + (["undercover_win_rate"] if "undercover" in played
                                                                   else [])
    ordered = played + ["average", "games"] + raw
    table = table[ordered].rename_axis("agent").reset_index()
    return table.sort_values(["average", "agent"], ascending=[False, True], ignore_index=True, key=fixed_values)
