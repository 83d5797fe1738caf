"""Skill ratings of agents from the stored match outcomes (LLMArena paper; docs/METRICS.md).

One outcome, `OUTCOME`, for win rates and ratings alike: a seat the game declares a winner (alone, with its
team, or sharing the win) wins; in a match nobody won, the seats sharing the best place with another team
draw; every other seat loses. Ratings order a match's seats by that outcome: winners first (co-winners of
different teams tie with each other), then by `seats.rank` (1 = best). A match's teams are its seats
sharing a rank and a role (Undercover's four civilians; a TicTacToe draw is X and O tied at rank 1, two
teams); in a game without roles each seat is its own team (a Bargain without a deal is a draw between
its two seats) unless the game is `cooperative`. A match that is one team (Hanabi) or one agent against
itself teaches nothing about skill and is left out.

- `trueskill_table`: TrueSkill (mu 25, sigma 25/3) replayed over the matches in the order they
  finished; every seat of a team weighs 1 (`trueskill.rate`'s default, as LLMArena's code rates
  teams), so a team's performance is its members' sum; an agent in several seats of a team moves by
  the sum of its seats' updates.
- `bradley_terry_table`: an order-free Bradley-Terry fit (Elo scale: 1000 + 400·log10 odds) on the
  pairwise outcomes between teams of each match (the better rank wins, equal ranks tie), with bootstrap
  confidence intervals over matches as FastChat does; `rank` separates only agents whose intervals do not
  overlap.

An agent is `selection.agent_sql`: `seats.label` (the model string unless the run spec names it), with its
temperature and prompt version where the database holds that label at several.
"""

from __future__ import annotations

import json
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Sized
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import trueskill

from engine import store
from engine.metrics.stats import Z95
from engine.metrics.trueskill_update import rate_exactly
from engine.selection import ALL, Selection, agent_sql, contested_sql, cooperative_games, rule_set_sql

MU = 25.0
SIGMA = MU / 3
ELO_SCALE = 400 / np.log(10)
ELO_BASE = 1000.0
RIDGE = 1e-2  # keeps the fit finite when one agent always wins
ENV = trueskill.TrueSkill(mu=MU, sigma=SIGMA, draw_probability=0.1)
FINISHED = "coalesce(m.finished_at, m.started_at)"
OUTCOME = ("A seat wins when the game declares it a winner: alone, with its team, or sharing the win (each party "
           "to a cost-sharing agreement); in a match nobody won, the seats that share the best place with another "
           "team draw (a full TicTacToe board, a Bargain without a deal, a Chameleon tie: 1 credit of MAgIC's 2), "
           "and a draw counts half; every other seat loses. Ratings read the same outcome: winners above the rest, "
           "co-winners and drawing teams tied")


def seat_outcomes_sql(selection: Selection, after: tuple | None = None) -> tuple[str, list]:
    """The seats of the selected finished matches, one row per seat with its agent, its team (`role`) and its
    place in the outcome (`rank`, `OUTCOME`: the game's winners first, then by the game's rank); `credit` is the
    seat's share of a win (`OUTCOME`: 1 won, 1/2 drawn, 0 lost). `after` = (finished_at, match_id) keeps only
    the matches that finished after that one."""
    where, params = selection.where("m")
    if after is not None:
        where += f" AND ({FINISHED} > ? OR ({FINISHED} = ? AND m.match_id > ?))"
        params += [after[0], after[0], after[1]]
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


def _played(db: str | Path, selection: Selection) -> pd.DataFrame:
    """Per agent of the selection, its contested matches and the seats it won in them: the counts of the win-rate
    tables (engine/headline.py), since the ratings too leave self-play out and must not count it beside them (an
    agent seen only in self-play is listed, with 0 of each)."""
    seats, params = seat_outcomes_sql(selection)
    return store.query(db, f"""
        WITH s AS ({seats}), c AS (SELECT * FROM s WHERE {contested_sql("s")})
        SELECT s.agent, count(DISTINCT c.match_id) AS matches, count(*) FILTER (WHERE c.won) AS wins
        FROM s LEFT JOIN c USING (match_id, seat) GROUP BY s.agent""", params)


def _teams(db: str | Path, selection: Selection, after: tuple | None) -> list[tuple]:
    """One row per match in the order matches finished: (match_id, finished_at, ranks, roles, agents, weights),
    lists with one entry per team member (a seat, weight 1: `trueskill.rate`'s default)."""
    seats, params = seat_outcomes_sql(selection, after)
    return store.rows(db, f"""
        WITH s AS ({seats}),
        members AS (SELECT match_id, finished_at, rank, role, agent, 1.0::DOUBLE AS weight FROM s)
        SELECT match_id, any_value(finished_at) AS finished_at, list(rank ORDER BY rank, role, agent),
               list(role ORDER BY rank, role, agent), list(agent ORDER BY rank, role, agent),
               list(weight ORDER BY rank, role, agent)
        FROM members GROUP BY match_id ORDER BY finished_at, match_id""", params)


def _replay(matches: list[tuple], env: trueskill.TrueSkill, ratings: dict[str, tuple[float, float]]) -> None:
    """TrueSkill over `matches` in order, updating `ratings` (agent -> (mu, sigma)) in place; an agent in
    several teams of one match moves by the sum of its copies' updates and keeps the smallest new sigma."""
    for _, _, ranks, roles, agents, weights in matches:
        teams: dict[tuple[int, str], list[tuple[str, float]]] = {}
        for rank, role, agent, weight in zip(ranks, roles, agents, weights, strict=True):
            teams.setdefault((rank, role), []).append((agent, weight))
        if len(teams) < 2 or len(set(agents)) < 2:
            continue  # one team, or an agent against itself: nothing learned (an agent never rated has no rating)
        for agent in agents:
            ratings.setdefault(agent, (MU, SIGMA))
        keys = list(teams)
        new = rate_exactly(env, [[(*ratings[a], w) for a, w in teams[k]] for k in keys],
                           [rank for rank, _ in keys])
        moved: dict[str, list[tuple[float, float]]] = {}
        for k, group in zip(keys, new, strict=True):
            for (agent, _), rating in zip(teams[k], group, strict=True):
                moved.setdefault(agent, []).append(rating)
        for agent, copies in moved.items():
            mu, _ = ratings[agent]
            ratings[agent] = (mu + sum(m - mu for m, _ in copies), min(s for _, s in copies))


@dataclass
class _Replayed:
    """Ratings after the matches up to `last` = (finished_at, match_id): `count` matches whose ids and finish
    times hash to `checksum`, so a later call can tell whether the database only grew after `last`."""

    ratings: dict[str, tuple[float, float]]
    last: tuple | None
    count: int
    checksum: int

    def to_json(self) -> dict:
        last = None if self.last is None else [self.last[0].isoformat(), self.last[1]]
        return {"ratings": self.ratings, "last": last, "count": self.count, "checksum": str(self.checksum),
                "formula": FORMULA}

    @classmethod
    def from_json(cls, data: dict) -> _Replayed:
        if data.get("formula") != FORMULA:
            raise ValueError("a replay saved under another formula")
        last = None if data["last"] is None else (datetime.fromisoformat(data["last"][0]), data["last"][1])
        return cls({a: (float(mu), float(sigma)) for a, (mu, sigma) in data["ratings"].items()}, last,
                   int(data["count"]), int(data["checksum"]))


# saved replays of another formula are replayed again
FORMULA = "team members weigh 1; roleless seats are teams of one; winners first; only agents that met another"
_REPLAYED: OrderedDict[tuple, _Replayed] = OrderedDict()
_REPLAYED_LOCK = threading.Lock()
REPLAY_MEMO_SIZE = 64


def saved_replays_path(db: str | Path) -> Path:
    """Where the replays of the unfiltered selections (every game, each game) outlive the process: next to the
    database, so the first dashboard view after a restart replays only what finished since (the engine's `run`
    command brings it up to date after every run)."""
    return Path(f"{db}.ratings.json")


def saved_replay(selection: Selection) -> bool:
    """Whether the replay of this selection is saved (and kept current by the run command): a first view of
    it costs only the matches since, where any other selection replays all its matches once per process."""
    return _saved_name(selection) is not None


def _saved_name(filters: Selection) -> str | None:
    """The name of a selection worth saving: every finished match, or those of one game; None for the rest."""
    if replace(filters, games=()) != ALL or len(filters.games) > 1:
        return None
    return filters.games[0] if filters.games else "*"


def _load_saved(db: str | Path, filters: Selection) -> _Replayed | None:
    name = _saved_name(filters)
    try:
        saved = json.loads(saved_replays_path(db).read_text()) if name else {}
        return _Replayed.from_json(saved[name]) if name in saved else None
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None  # absent, unreadable or from another version: replay from the start


def _save(db: str | Path, filters: Selection, replayed: _Replayed) -> None:
    """Add this replay to the saved ones; written to a temporary file and renamed, so a reader never sees half
    of it. A read-only directory only costs the next process a full replay."""
    name = _saved_name(filters)
    if name is None:
        return
    path = saved_replays_path(db)
    with _REPLAYED_LOCK:
        try:
            saved = json.loads(path.read_text()) if path.exists() else {}
        except (OSError, ValueError):
            saved = {}
        saved[name] = replayed.to_json()
        temporary = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}")
        try:
            temporary.write_text(json.dumps(saved))
            os.replace(temporary, path)
        except OSError:
            temporary.unlink(missing_ok=True)


def _covered(db: str | Path, filters: Selection, last: tuple | None) -> tuple[int, int]:
    """How many selected matches finished up to `last`, and the sum of the hashes of their ids and finish times."""
    seats, params = seat_outcomes_sql(filters)
    where, extra = ("", []) if last is None else \
        ("WHERE finished_at < ? OR (finished_at = ? AND match_id <= ?)", [last[0], last[0], last[1]])
    row = store.rows(db, f"""
        WITH s AS ({seats}), picked AS (SELECT DISTINCT match_id, finished_at FROM s)
        SELECT count(*), coalesce(sum(hash(match_id, finished_at)), 0)::HUGEINT::VARCHAR FROM picked {where}""",
                     params + extra)[0]
    return int(row[0]), int(row[1])


def _selection(game: str | None, filters: Selection) -> Selection | None:
    """`filters` narrowed to `game`, one key for one selection however it is asked for; None when empty."""
    if game is None:
        return filters
    if filters.games and game not in filters.games:
        return None
    return replace(filters, games=(game,))


def replayed_ratings(db: str | Path, game: str | None = None,
                     filters: Selection = ALL) -> dict[str, tuple[float, float]]:
    """Agent -> (mu, sigma) after replaying the selected matches in the order they finished. The replay is
    kept per database and selection (and saved next to the database for the unfiltered ones): when the
    database has only gained matches that finished later, only those are replayed (a dashboard refresh after
    a run costs the new matches, not all of them)."""
    selection = _selection(game, filters)
    if selection is None:
        return {}
    key = (str(Path(db).resolve()), selection)
    with _REPLAYED_LOCK:
        memo = _REPLAYED.get(key)
    with store.reading(db):
        memo = memo or _load_saved(db, selection)
        if memo is not None and _covered(db, selection, memo.last) != (memo.count, memo.checksum):
            memo = None  # matches were removed, or some finished before the last one replayed: start over
        ratings = dict(memo.ratings) if memo else {}
        matches = _teams(db, selection, memo.last if memo else None)
    if memo and not matches:
        _remember(key, memo)
        return ratings
    # replayed with the file closed: a replay can take minutes, and an open reader holds off every writer
    _replay(matches, ENV, ratings)
    last = (matches[-1][1], matches[-1][0]) if matches else None
    count, checksum = _covered(db, selection, last) if last is not None else (0, 0)
    replayed = _Replayed(ratings, last, count, checksum)
    _remember(key, replayed)
    if matches:
        _save(db, selection, replayed)
    return ratings


def _remember(key: tuple, replayed: _Replayed) -> None:
    with _REPLAYED_LOCK:
        _REPLAYED[key] = replayed
        _REPLAYED.move_to_end(key)
        while len(_REPLAYED) > REPLAY_MEMO_SIZE:
            _REPLAYED.popitem(last=False)


def refresh_saved(db: str | Path) -> list[str]:
    """Bring the saved replays up to date (every game, and each game with finished matches): the engine's `run`
    command calls this, so the dashboard finds them current. Returns the selections refreshed."""
    games = [g for (g,) in store.rows(db, "SELECT DISTINCT game FROM matches WHERE status = 'ok' ORDER BY game")]
    for game in [None, *games]:
        replayed_ratings(db, game)
    return ["every game", *games]


def _read_with_played(db: str | Path, game: str | None, filters: Selection, read: Callable[..., Sized]
                      ) -> tuple[Any, pd.DataFrame] | None:
    """What `read(db, filters=...)` returns for the selection (of `game` when given) and each agent's matches and
    wins in it, read on one connection; None when the selection holds nothing to rate."""
    selection = _selection(game, filters)
    if selection is None:
        return None
    with store.reading(db):
        data = read(db, filters=selection)
        return (data, _played(db, selection)) if len(data) else None


def trueskill_table(db: str | Path, game: str | None = None, filters: Selection = ALL) -> pd.DataFrame:
    """TrueSkill of every agent over the selected matches (of `game` when given), with the 95% interval of its skill
    (`mu_lo`, `mu_hi`) and its `component` of the who-played-whom graph (`components`: skills of different
    components never met and are not comparable), best conservative (mu - 3 sigma) first within each component.
    An agent that never met another agent has no rating: blank, with `note` saying why (not the prior). `matches`
    and `wins` are its contested matches and the seats it won in them (`_played`: self-play left out)."""
    columns = ["agent", "mu", "sigma", "mu_lo", "mu_hi", "conservative", "component", "note", "matches", "wins"]
    selection = _selection(game, filters)
    if selection is None:
        return pd.DataFrame({c: [] for c in columns})
    with store.reading(db):
        ratings, played = replayed_ratings(db, filters=selection), _played(db, selection)
        component = components(pairwise_outcomes(db, filters=selection))
    if played.empty:
        return pd.DataFrame({c: [] for c in columns})
    table = pd.DataFrame([{"agent": a, "mu": mu, "sigma": sigma} for a, (mu, sigma) in ratings.items()],
                         columns=["agent", "mu", "sigma"]).astype({"mu": float, "sigma": float})
    table["mu_lo"], table["mu_hi"] = table["mu"] - Z95 * table["sigma"], table["mu"] + Z95 * table["sigma"]
    table["conservative"] = table["mu"] - 3 * table["sigma"]
    table = table.merge(played, on="agent", how="outer")
    table["component"] = table["agent"].map(component).astype("Int64")
    table["note"] = np.where(table["mu"].isna(), "no rating: never played against another agent", "")
    table[["matches", "wins"]] = table[["matches", "wins"]].fillna(0).astype(int)
    return table.sort_values(["component", "conservative", "agent"], ascending=[True, False, True],
                             na_position="last", ignore_index=True)[columns]


def pairwise_outcomes(db: str | Path, game: str | None = None, filters: Selection = ALL) -> pd.DataFrame:
    """The pairwise outcomes of the selected matches grouped by kind: matches with the same comparisons (the same
    sum of their hashes) are one `kind` played `matches` times. One row per kind and pair of different agents in
    different teams: `a`, `b`, the share of the match's comparisons it stands for (`weight`, a match weighs 1)
    and `score` (1 a wins, 0.5 tie)."""
    selection = _selection(game, filters)
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
                           AND NOT (x.rank = y.rank AND x.role = y.role)),
        per_match AS (
          SELECT match_id, a, b, count(*) / sum(count(*)) OVER (PARTITION BY match_id) AS weight, avg(score) AS score
          FROM pairs GROUP BY match_id, a, b),
        signed AS (  -- a match's comparisons as one number: the sum of their hashes
          SELECT match_id, sum(hash(a, b, weight, score)::HUGEINT) AS signature FROM per_match GROUP BY match_id),
        kinds AS (
          SELECT row_number() OVER (ORDER BY min(match_id)) - 1 AS kind, count(*) AS matches, min(match_id) AS example
          FROM signed GROUP BY signature)
        SELECT k.kind, k.matches, p.a, p.b, p.weight, p.score
        FROM kinds k JOIN per_match p ON p.match_id = k.example ORDER BY kind, a, b""", params)


def _fit(pair_a: np.ndarray, pair_b: np.ndarray, wins: np.ndarray, losses: np.ndarray, n: int) -> np.ndarray:
    """Bradley-Terry strengths (natural log-odds, mean 0) maximising the weighted likelihood, one fit per row of
    `wins` and `losses` (fits x pairs), all at once: Newton steps on the ridge-penalised log-likelihood,
    which is strictly concave, halving a step that does not improve it."""
    fits = wins.shape[0]
    sign = np.zeros((len(pair_a), n))
    sign[np.arange(len(pair_a)), pair_a], sign[np.arange(len(pair_a)), pair_b] = 1.0, -1.0
    outer = np.einsum("pi,pj->pij", sign, sign)
    ridge = RIDGE * np.eye(n)

    def loss(theta: np.ndarray) -> np.ndarray:
        d = theta @ sign.T
        return (wins * np.logaddexp(0, -d) + losses * np.logaddexp(0, d)).sum(1) + 0.5 * RIDGE * (theta ** 2).sum(1)

    theta = np.zeros((fits, n))
    current = loss(theta)
    for _ in range(100):
        d = theta @ sign.T
        p = 1 / (1 + np.exp(-d))
        grad = (-wins * (1 - p) + losses * p) @ sign + RIDGE * theta
        hessian = np.einsum("fp,pij->fij", (wins + losses) * p * (1 - p), outer) + ridge
        step = np.linalg.solve(hessian, grad[..., None])[..., 0]
        scale = np.ones(fits)
        for _ in range(30):
            trial = loss(theta - scale[:, None] * step)
            worse = trial > current + 1e-12
            if not worse.any():
                break
            scale[worse] /= 2
        theta, current = theta - scale[:, None] * step, np.minimum(trial, current)
        if np.abs(scale[:, None] * step).max() < 1e-10:
            break
    return theta - theta.mean(1, keepdims=True)


def components(pairs: pd.DataFrame) -> dict[str, int]:
    """Agent -> its connected component of the who-played-whom graph of `pairs` (`pairwise_outcomes` rows): 1 for
    the component with the most comparisons (then the most agents), 2 for the next, ... Ratings of agents in
    different components are on unrelated scales: no match links them. The most comparisons, not the most agents:
    three bots of a 3-match first run must not push a 400-match study off the ranking."""
    parent: dict[str, str] = {}

    def root(agent: str) -> str:
        while parent.setdefault(agent, agent) != agent:
            parent[agent] = parent[parent[agent]]
            agent = parent[agent]
        return agent

    for a, b in zip(pairs["a"], pairs["b"], strict=True):
        parent[root(a)] = root(b)
    groups: dict[str, list[str]] = {}
    for agent in sorted(parent):
        groups.setdefault(root(agent), []).append(agent)
    sides = [pairs.groupby(side)["matches"].sum() for side in ("a", "b")]
    weight = pd.concat(sides).groupby(level=0).sum()
    ordered = sorted(groups.values(), key=lambda g: (-int(weight.reindex(g).sum()), -len(g), g[0]))
    return {agent: number for number, group in enumerate(ordered, 1) for agent in group}


BRADLEY_TERRY_COLUMNS = ["agent", "rating", "lo", "hi", "rank", "component", "matches"]


def bradley_terry_table(db: str | Path, game: str | None = None, filters: Selection = ALL, n_boot: int = 200,
                        seed: int = 0) -> pd.DataFrame:
    """Bradley-Terry ratings on the Elo scale with 95% bootstrap intervals (matches resampled: the number of
    matches of each kind drawn from a multinomial, which is the same as drawing matches one by one), fitted
    apart for each connected `component` of the who-played-whom graph (1000 = the average agent of its
    component; agents of different components never met, so their ratings are not comparable);
    rank = 1 + the number of agents of its component whose lower bound is above this agent's upper bound."""
    rated = _read_with_played(db, game, filters, pairwise_outcomes)
    if rated is None:
        return pd.DataFrame({c: [] for c in BRADLEY_TERRY_COLUMNS})
    return fit_bradley_terry(*rated, n_boot, seed)


def rated_pairs(db: str | Path, filters: Selection) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    """What `bradley_terry_table` reads of the selection: its pairwise outcomes and each agent's contested
    matches and wins (None: nothing to rate), for a caller that also needs the pairs themselves."""
    return _read_with_played(db, None, filters, pairwise_outcomes)


def fit_bradley_terry(pairs: pd.DataFrame, played: pd.DataFrame, n_boot: int = 200, seed: int = 0) -> pd.DataFrame:
    """`bradley_terry_table` of pairs already read (`rated_pairs`)."""
    component = components(pairs)
    parts = []
    for number in sorted(set(component.values())):
        own = pairs[pairs["a"].map(component) == number].copy()
        own["kind"] = own.groupby("kind").ngroup()
        parts.append(_fitted(own, n_boot, seed).assign(component=number))
    table = pd.concat(parts, ignore_index=True)
    table["rank"] = [1 + int(((table["lo"] > h) & (table["component"] == c)).sum())
                     for h, c in zip(table["hi"], table["component"], strict=True)]
    table = table.merge(played, on="agent", how="left")
    table["matches"] = table["matches"].fillna(0).astype(int)
    return table.sort_values(["component", "rating", "agent"], ascending=[True, False, True],
                             ignore_index=True)[BRADLEY_TERRY_COLUMNS]


def _fitted(pairs: pd.DataFrame, n_boot: int, seed: int) -> pd.DataFrame:
    """Bradley-Terry over one connected component's `pairs` (kinds numbered from 0): agent, rating, lo, hi."""
    agents = np.array(sorted(set(pairs["a"]) | set(pairs["b"])))
    index = {name: i for i, name in enumerate(agents)}
    by_pair = pairs.groupby(["a", "b"], sort=True)
    cells = by_pair.ngroup().to_numpy()  # the distinct (a, b) pairs, numbered in sorted order
    keys = list(by_pair.groups)  # in the same sorted order
    pair_a, pair_b = np.array([index[a] for a, _ in keys]), np.array([index[b] for _, b in keys])
    kinds = pairs.groupby("kind")["matches"].first().to_numpy()
    to_cells = np.zeros((len(pairs), cells.max() + 1))
    to_cells[np.arange(len(pairs)), cells] = 1.0
    won = (pairs["weight"] * pairs["score"]).to_numpy()[:, None] * to_cells  # rows -> cells
    lost = (pairs["weight"] * (1 - pairs["score"])).to_numpy()[:, None] * to_cells
    kind_of_row = pairs["kind"].to_numpy()
    rng = np.random.default_rng(seed)
    draws = np.vstack([kinds, rng.multinomial(kinds.sum(), kinds / kinds.sum(), size=n_boot)])[:, kind_of_row]
    thetas = _fit(pair_a, pair_b, draws @ won, draws @ lost, len(agents))
    theta, boot = thetas[0], thetas[1:] if n_boot else thetas[:1]
    # The scale has no origin of its own, so each resample is shifted onto the full fit, agents weighted by
    # the matches they have in it; an agent with no match in a resample has no strength there (not the
    # ridge's 0) and is left out of its percentiles.
    plays = np.zeros((len(pairs), len(agents)))
    plays[np.arange(len(pairs)), pairs["a"].map(index)] = plays[np.arange(len(pairs)), pairs["b"].map(index)] = 1.0
    weights = (draws @ plays)[1:] if n_boot else (draws @ plays)[:1]
    boot = boot - ((boot - theta) * weights).sum(1, keepdims=True) / weights.sum(1, keepdims=True)
    lo, hi = np.nanpercentile(np.where(weights > 0, boot, np.nan), [2.5, 97.5], axis=0)
    return pd.DataFrame({"agent": agents, "rating": ELO_BASE + ELO_SCALE * theta,
                         "lo": ELO_BASE + ELO_SCALE * lo, "hi": ELO_BASE + ELO_SCALE * hi})
