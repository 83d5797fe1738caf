"""TrueSkill (mu 25, sigma 25/3) replayed over the selected matches in the order they finished (`outcomes.OUTCOME`
orders each match's seats: winners first, co-winners and drawing teams tied). Each match is one `TrueSkill.rate`
of the `trueskill` package, with its defaults (as LLMArena's code rates teams): every seat of a team weighs 1, so a
team's performance is its members' sum; an agent in several seats of a team moves by the sum of its seats'
updates. A match that is one team (Hanabi) or one agent against itself teaches nothing about skill and is left out.

Floats cannot hold every update: when a team wins that its ratings said could all but not win (four seats of one
agent whose rating has run far ahead of the fifth's), the normal cdf underflows and the package raises
FloatingPointError. That match is rated again on the package's mpmath backend (its own advice), so no extreme
match stops a replay.

A replay is kept in memory per database and selection, and saved beside the database for the unfiltered ones
(engine.score.saved_replays): when the database has only gained matches that finished later, only those are
replayed.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import replace
from functools import cache
from pathlib import Path

import trueskill

from engine import store
from engine.score.outcomes import FINISHED, finished_between, narrowed, seat_outcomes_sql
from engine.score.saved_replays import Replayed, load_saved, save
from engine.store.selection import ALL, Selection

MU = 25.0
SIGMA = MU / 3
ENV = trueskill.TrueSkill(mu=MU, sigma=SIGMA, draw_probability=0.1)
_REPLAYED: OrderedDict[tuple, Replayed] = OrderedDict()
_REPLAYED_LOCK = threading.Lock()
REPLAY_MEMO_SIZE = 64
CHUNK = 50_000  # matches read at once: the seats of 50,000 matches take a few MB


def _teams(db: str | Path, selection: Selection, after: tuple | None, until: tuple | None = None) -> list[tuple]:
    """One row per match in the order matches finished: (match_id, finished_at, ranks, roles, agents), lists with
    one entry per seat; the matches that finished after `after` and up to `until` (`seat_outcomes_sql`)."""
    seats, params = seat_outcomes_sql(selection, after, until)
    return store.rows(db, f"""
        WITH s AS ({seats})
        SELECT match_id, any_value(finished_at) AS finished_at, list(rank ORDER BY rank, role, agent),
               list(role ORDER BY rank, role, agent), list(agent ORDER BY rank, role, agent)
        FROM s GROUP BY match_id ORDER BY finished_at, match_id""", params)


def _bounds(db: str | Path, selection: Selection, after: tuple | None) -> list[tuple | None]:
    """Where to cut the selected matches that finished after `after` into parts of at most CHUNK matches, in the
    order they finished: the (finished_at, match_id) of every CHUNK-th, then None (the rest, up to the newest)."""
    where, params = finished_between(selection, after)
    cuts = store.rows(db, f"""
        SELECT finished_at, match_id FROM (
          SELECT {FINISHED} AS finished_at, m.match_id,
                 row_number() OVER (ORDER BY {FINISHED}, m.match_id) AS n
          FROM matches m WHERE {where})
        WHERE n % ? = 0 ORDER BY n""", [*params, CHUNK])
    return [*cuts, None]


def rate(teams: Sequence[Sequence[tuple[float, float]]], ranks: Sequence[int]) -> list[list[tuple[float, float]]]:
    """New (mu, sigma) of every member of `teams` (each a list of (mu, sigma)) placed by `ranks` (lower is better,
    ties draw): `ENV.rate`, or where floats underflow, the same update on the mpmath backend."""
    try:
        return _rated(ENV, teams, ranks)
    except FloatingPointError:
        return _rated(_exact(), teams, ranks)


def _rated(env: trueskill.TrueSkill, teams: Sequence[Sequence[tuple[float, float]]],
           ranks: Sequence[int]) -> list[list[tuple[float, float]]]:
    groups = env.rate([[env.create_rating(mu, sigma) for mu, sigma in team] for team in teams], ranks=ranks)
    return [[(float(r.mu), float(r.sigma)) for r in group] for group in groups]


@cache
def _exact() -> trueskill.TrueSkill:
    """ENV on trueskill's mpmath backend (made when first needed: the backend imports mpmath)."""
    return trueskill.TrueSkill(mu=ENV.mu, sigma=ENV.sigma, beta=ENV.beta, tau=ENV.tau,
                               draw_probability=ENV.draw_probability, backend="mpmath")


def _replay(matches: list[tuple], ratings: dict[str, tuple[float, float]]) -> None:
    """TrueSkill over `matches` in order, updating `ratings` (agent -> (mu, sigma)) in place; an agent in
    several teams of one match moves by the sum of its copies' updates and keeps the smallest new sigma."""
    for _, _, ranks, roles, agents in matches:
        # a team is a role: teammates ranked apart by their own scores (Who is Spy's civilians) are never rated
        # against each other (as Bradley-Terry pairs them); the team places where its best member does
        teams: dict[str, list[str]] = {}
        placed: dict[str, int] = {}
        for rank, role, agent in zip(ranks, roles, agents, strict=True):
            teams.setdefault(role, []).append(agent)
            placed[role] = min(rank, placed.get(role, rank))
        if len(teams) < 2 or len(set(agents)) < 2:
            continue  # one team, or an agent against itself: nothing learned (an agent never rated has no rating)
        for agent in agents:
            ratings.setdefault(agent, (MU, SIGMA))
        keys = list(teams)
        new = rate([[ratings[a] for a in teams[k]] for k in keys], [placed[k] for k in keys])
        moved: dict[str, list[tuple[float, float]]] = {}
        for k, group in zip(keys, new, strict=True):
            for agent, rating in zip(teams[k], group, strict=True):
                moved.setdefault(agent, []).append(rating)
        for agent, copies in moved.items():
            mu, _ = ratings[agent]
            ratings[agent] = (mu + sum(m - mu for m, _ in copies), min(s for _, s in copies))



def _covered(db: str | Path, selection: Selection, last: tuple | None) -> tuple[int, int]:
    """How many selected matches finished up to `last`, and the sum of the hashes of their ids and finish times."""
    seats, params = seat_outcomes_sql(selection)
    where, extra = ("", []) if last is None else \
        ("WHERE finished_at < ? OR (finished_at = ? AND match_id <= ?)", [last[0], last[0], last[1]])
    row = store.rows(db, f"""
        WITH s AS ({seats}), picked AS (SELECT DISTINCT match_id, finished_at FROM s)
        SELECT count(*), coalesce(sum(hash(match_id, finished_at)), 0)::HUGEINT::VARCHAR FROM picked {where}""",
                     params + extra)[0]
    return int(row[0]), int(row[1])



def replayed_ratings(db: str | Path, game: str | None = None,
                     selection: Selection = ALL) -> dict[str, tuple[float, float]]:
    """Agent -> (mu, sigma) after replaying the selected matches in the order they finished. The replay is
    kept per database and selection (and saved next to the database for the unfiltered ones): when the
    database has only gained matches that finished later, only those are replayed (a dashboard refresh after
    a run costs the new matches, not all of them)."""
    selection = narrowed(game, selection)
    if selection is None:
        return {}
    key = (str(Path(db).resolve()), selection)
    with _REPLAYED_LOCK:
        memo = _REPLAYED.get(key)
    with store.reading(db):
        memo = memo or load_saved(db, selection)
        generation = store.generation(db)
        if memo is not None and memo.current(generation, store.summaries_in_step(db)):
            _remember(key, memo)
            return dict(memo.ratings)  # nothing written since: no match read
        if memo is not None and _covered(db, selection, memo.last) != (memo.count, memo.checksum):
            memo = None  # matches were removed, or some finished before the last one replayed: start over
        ratings = dict(memo.ratings) if memo else {}
        last = memo.last if memo else None
        bounds = _bounds(db, selection, last)
    for until in bounds:  # CHUNK matches at a time: a million matches' seats held at once did not fit the reader
        with store.reading(db):
            matches = _teams(db, selection, last, until)
        if matches:  # replayed with the file closed: a replay takes minutes, and a reader holds off every writer
            _replay(matches, ratings)
            last = (matches[-1][1], matches[-1][0])
    if memo and last == memo.last:
        if memo.generation != generation:  # written since, but no match of the selection: now current
            memo = replace(memo, generation=generation)
            save(db, selection, memo)
        _remember(key, memo)
        return ratings
    count, checksum = _covered(db, selection, last) if last is not None else (0, 0)
    replayed = Replayed(ratings, last, count, checksum, generation)
    _remember(key, replayed)
    if last is not None:
        save(db, selection, replayed)
    return ratings


def _remember(key: tuple, replayed: Replayed) -> None:
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

