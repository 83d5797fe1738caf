"""Round-robin tournaments played until the ratings settle (LLMArena paper §3.1: games are played
until the TrueSkill ratings converge).

    name: llmarena_round_robin
    seed: 0
    batch: 2                 # matches per pairing and seat order in each round
    sigma_threshold: 2.5     # a game stops once every agent's TrueSkill sigma is below this ...
    max_matches: 400         # ... or once another round would take it past this many matches (round 1 always plays)
    min_matches: 50          # optional: no stop by sigma before a game has played this many matches
    concurrency: 8
    agents:                  # names; a mapping gives run-spec seat settings (model, temperature, label ...)
      minimax: bot:minimax
      gpt: {agent: openai/gpt-4o-mini, temperature: 0.0}
    games:
      - game: connect_four
        agents: [minimax, gpt]         # optional: a subset of the agents
      - {game: undercover, preset: llmarena}
      - {game: hanabi, self_play: true}   # cooperative: scored by average reward, played to the cap

Each round of a game is a run spec (`<name>-<game>-r<round>`, fixed seeds) played by `runner.run_spec`: every
pair of agents in both seat orders (in a game of more seats, each agent of the pair once in the first seat
and the other in all the rest). Specs are deterministic, so running the tournament again resumes it (rounds
already played are skipped). Ratings are read from all of the game's matches in the database
(`ratings.trueskill_table`), so a resumed tournament stops as soon as the stored ratings have settled.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import permutations
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from engine import store
from engine.games import get_game
from engine.play.runner import run_spec
from engine.play.spec import RunSpec, SpecError, parse_spec, seat_name
from engine.play.spec_text import check_mapping
from engine.score.outcomes import narrowed, seat_outcomes_sql
from engine.score.ratings import trueskill_table
from engine.store.selection import ALL, contested_sql

KEYS = {"name", "description", "seed", "batch", "sigma_threshold", "max_matches", "min_matches", "concurrency",
        "defaults", "agents", "games"}
GAME_KEYS = {"game", "preset", "params", "agents", "self_play"}


@dataclass
class GamePlan:
    game: str
    preset: str
    params: dict[str, Any]
    agents: list[str]
    self_play: bool = False  # a cooperative game: each agent teams with itself, its rounds run to the cap


@dataclass
class Tournament:
    name: str
    seed: int
    batch: int
    sigma_threshold: float
    max_matches: int
    min_matches: int
    concurrency: int
    defaults: dict[str, Any]
    agents: dict[str, Any]
    games: list[GamePlan]


STANDINGS = ["agent", "mu", "sigma", "mu_lo", "mu_hi", "conservative", "matches", "wins", "note"]


@dataclass
class GameResult:
    game: str
    rounds: int = 0
    matches: int = 0
    errors: int = 0
    stopped_by: str = ""  # 'sigma', 'cap' or 'errors'
    ratings: pd.DataFrame = field(default_factory=pd.DataFrame)


def _positive(raw: dict, key: str, default: Any, kind: type) -> Any:
    value = raw.get(key, default)
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if not number or value <= 0 or kind is int and value != int(value):
        raise SpecError(f"{key}: must be a positive {kind.__name__}, got {value!r}")
    return kind(value)


def parse_tournament(raw: Any) -> Tournament:
    check_mapping(raw, KEYS, "a tournament is a mapping with 'name', 'agents' and 'games'")
    agents = raw.get("agents")
    if isinstance(agents, list):
        agents = {a: a for a in agents}
    if not isinstance(agents, dict) or len(agents) < 2:
        raise SpecError("agents: a tournament needs at least two agents (a list or a mapping of names)")
    games = raw.get("games")
    if not isinstance(games, list) or not games:
        raise SpecError("games: a tournament needs a non-empty list of games")
    plans = []
    for i, entry in enumerate(games):
        entry = {"game": entry} if isinstance(entry, str) else entry
        if not isinstance(entry, dict) or set(entry) - GAME_KEYS:
            raise SpecError(f"games[{i}]: a game name or a mapping with keys {sorted(GAME_KEYS)}")
        names = entry.get("agents") or list(agents)
        missing = [a for a in names if a not in agents]
        if missing or len(names) < 2:
            raise SpecError(f"games[{i}].agents: needs two or more of {list(agents)}, got {names!r}")
        plans.append(GamePlan(entry.get("game", ""), entry.get("preset", "default"), entry.get("params") or {},
                              list(names), bool(entry.get("self_play", False))))
    return Tournament(name=str(raw.get("name") or "").strip() or "tournament", seed=int(raw.get("seed", 0)),
                      batch=_positive(raw, "batch", 2, int),
                      sigma_threshold=_positive(raw, "sigma_threshold", 2.5, float),
                      max_matches=_positive(raw, "max_matches", 400, int),
                      min_matches=_positive(raw, "min_matches", 1, int),
                      concurrency=_positive(raw, "concurrency", 8, int), defaults=raw.get("defaults") or {},
                      agents=agents, games=plans)


def load_tournament(path: str | Path) -> Tournament:
    try:
        return parse_tournament(yaml.safe_load(Path(path).read_text(encoding="utf-8")))
    except FileNotFoundError:
        raise SpecError(f"no tournament at {path}") from None


def lineups(plan: GamePlan) -> list[list[str]]:
    """Every ordered pair of agents: the first in seat 1, the second in every other seat (self-play: each
    agent in every seat)."""
    cls = get_game(plan.game)
    n = cls.n_seats(cls.resolve_params(plan.params, plan.preset))
    if plan.self_play:
        return [[a] * n for a in plan.agents]
    return [[a] + [b] * (n - 1) for a, b in permutations(plan.agents, 2)]


def round_spec(t: Tournament, plan: GamePlan, r: int) -> RunSpec:
    """Round r of a game: `batch` matches of every lineup, with seeds of their own."""
    aliases = {k: v for k, v in t.agents.items() if v != k}
    return parse_spec({
        "name": f"{t.name}-{plan.game}-r{r}", "seeds": [t.seed + r * t.batch + i for i in range(t.batch)],
        "concurrency": t.concurrency, "defaults": t.defaults, "agents": aliases,
        "games": [{"game": plan.game, "preset": plan.preset, "params": plan.params, "lineups": lineups(plan)}],
    })


async def play_game(t: Tournament, plan: GamePlan, db: str | Path, progress: bool = False) -> GameResult:
    result = GameResult(plan.game)
    while True:
        spec = round_spec(t, plan, result.rounds)
        labels = {seat_name(s, m) for m in spec.matches for s in m.seats}  # as the ratings name them
        summary = await run_spec(spec, db, progress=progress)
        result.rounds += 1
        result.matches += len(spec.matches)
        result.errors += summary.errors
        ratings = standings(db, plan.game)
        result.ratings = ratings[ratings["agent"].isin(labels)].reset_index(drop=True)
        settled = len(result.ratings) == len(labels) and (result.ratings["sigma"] < t.sigma_threshold).all()
        if summary.errors:
            result.stopped_by = "errors"
        elif settled and not plan.self_play and result.matches >= t.min_matches:
            result.stopped_by = "sigma"
        elif result.matches + len(spec.matches) > t.max_matches:
            result.stopped_by = "cap"
        if result.stopped_by:
            return result


def standings(db: str | Path, game: str) -> pd.DataFrame:
    """The game's TrueSkill table (`ratings.trueskill_table`) with `wins` counting the contested matches an agent won,
    not its seats: in a game of more seats an agent holds several in one match (Undercover's civilians), and its
    seats won outnumbered its matches."""
    table = trueskill_table(db, game)
    seats, params = seat_outcomes_sql(narrowed(game, ALL))
    won = store.query(db, f"""
        WITH s AS ({seats}) SELECT agent, count(DISTINCT match_id) FILTER (WHERE won) AS wins
        FROM s WHERE {contested_sql("s")} GROUP BY agent""", params)
    wins = dict(zip(won["agent"], won["wins"], strict=True))
    return table.assign(wins=[int(wins.get(agent, 0)) for agent in table["agent"]])[STANDINGS]


def standings_text(ratings: pd.DataFrame) -> str:
    """The standings as the command prints them: 2 decimals, a blank where an agent has no rating (never NaN)."""
    shown = ratings.astype(object).map(lambda v: "" if pd.isna(v) else f"{v:.2f}" if isinstance(v, float)
                                       else str(v))
    return shown.to_string(index=False)


async def play_tournament(t: Tournament, db: str | Path, progress: bool = False) -> list[GameResult]:
    return [await play_game(t, plan, db, progress) for plan in t.games]
