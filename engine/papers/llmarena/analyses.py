"""LLMArena's analyses (LLMArena paper §3-4, docs/METRICS.md) as queries over the stored matches of the sequential
games. Everything they need was stored at play time: the `hint` parameter with the match, each
decision's retries and fallback in the turn log, ConnectFour's per-move reward in `turns.reward`, the
Monte-Carlo win probability of every Hold'em decision as the metric `win_prob:<action>`, and Hanabi's
per-seat counts of plays, reveals and discards as metrics.

An agent is `seats.agent_name` (`selection.agent_sql`). Each analysis reads the matches
selected by `selection` (run, preset, date; every finished match by default); with an agent filter, the rows of its
agents (`agents_rows`). The hint ablation sums `agent_summary` rows (`agent_figures.summed`); the others read turns or
metrics of every match, so each table is kept per database state (engine/score/kept_tables.py) and the run command
computes the default views after a run (engine/present/default_views.py)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pandas as pd

from engine import store
from engine.papers.llmarena.games import HINT_GAMES
from engine.score.agent_figures import Summed, summed
from engine.score.kept_tables import kept_per_state
from engine.store.selection import ALL, Selection, agent_sql, cooperative_games

WIN_PROB_BINS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)


def _empty(columns: list[str]) -> pd.DataFrame:
    return pd.DataFrame({c: [] for c in columns})


def agents_rows(scorer: Callable[..., pd.DataFrame]) -> Callable[..., pd.DataFrame]:
    """`scorer(db, ..., selection)`, a table of one row per agent (and more keys), kept per database state
    (`kept_per_state`) over the selection without its agent filter, and cut to the filter's agents: an agent's row
    sums its own seats, which are all in the matches the filter picks, so its figures are the same either way, and
    the Games page's view of one model is its row of the every-model view the run command computed
    (engine/present/default_views.py) instead of a second read of the log, which is slow on a large database. The
    other agents of its matches are left out: their rows there would not be theirs."""
    scorer_per_state = kept_per_state(scorer)
    signature = inspect.signature(scorer)

    @functools.wraps(scorer)
    def table(db: str | Path, *args: object, **kwargs: object) -> pd.DataFrame:
        bound = signature.bind(db, *args, **kwargs)
        bound.apply_defaults()
        selection = bound.arguments["selection"]
        bound.arguments["selection"] = replace(selection, agents=())
        every = scorer_per_state(*bound.args, **bound.kwargs)
        if not selection.agents or every.empty:
            return every
        return every[every["agent"].isin(selection.agents)].reset_index(drop=True)

    return table


@agents_rows
def hint_ablation(db: str | Path, games: tuple[str, ...] = HINT_GAMES,
                  selection: Selection = ALL) -> pd.DataFrame:
    """Per game, agent and hint (the paper's Table 2): its contested matches and win rate over them (the one
    definition of engine/papers/headline.py: seats won + half the seats drawn over seats held), and its moves, illegal
    moves and illegal-move rate over every match, self-play included (legality does not depend on the opponent).
    A move is illegal when the agent's first answer was rejected (a re-ask or a fallback) or when it was played
    on a taken cell / full column (it ended the game: `illegal: lose`; `summaries.illegal_move_sql`). The moves are
    those of the seats the outcome placed (every seat of a finished TicTacToe or ConnectFour match). Summed from
    the selection's `agent_summary` rows (`agent_figures.summed`)."""
    columns = ["game", "agent", "hint", "matches", "win_rate", "moves", "illegal_moves", "illegal_move_rate"]
    if not games:
        return _empty(columns)
    picked = replace(selection, games=tuple(g for g in games if not selection.games or g in selection.games))
    if not picked.games:
        return _empty(columns)
    with store.reading(db):
        df = _hint_counts(db, summed(db, picked, contested=picked.contested))
    if df.empty:
        return _empty(columns)
    df["illegal_move_rate"] = df["illegal_moves"] / df["moves"].where(df["moves"] > 0)
    return df[columns]


def _hint(alias: str) -> str:
    """Whether the matches of `alias` showed the legal moves (the `hint` parameter, on by default)."""
    return f"coalesce(json_extract({alias}.params, '$.hint')::BOOLEAN, TRUE)"


def _hint_counts(db: str | Path, where: Summed) -> pd.DataFrame:
    """`hint_ablation`'s counts summed from the `agent_summary` rows `where` selects: the contested ones (several
    agents, or a cooperative game) for the matches and win rate, every one for the moves."""
    rows, params = where.rows(db)
    return store.query(db, f"""
        WITH k AS (SELECT *, several OR game IN (SELECT unnest(?)) AS contested,
                          CASE WHEN game IN (SELECT unnest(?)) THEN draws_shared ELSE draws END AS drawn
                   FROM ({rows}))
        SELECT game, agent_name AS agent, {_hint("k")} AS hint,
               coalesce(sum(matches) FILTER (WHERE contested), 0)::BIGINT AS matches,
               ((sum(wins) FILTER (WHERE contested) + sum(drawn) FILTER (WHERE contested) / 2)
                / sum(seats) FILTER (WHERE contested))::DOUBLE AS win_rate,
               sum(decisions)::BIGINT AS moves, sum(illegal)::BIGINT AS illegal_moves
        FROM k GROUP BY ALL HAVING sum(decisions) > 0 OR bool_or(contested)
        ORDER BY game, agent, hint DESC""", [cooperative_games(), cooperative_games(), *params])


@agents_rows
def connect_four_rewards(db: str | Path, selection: Selection = ALL) -> pd.DataFrame:
    """Per agent, ConnectFour's reward R = V(s') - V(s) of its moves (Figure 2): mean per move and mean
    total per game."""
    columns = ["agent", "games", "moves", "mean_reward_per_move", "mean_reward_per_game"]
    where, params = selection.where("m")
    df = store.query(db, f"""
        SELECT t.match_id, {agent_sql("s")} AS agent, t.reward
        FROM turns t JOIN matches m USING (match_id)
        JOIN seats s ON s.match_id = t.match_id AND s.seat = t.seat
        WHERE m.game = 'connect_four' AND {where} AND t.seat IS NOT NULL AND t.reward IS NOT NULL""", params)
    if df.empty:
        return _empty(columns)
    per_game = df.groupby(["agent", "match_id"])["reward"].sum().groupby("agent")
    out = df.groupby("agent").agg(moves=("reward", "size"), mean_reward_per_move=("reward", "mean"))
    out["games"] = per_game.size()
    out["mean_reward_per_game"] = per_game.mean()
    return out.reset_index()[columns]


def _poker_decisions(db: str | Path, selection: Selection) -> pd.DataFrame:
    where, params = selection.where("m")
    return store.query(db, f"""
        SELECT {agent_sql("s")} AS agent, substr(x.name, length('win_prob:') + 1) AS action,
               x.value AS win_prob
        FROM metrics x JOIN matches m USING (match_id)
        JOIN seats s ON s.match_id = x.match_id AND s.seat = x.seat
        WHERE m.game = 'texas_holdem' AND {where} AND x.name LIKE 'win_prob:%'""", params)


@agents_rows
def poker_action_win_prob(db: str | Path, selection: Selection = ALL) -> pd.DataFrame:
    """Per agent and Hold'em action, how often it was taken and the mean Monte-Carlo win probability of
    the hand when it was (Figure 4: a sound player folds weak hands and raises strong ones)."""
    columns = ["agent", "action", "decisions", "share", "mean_win_prob"]
    df = _poker_decisions(db, selection)
    if df.empty:
        return _empty(columns)
    out = df.groupby(["agent", "action"]).agg(decisions=("win_prob", "size"), mean_win_prob=("win_prob", "mean"))
    out["share"] = out["decisions"] / out.groupby(level="agent")["decisions"].transform("sum")
    return out.reset_index()[columns]


@agents_rows
def poker_actions_by_win_prob(db: str | Path, bins: tuple[float, ...] = WIN_PROB_BINS,
                              selection: Selection = ALL) -> pd.DataFrame:
    """Per agent and win-probability bin, the share of each action: how the choice follows hand strength."""
    columns = ["agent", "win_prob_bin", "action", "decisions", "share"]
    df = _poker_decisions(db, selection)
    if df.empty:
        return _empty(columns)
    df["win_prob_bin"] = pd.cut(df["win_prob"], list(bins), include_lowest=True).astype(str)
    out = df.groupby(["agent", "win_prob_bin", "action"]).size().rename("decisions").reset_index()
    out["share"] = out["decisions"] / out.groupby(["agent", "win_prob_bin"])["decisions"].transform("sum")
    return out[columns]


@agents_rows
def hanabi_action_shares(db: str | Path, selection: Selection = ALL) -> pd.DataFrame:
    """Per agent, the shares of play, reveal and discard among its Hanabi actions (Figure 5), with the
    team's mean score (the paper's Hanabi reward)."""
    columns = ["agent", "games", "mean_score", "actions", "play_share", "reveal_share", "discard_share"]
    where, params = selection.where("m")
    df = store.query(db, f"""
        SELECT {agent_sql("s")} AS agent, s.match_id, s.score,
               sum(x.value) FILTER (WHERE x.name = 'hanabi_play') AS plays,
               sum(x.value) FILTER (WHERE x.name = 'hanabi_reveal') AS reveals,
               sum(x.value) FILTER (WHERE x.name = 'hanabi_discard') AS discards
        FROM seats s JOIN matches m USING (match_id)
        LEFT JOIN metrics x ON x.match_id = s.match_id AND x.seat = s.seat
        WHERE m.game = 'hanabi' AND {where}
        GROUP BY ALL""", params)
    if df.empty:
        return _empty(columns)
    out = df.groupby("agent").agg(games=("match_id", "nunique"), mean_score=("score", "mean"),
                                  plays=("plays", "sum"), reveals=("reveals", "sum"), discards=("discards", "sum"))
    out["actions"] = out["plays"] + out["reveals"] + out["discards"]
    for kind in ("play", "reveal", "discard"):
        out[f"{kind}_share"] = out[f"{kind}s"] / out["actions"].where(out["actions"] > 0)
    return out.reset_index()[columns]
