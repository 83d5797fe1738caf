"""Who won each match, as the ratings and win rates read it: one outcome for every table (`OUTCOME`), the seats of
the selected matches placed by it, the pairwise comparisons it makes between agents, and the who-played-whom
components they link (docs/METRICS.md). Each game declares what one match says (`Game.judged_by`: the rules'
winner, the payoff, the paper's per-role score, or nothing for a cooperative game) and places its seats by it in
`result` (`SeatResult.won`, `rank`), which this reads.

A seat the game declares a winner (alone, with its team, or sharing the win) wins; in a match nobody won, the seats
sharing the best place with another team draw; every other seat loses. A match's teams are its seats sharing a rank
and a role (Undercover's four civilians; a TicTacToe draw is X and O tied at rank 1, two teams); in a game without
roles each seat is its own team (a Bargain without a deal is a draw between its two seats) unless the game is
`cooperative`. Seats of one team are never compared with each other, whatever their ranks: Who is Spy ranks its
civilians by score, yet two civilians who won together did not beat one another.

An agent is `selection.agent_sql`: `seats.agent_name`, its label (if the run spec gives one), agent string and the
settings that change its play, fixed when its match was written (engine/agents/agent_names.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sized
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from engine import store
from engine.store.selection import ALL, Selection, agent_sql, contested_sql, cooperative_games, rule_set_sql

FINISHED = "coalesce(m.finished_at, m.started_at)"
OUTCOME = ("A seat wins when its game's declared outcome (what one match says about who played better) makes it a "
           "winner: the rules' winner, alone, with its team, or sharing the win; in Bid the higher payoff; in Cost "
           "Sharing, the Prisoner's Dilemma and MAgIC's Public Good the paper's per-role score, the best alone; in "
           "a match nobody won, the seats that share the best place with another team draw (a full TicTacToe "
           "board, a Bargain without a deal, a Chameleon tie: 1 credit of MAgIC's 2, equal payoffs or scores at the "
           "top), and a draw counts half; every other seat loses. Ratings read the same outcome: winners above the "
           "rest, co-winners and drawing teams tied; seats of one team (the same role: Who is Spy's civilians) are "
           "teammates, never compared with each other")



def finished_between(selection: Selection, after: tuple | None = None, until: tuple | None = None
                     ) -> tuple[str, list]:
    """`selection.where("m")` and the matches that finished after `after` = (finished_at, match_id) and up to
    `until` (that one included), in the order matches finished (finish time, then id)."""
    where, params = selection.where("m")
    if after is not None:
        where += f" AND ({FINISHED} > ? OR ({FINISHED} = ? AND m.match_id > ?))"
        params += [after[0], after[0], after[1]]
    if until is not None:
        where += f" AND ({FINISHED} < ? OR ({FINISHED} = ? AND m.match_id <= ?))"
        params += [until[0], until[0], until[1]]
    return where, params


def seat_outcomes_sql(selection: Selection, after: tuple | None = None, until: tuple | None = None
                      ) -> tuple[str, list]:
    """The seats of the selected finished matches, one row per seat with its agent, its team (`role`) and its
    place in the outcome (`rank`, `OUTCOME`: the game's winners first, then by the game's rank); `credit` is the
    seat's share of a win (`OUTCOME`: 1 won, 1/2 drawn, 0 lost). `after` = (finished_at, match_id) keeps only
    the matches that finished after that one, `until` only those up to it (that one included)."""
    where, params = finished_between(selection, after, until)
    return f"""
        WITH placed AS (
          SELECT m.match_id, m.game, {rule_set_sql("m")} AS rule_set, m.preset, {FINISHED} AS finished_at, s.seat,
                 s.rank AS place, coalesce(s.won, false) AS won,
                 min(s.rank) OVER (PARTITION BY m.match_id) AS best,
                 coalesce(s.role, CASE WHEN m.game IN (SELECT unnest(?)) THEN '' ELSE 'seat ' || s.seat END) AS role,
                 {agent_sql("s")} AS agent
          FROM matches m JOIN seats s USING (match_id)
          WHERE {where} AND s.rank IS NOT NULL),
        drawn AS (  -- matches nobody won whose best place two teams or more share
          SELECT match_id FROM placed GROUP BY match_id
          HAVING NOT bool_or(won) AND count(DISTINCT (place, role)) FILTER (WHERE place = best) > 1)
        SELECT p.match_id, p.game, p.rule_set, p.preset, p.finished_at, p.seat, p.role, p.agent, p.won, p.place,
               dense_rank() OVER (PARTITION BY p.match_id ORDER BY NOT p.won, p.place)::INTEGER AS rank,
               CASE WHEN p.won THEN 1.0 WHEN p.place = p.best AND d.match_id IS NOT NULL THEN 0.5 ELSE 0.0 END AS credit
        FROM placed p LEFT JOIN drawn d USING (match_id)""", [cooperative_games(), *params]



def played_counts(db: str | Path, selection: Selection) -> pd.DataFrame:
    """Per agent of the selection, its contested matches and the seats it won in them: the counts of the win-rate
    tables (engine/papers/headline.py), since the ratings too leave self-play out and must not count it beside them (an
    agent seen only in self-play is listed, with 0 of each)."""
    seats, params = seat_outcomes_sql(selection)
    return store.query(db, f"""
        WITH s AS ({seats}), c AS (SELECT * FROM s WHERE {contested_sql("s")})
        SELECT s.agent, count(DISTINCT c.match_id) AS matches, count(*) FILTER (WHERE c.won) AS wins
        FROM s LEFT JOIN c USING (match_id, seat) GROUP BY s.agent""", params)



def narrowed(game: str | None, selection: Selection) -> Selection | None:
    """`selection` narrowed to `game`, one key for one selection however it is asked for; None when empty."""
    if game is None:
        return selection
    if selection.games and game not in selection.games:
        return None
    return replace(selection, games=(game,))



def read_with_played(db: str | Path, game: str | None, selection: Selection, read: Callable[..., Sized]
                      ) -> tuple[Any, pd.DataFrame] | None:
    """What `read(db, selection=...)` returns for the selection (of `game` when given) and each agent's matches and
    wins in it, read on one connection; None when the selection holds nothing to rate."""
    selection = narrowed(game, selection)
    if selection is None:
        return None
    with store.reading(db):
        data = read(db, selection=selection)
        return (data, played_counts(db, selection)) if len(data) else None



def pairwise_outcomes(db: str | Path, game: str | None = None, selection: Selection = ALL) -> pd.DataFrame:
    """The pairwise outcomes of the selected matches grouped by kind: matches with the same comparisons (the same
    sum of their hashes) are one `kind` played `matches` times. One row per kind and pair of different agents in
    different teams: `a`, `b`, the share of the match's comparisons it stands for (`weight`, a match weighs 1)
    and `score` (1 a wins, 0.5 tie). Teammates (seats of one `role`) are no pair, whatever their ranks."""
    selection = narrowed(game, selection)
    if selection is None:
        return pd.DataFrame(columns=["kind", "matches", "a", "b", "weight", "score"])
    seats, params = seat_outcomes_sql(selection)
    return store.query(db, f"""
        WITH s AS ({seats}),
        pairs AS (
          SELECT x.match_id, least(x.agent, y.agent) AS a, greatest(x.agent, y.agent) AS b,
                 CASE WHEN x.rank = y.rank THEN 0.5
                      WHEN (x.rank < y.rank) = (x.agent < y.agent) THEN 1.0 ELSE 0.0 END AS score
          FROM s x JOIN s y ON x.match_id = y.match_id AND x.seat < y.seat AND x.agent <> y.agent
                           AND x.role <> y.role),
        per_match AS (
          SELECT match_id, a, b, count(*) / sum(count(*)) OVER (PARTITION BY match_id) AS weight, avg(score) AS score
          FROM pairs GROUP BY match_id, a, b),
        signed AS (  -- a match's comparisons as one number: the sum of their hashes
          SELECT match_id, sum(hash(a, b, weight, score)::HUGEINT) AS signature FROM per_match GROUP BY match_id),
        kinds AS (  -- numbered by signature, as `bradley_terry` numbers the kinds summed from the summaries
          SELECT row_number() OVER (ORDER BY signature) - 1 AS kind, count(*) AS matches, min(match_id) AS example
          FROM signed GROUP BY signature)
        SELECT k.kind, k.matches, p.a, p.b, p.weight, p.score
        FROM kinds k JOIN per_match p ON p.match_id = k.example ORDER BY kind, a, b""", params)



def components(pairs: pd.DataFrame) -> dict[str, int]:
    """Agent -> its connected component of the who-played-whom graph of `pairs` (`pairwise_outcomes` rows):
    `component_numbers` of its agents."""
    names, (a, b) = numbered_agents(pairs)
    return dict(zip(names.tolist(), component_numbers(a, b, pairs["matches"].to_numpy(), len(names)).tolist(),
                    strict=True))


def numbered_agents(pairs: pd.DataFrame) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """The agents of `pairs` in the order of their names, and each row's `a` and `b` as numbers in it."""
    sides = [pairs[side].to_numpy(object) for side in ("a", "b")]
    names, numbers = np.unique(np.concatenate(sides), return_inverse=True)
    return names, (numbers[:len(pairs)], numbers[len(pairs):])


def component_numbers(a: np.ndarray, b: np.ndarray, matches: np.ndarray, agents: int) -> np.ndarray:
    """Each agent's connected component (agents numbered in the order of their names; `a`, `b` and `matches` each
    pair row's agents and matches): 1 for the component with the most matches over its rows (then the most agents,
    then the first name), 2 for the next, ... Ratings of agents in different components are on unrelated scales:
    no match links them. The most comparisons, not the most agents: three bots of a 3-match first run must not
    push a 400-match study off the ranking."""
    if not agents:
        return np.zeros(0, np.int64)
    first, label = np.unique(_smallest_linked(a, b, agents), return_inverse=True)  # agents are in name order
    count = len(first)
    weight = np.bincount(label[a], matches.astype(float), minlength=count)
    size = np.bincount(label, minlength=count)
    number = np.empty(count, np.int64)
    number[np.lexsort((first, -size, -weight))] = np.arange(1, count + 1)
    return number[label]


def _smallest_linked(a: np.ndarray, b: np.ndarray, agents: int) -> np.ndarray:
    """Each agent's smallest number among those a chain of rows links it to: rounds of hooking each row's larger root
    under its smaller one, then pointer jumping. Every root either hooks or takes in a neighbour, so a component's
    roots halve each round. In numpy, not scipy's `csgraph`: importing that would slow a page's first call."""
    root = np.arange(agents)
    while True:
        root_a, root_b = root[a], root[b]
        apart = root_a != root_b
        if not apart.any():
            return root
        np.minimum.at(root, np.maximum(root_a, root_b)[apart], np.minimum(root_a, root_b)[apart])
        while not np.array_equal(jumped := root[root], root):
            root = jumped

