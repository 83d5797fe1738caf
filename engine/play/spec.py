"""Run specs: a YAML file -> a validated list of match plans with stable ids.

    name: quick                 # required; names the run
    seed: 0                     # repeat r plays with seed + r (or give `seeds: [..]`)
    repeats: 2
    concurrency: 8              # matches played at once
    executor: local             # or ray: the matches played on a Ray cluster (docs/RUNNING.md)
    model_concurrency: 16       # calls in flight per model
    model_limits: {ollama/llama3: 1}   # optional per-model overrides of model_concurrency
    match_deadline_s: 300       # a match not over by then ends as an error (a dead endpoint, a stuck agent)
    defaults: {prompt_version: v1, strategy: vanilla}  # a model's temperature and max_tokens set nowhere: the
                                # game's protocol's (the paper's code's, `Game.protocol_settings`)
    agents:                     # optional aliases
      gpt: {agent: openai/gpt-4o-mini, temperature: 0.7}
      llama: {agent: hosted_vllm/llama, api_base: [http://gpu1:8000/v1, http://gpu2:8000/v1]}  # several endpoints
    games:
      - game: guessing_game
        presets: [default]      # or `preset: default`
        params: {rounds: 5}
        mirror: true            # each lineup also played with its seats reversed on the same seed: both seat
                                # orders, and a card game dealt in duplicate (the same deck, hands swapped)
        lineups:
          - {all: bot:random}                          # every seat the same
          - [gpt, bot:equilibrium, ...]                # one entry per seat
          - {challenger: gpt, others: bot:random}      # the challenger in every seat in turn; in a game
                                                       # with a special role (Chameleon, Undercover) it takes
                                                       # the special seat, then fills every other seat
                                                       # (MAgIC's runs); `rotate: true` keeps one seat each

The run id hashes the spec's content (not its concurrency): re-running the same spec resumes it.
Every error names where in the spec it is. The keys, their types and bounds are engine/play/spec_schema.py's models;
this module checks what needs the games and the other entries.

Upper bounds, so a typo cannot eat the machine before anything is played: `repeats` (and the length
of `seeds`) at most 10,000; seeds from 0 to 2^53 - 1; at most 100,000 matches in one run; every
numeric game parameter finite and within +-10^9 (games set tighter bounds of their own, and relations
between their parameters, listed by `python -m engine games`); names, labels and agent strings without
control characters; free text (the description, a persona, an endpoint) of bounded length. The YAML itself
is at most MAX_SPEC_CHARS characters, nested at most MAX_DEPTH deep, and its anchors may not expand it
past MAX_EXPANDED nodes and characters (PyYAML expands aliases without limit: a few lines of anchors
would otherwise fill the memory): engine/play/spec_text.py reads and checks the text before this module plans.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

from engine.agents.agent_names import agent_name, match_protocol
from engine.agents.base import AgentSpec
from engine.agents.bots import check_bot
from engine.agents.model_names import model_problem
from engine.agents.prompting import playable_version, versions
from engine.agents.strategies import check as check_strategy
from engine.games import get_game
from engine.games.base import AnswerSettings
from engine.play.spec_schema import (
    MATCH_DEADLINE_S,
    MAX_CONCURRENCY,
    MAX_REPEATS,
    MAX_SEED,
    Challenger,
    GameEntry,
    Seat,
    Spec,
    checked_int,
    not_a_url,
    validated,
)
from engine.play.spec_text import MAX_SPEC_CHARS, SpecError, check_shape, load_yaml, short

__all__ = ["MAX_CONCURRENCY", "MAX_MATCHES", "MAX_REPEATS", "MAX_SEED", "MatchPlan", "RunSpec", "SpecError",
           "check_seat", "int_setting", "load_spec", "not_a_url", "parse_spec", "seat_name"]

NOT_IDENTITY = {"concurrency", "model_concurrency", "model_limits", "description", "executor", "match_deadline_s"}
MAX_MATCHES = 100_000


@dataclass
class MatchPlan:
    match_id: str
    run_id: str
    game: str
    preset: str
    params: dict[str, Any]
    seed: int
    repeat: int
    lineup: int
    seats: list[AgentSpec]
    deadline_s: int = MATCH_DEADLINE_S  # the spec's match_deadline_s
    mirror: bool = False  # the lineup's seats in reverse order (a spec's `mirror: true`)
    deal: str | None = None  # shared by a lineup's match and its mirror on one seed: the same deal, seats swapped


@dataclass
class RunSpec:
    name: str
    run_id: str
    raw: dict[str, Any]
    concurrency: int
    model_concurrency: int
    matches: list[MatchPlan] = field(default_factory=list)
    model_limits: dict[str, int] = field(default_factory=dict)
    executor: str = "local"


def load_spec(path: str | Path) -> RunSpec:
    path = Path(path)
    try:
        if path.exists() and not path.is_dir() and not path.is_file():  # a FIFO would block the read forever
            raise SpecError(f"{path} is not a regular file: give the path of a run spec file (YAML)")
        with path.open(encoding="utf-8") as f:
            text = f.read(MAX_SPEC_CHARS + 1)
        if len(text) > MAX_SPEC_CHARS:
            raise SpecError(f"{path} is longer than {MAX_SPEC_CHARS:,} characters: a run spec is a few KB; "
                            "split it into several runs")
        raw = load_yaml(text)
    except FileNotFoundError:
        raise SpecError(f"no run spec at {path}") from None
    except IsADirectoryError:
        raise SpecError(f"{path} is a directory: give the path of a run spec file (YAML)") from None
    except UnicodeDecodeError as exc:
        raise SpecError(f"{path} is not UTF-8 text (byte {exc.start}): save it as UTF-8") from None
    except OSError as exc:
        raise SpecError(f"cannot read {path}: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise SpecError(f"{path} is not valid YAML: {' '.join(str(exc).split())}") from None
    return parse_spec(raw)


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _stable_hash(value: Any, n: int = 12) -> str:
    return _hash_of(_canonical(value), n)


def _hash_of(text: str, n: int) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:n]


def _canonical_list(items_json: list[str]) -> str:
    """`_canonical` of a list from its items' own: a lineup's seats (up to 100) are written once for all its seeds,
    and every match id stays the hash it always was."""
    return "[" + ", ".join(items_json) + "]"


def int_setting(raw: dict, key: str, default: int, lo: int, where: str = "", hi: int = MAX_CONCURRENCY) -> int:
    """`raw[key]` (or `default`) as an integer from lo to hi, or SpecError naming where it is (the launch form
    checks its fields with it)."""
    return checked_int(raw.get(key, default), lo, hi, f"{where}{key}")


def parse_spec(raw: Any) -> RunSpec:
    if not isinstance(raw, dict):
        raise SpecError("a run spec must be a mapping with at least 'name' and 'games'")
    check_shape(raw)
    read = validated(Spec, raw)
    seeds = read.seeds
    if seeds is None:
        if read.seed + read.repeats - 1 > MAX_SEED:
            raise SpecError(f"seed: with {read.repeats} repeats must be from 0 to {MAX_SEED - read.repeats + 1}, "
                            f"got {read.seed}")
        seeds = [read.seed + r for r in range(read.repeats)]
    elif len(set(seeds)) < len(seeds):  # a seed twice replays one match: one sample counted twice
        twice = sorted(seed for seed, times in Counter(seeds).items() if times > 1)
        raise SpecError(f"seeds: each seed plays the same match, so a seed given twice counts one sample twice; "
                        f"repeated: {short(twice)}")
    aliases = read.agents or {}
    _no_alias_of_an_alias(aliases)
    identity = {k: v for k, v in raw.items() if k not in NOT_IDENTITY}
    run_id = f"{read.name}-{_stable_hash(identity, 8)}"
    spec = RunSpec(name=read.name, run_id=run_id, raw=raw, concurrency=read.concurrency,
                   model_concurrency=read.model_concurrency, model_limits=dict(read.model_limits or {}),
                   executor=read.executor or "local")
    for gi, entry in enumerate(read.games):
        spec.matches.extend(_plan_game(entry, f"games[{gi}].", gi, run_id, seeds, read.defaults or {}, aliases,
                                       MAX_MATCHES - len(spec.matches)))
    for plan in spec.matches:
        plan.deadline_s = read.match_deadline_s
    _one_agent_per_label(spec)
    return spec


def seat_name(seat: AgentSpec, plan: MatchPlan) -> str:
    """The name a seat's agent is written under in `plan`'s match (engine/agents/agent_names.py): its label, its agent
    string and, for a model, the settings that differ from the game's protocol."""
    return agent_name(seat.agent, seat.label, seat.temperature, seat.prompt_version, seat.max_tokens,
                      protocol=match_protocol(plan.game, plan.params))


def _one_agent_per_label(spec: RunSpec) -> None:
    """A label is a display name for one model (played under several settings, say): one label for two agent
    strings would read as one model where the tables show two, so it is refused."""
    named: dict[str, str] = {}
    for plan in spec.matches:
        for seat in plan.seats:
            if seat.label is None or seat.label == seat.agent:
                continue
            agent = seat.agent
            if named.setdefault(seat.label, agent) != agent:
                raise SpecError(f"{plan.game}: the label {seat.label!r} names two different agents "
                                f"({named[seat.label]} and {agent}); a label is a display name: give each agent "
                                f"its own")


def _no_alias_of_an_alias(aliases: dict[str, Any]) -> None:
    """An alias names an agent: one naming another alias would be played as a model of that name, and error late."""
    for alias, seat in aliases.items():
        named = seat.get("agent") if isinstance(seat, dict) else seat
        if isinstance(named, str) and named in aliases:
            raise SpecError(f"agents.{alias}: names the alias {short(named)}; an alias names an agent (bot:... or "
                            f"provider/model), not another alias")


def _plan_game(entry: GameEntry, where: str, gi: int, run_id: str, seeds: list[int], defaults: dict,
               aliases: dict, room: int) -> list[MatchPlan]:
    """The game's matches; `room` is how many more the run may hold (checked before any is built)."""
    try:
        cls = get_game(entry.game)
    except ValueError as exc:
        raise SpecError(f"{where}game: {exc}") from None
    presets = _presets(entry, cls, where)
    params = entry.params or {}
    game_seeds = seeds
    if entry.repeats is not None:
        game_seeds = [seeds[0] + r for r in range(entry.repeats)]
        if game_seeds[-1] > MAX_SEED:
            raise SpecError(f"{where}repeats: seeds would pass {MAX_SEED}")
    lineups, mirror = entry.lineups, entry.mirror
    plans = []
    for preset in presets:
        try:
            resolved = cls.resolve_params(params, preset)
            n = cls.n_seats(resolved)
        except ValueError as exc:
            raise SpecError(f"{where}params: {exc}") from None
        protocol = cls.protocol_settings(resolved)  # a seat's temperature and max_tokens where it sets none
        expanded = [lineup for li, raw_lineup in enumerate(lineups)
                    for lineup in _expand_lineup(raw_lineup, n, f"{where}lineups[{li}]", defaults, aliases, cls,
                                                 protocol)]
        mirrored = _mirrors(expanded) if mirror else {}
        expanded += [expanded[original][::-1] for original in mirrored.values()]
        if len(plans) + len(expanded) * len(game_seeds) > room:  # checked before a single plan is built...
            raise _too_many(where)
        for li, lineup in enumerate(expanded):
            for seat, agent in enumerate(_placed(cls, resolved, lineup, game_seeds[0], n)[0][1]):
                _check_agent(cls.name, agent, f"{where}lineups seat {seat + 1}")  # every seed seats the same agents
            described: dict[int, str] = {}  # a lineup's seeds share its seats list: written once
            for r, seed in enumerate(game_seeds):
                for match_params, seats in _placed(cls, resolved, lineup, seed, n):
                    if id(seats) not in described:
                        described[id(seats)] = _canonical([asdict(s) for s in seats])
                    key = _canonical_list([*map(_canonical, [run_id, gi, preset, _identity(cls, match_params), li]),
                                           described[id(seats)], _canonical(r), _canonical(seed)])
                    plan = MatchPlan(match_id=_hash_of(key, 16), run_id=run_id, game=cls.name, preset=preset,
                                     params=match_params, seed=seed, repeat=r, lineup=li, seats=seats)
                    if li in mirrored or li in mirrored.values():
                        original = mirrored.get(li, li)
                        plan.mirror = li in mirrored
                        plan.deal = _stable_hash([run_id, gi, preset, _identity(cls, match_params), original, seed])
                    plans.append(plan)
                if len(plans) > room:  # ...and as they are (a challenger lineup makes several per seed)
                    raise _too_many(where)
    return plans


def _mirrors(expanded: list) -> dict[int, int]:
    """The mirrored lineups of `expanded` (each list lineup whose seats reversed seat other agents; a `_ByRole`
    lineup already seats its challenger in turn), numbered after them: their number -> the lineup they mirror."""
    reversible = [li for li, lineup in enumerate(expanded) if isinstance(lineup, list) and lineup[::-1] != lineup]
    return {len(expanded) + i: li for i, li in enumerate(reversible)}


def _presets(entry: GameEntry, cls: Any, where: str) -> list[str]:
    """The game's presets: `presets: [a, b]`, or `preset: a` (default: `default`), each one the game has, once."""
    if entry.presets is not None and entry.preset is not None:
        raise SpecError(f"{where}preset: give 'preset' or 'presets', not both")
    key = "presets" if entry.presets is not None else "preset"
    presets = entry.presets if entry.presets is not None else [entry.preset or "default"]
    for preset in presets:
        if preset not in cls.presets:
            raise SpecError(f"{where}{key}: game '{cls.name}' has no preset {short(preset)} "
                            f"(has: {', '.join(cls.presets)})")
    if len(set(presets)) < len(presets):
        raise SpecError(f"{where}presets: lists a preset twice (its matches would be played twice)")
    return presets


def _too_many(where: str) -> SpecError:
    return SpecError(f"{where.rstrip('.')}: the run would have more than {MAX_MATCHES} matches; split it into "
                     f"several runs")


@dataclass(frozen=True)
class _ByRole:
    """`{challenger: A, others: B}` in a game with a special role: seated per match by `_placed`."""

    hero: AgentSpec
    other: AgentSpec


def _identity(cls: Any, params: dict[str, Any]) -> dict[str, Any]:
    """The params a match id hashes: all but those added later at their default (`Param.added_later`)."""
    return {k: v for k, v in params.items()
            if not (k in cls.params and cls.params[k].added_later and v == cls.params[k].default)}


def _placed(cls: Any, params: dict[str, Any], lineup: list[AgentSpec] | _ByRole, seed: int,
            n: int) -> list[tuple[dict[str, Any], list[AgentSpec]]]:
    """The (params, seats) of the matches one lineup makes for one seed. A `_ByRole` lineup, as the
    MAgIC authors' run_competition_*.py seat their challenger: once in the special seat (the
    defender everywhere else), once in every other seat (the defender in the special one); the
    match's `tested_role` tells the scorers which. When the special seat is drawn at random (no
    setting names it) the challenger takes each seat in turn instead."""
    if not isinstance(lineup, _ByRole):
        return [(params, lineup)]
    hero, other = lineup.hero, lineup.other
    special = cls.special_seat_for(params, seed)
    if special is None:
        return [(params, [hero if s == c else other for s in range(n)]) for c in range(n)]
    return [(params | {"tested_role": "special"}, [hero if s == special else other for s in range(n)]),
            (params | {"tested_role": "common"}, [other if s == special else hero for s in range(n)])]


def _expand_lineup(raw: Any, n: int, where: str, defaults: dict, aliases: dict, cls: Any,
                   protocol: AnswerSettings) -> list[list[AgentSpec] | _ByRole]:
    if isinstance(raw, list):
        if len(raw) != n:
            raise SpecError(f"{where}: this game has {n} seats but the lineup lists {len(raw)}")
        return [[_seat(s, f"{where}[{i}]", defaults, aliases, protocol, cls.name) for i, s in enumerate(raw)]]
    if isinstance(raw, dict) and set(raw) == {"all"}:
        return [[_seat(raw["all"], f"{where}.all", defaults, aliases, protocol, cls.name)] * n]
    if isinstance(raw, dict) and "challenger" in raw:
        lineup = validated(Challenger, raw, where)
        hero = _seat(lineup.challenger, f"{where}.challenger", defaults, aliases, protocol, cls.name)
        other = _seat(lineup.others, f"{where}.others", defaults, aliases, protocol, cls.name)
        if hasattr(cls, "special_seat_for") and not lineup.rotate:
            return [_ByRole(hero, other)]
        return [[hero if s == c else other for s in range(n)] for c in range(n)]
    raise SpecError(f"{where}: a lineup is a list of {n} seats, {{all: AGENT}} or "
                    f"{{challenger: A, others: B[, rotate: true]}}")


def _seat(raw: Any, where: str, defaults: dict, aliases: dict, protocol: AnswerSettings, game: str) -> AgentSpec:
    """The seat `raw` names in `game`, its settings over the spec's `defaults`; a model's temperature or max_tokens
    set by neither is the game's protocol's (`Game.protocol_settings`): the authors' unless the spec changes them. A
    bot's seat keeps the arena's defaults: its play ignores them, and the ids of its matches stay put. A model asking
    for the authors' prompts (`authors-vN`) plays the arena's `vN` where they were not imported."""
    if isinstance(raw, str):
        raw = {"agent": raw}
    if not isinstance(raw, dict) or not isinstance(raw.get("agent"), str) or not raw["agent"].strip():
        raise SpecError(f"{where}: a seat is an agent string or a mapping with 'agent'")
    if raw["agent"] in aliases:
        alias = aliases[raw["agent"]]
        alias = {"agent": alias} if isinstance(alias, str) else dict(alias)
        raw = alias | {k: v for k, v in raw.items() if k != "agent"}  # an alias is no label: no part of a name
    given = dict(defaults) | raw
    seat = validated(Seat, given, where).model_dump()
    if not seat["agent"].startswith("bot:"):
        seat |= {key: getattr(protocol, key) for key in ("temperature", "max_tokens") if key not in given}
    seat["prompt_version"] = playable_version(game, seat["prompt_version"])
    bases = seat["api_base"]
    if bases is not None:  # several endpoints serve one model: its calls are balanced over them
        seat["api_base"] = tuple(bases) if len(bases) > 1 else bases[0]
    return AgentSpec(**seat)


def _check_agent(game: str, agent: AgentSpec, where: str) -> None:
    if agent.is_bot:
        try:
            check_bot(game, agent.agent)
        except ValueError as exc:
            raise SpecError(f"{where}: {exc}") from None
        return
    if agent.prompt_version not in versions(game):
        raise SpecError(f"{where}: game '{game}' has no prompt version '{agent.prompt_version}' "
                        f"(has: {', '.join(versions(game))})")
    try:
        check_strategy(agent.strategy)
    except ValueError as exc:
        raise SpecError(f"{where}: {exc}") from None
    if problem := model_problem(agent.agent):
        raise SpecError(f"{where}: {problem}")


def check_seat(game: str, raw: Any, defaults: dict, where: str = "seat") -> AgentSpec:
    """One seat of `game` as a spec reads it (its settings over `defaults`), or SpecError: the launch form
    checks each seat, and the run-wide settings, with the spec's own rules."""
    cls = get_game(game)
    seat = _seat(raw, where, defaults, {}, cls.protocol_settings(cls.resolve_params({})), cls.name)
    _check_agent(cls.name, seat, where)
    return seat
