"""The launch form -> a run spec. Every field is checked on its own, so each wrong one gets its message under
its widget; the checks are the run spec's own (`engine.play.spec`, with its bounds), plus what only the dashboard
asks: a name usable as a folder, a cap on concurrency, and model strings litellm can route."""

from __future__ import annotations

import hmac
import os
import re
from dataclasses import dataclass, field
from typing import Any

from engine.agents.bots import bot_names
from engine.agents.prompting import versions
from engine.agents.strategies import check as check_strategy
from engine.games import all_games, get_game
from engine.play.spec import MAX_REPEATS, MAX_SEED, RunSpec, SpecError, check_seat, int_setting, not_a_url, parse_spec
from engine.play.spec_text import control_character
from engine.secrets import secret_in
from engine.serve.launch.study import UNITS, StudySettings, budget_problem
from engine.study.certainty_reads import frame_of

ADMIN_TOKEN_ENV = "ARENA_ADMIN_TOKEN"
PUBLIC_ENV = "ARENA_SERVED_BEYOND_LOCALHOST"  # set by `python -m engine serve` on a non-loopback address
NAME_CHARACTER = re.compile(r"[A-Za-z0-9_.-]")
MAX_NAME = 64
NAME_CHARACTERS = "letters, digits, '_', '.' or '-'"
NAME_RULE = f"1 to {MAX_NAME} {NAME_CHARACTERS}, starting with a letter or digit"
SUGGESTED_MODELS = ("openai/gpt-4o-mini", "openai/gpt-4o", "anthropic/claude-3-5-haiku-20241022",
                    "gemini/gemini-1.5-flash", "ollama/llama3", "local/smollm2")
MAX_CONCURRENCY = 64  # the spec allows more; a dashboard on a laptop does not need it


@dataclass
class SeatChoice:
    """One seat: a bot or a model string, and for a model its own temperature and prompt version
    (None: the run-wide default) and the endpoint serving it (None: the provider's own, or its environment's)."""

    agent: str
    temperature: float | None = None
    prompt_version: str | None = None
    api_base: str | None = None

    def raw(self) -> str | dict[str, Any]:
        """The seat as a run spec writes it."""
        own = {k: v for k, v in (("temperature", self.temperature), ("prompt_version", self.prompt_version),
                                 ("api_base", (self.api_base or "").strip() or None))
               if v is not None and not self.agent.strip().startswith("bot:")}
        return {"agent": self.agent.strip(), **own} if own else self.agent.strip()


@dataclass
class GameChoice:
    """One game of the form: its presets, the parameters the user changed, one seat each."""

    game: str
    presets: list[str]
    params: dict[str, Any] = field(default_factory=dict)
    seats: list[SeatChoice | str] = field(default_factory=list)

    def seat_choices(self) -> list[SeatChoice]:
        return [s if isinstance(s, SeatChoice) else SeatChoice(s) for s in self.seats]


@dataclass
class LaunchForm:
    name: str
    games: list[GameChoice]
    prompt_version: str = "v1"
    strategy: str = "vanilla"
    temperature: float | None = None  # None: each game's protocol (`Game.protocol_settings`)
    max_tokens: int | None = None
    repeats: int = 1
    seed: int = 0
    concurrency: int = 4
    until_separated: bool = False  # play as an adaptive study (`run --until-separated`), not the grid once
    budget_unit: str | None = None  # the study's budget: "dollars", "matches" or None (no budget)
    budget: float = 0.0

    def defaults(self) -> dict[str, Any]:
        """The run-wide settings; a temperature or answer cap left empty is each game's protocol's."""
        chosen = {"temperature": None if self.temperature is None else float(self.temperature),
                  "max_tokens": self.max_tokens}
        return {"prompt_version": self.prompt_version, "strategy": self.strategy} | {
            key: value for key, value in chosen.items() if value is not None}


@dataclass
class BuiltSpec:
    """The spec the form describes, or the reason of each field that is wrong (field key -> message)."""

    raw: dict[str, Any] | None
    spec: RunSpec | None
    errors: dict[str, str]
    study: StudySettings | None = None  # None: the grid played once


def field_key(game: str, part: str, item: str | int | None = None) -> str:
    """The key of a per-game field in `BuiltSpec.errors` (and of its widget on the page)."""
    return f"{game}.{part}" if item is None else f"{game}.{part}.{item}"


def agent_options(game: str, known_models: list[str] | tuple[str, ...] = ()) -> list[str]:
    """What a seat can be picked from: the game's bots, then models (those seen in the database first)."""
    models = list(dict.fromkeys([*known_models, *SUGGESTED_MODELS]))
    return [f"bot:{b}" for b in bot_names(game) if b != "fixed"] + models


def takes_endpoint(agent: str) -> bool:
    """A model served over the network (every litellm provider accepts an api_base); not a bot, not an embedded
    local model."""
    from engine.agents.local_model import PROVIDER as LOCAL_PROVIDER  # imports litellm: only once a seat asks

    agent = agent.strip()
    return bool(agent) and not agent.startswith("bot:") and agent.partition("/")[0] != LOCAL_PROVIDER


def endpoint_problem(endpoint: str) -> str | None:
    """Why a seat's endpoint is not one the spec would store, or None: an http(s) URL naming a host, with no
    credential in it (a spec is stored with its run; keys stay in the environment)."""
    endpoint = endpoint.strip()
    if why := secret_in(endpoint):
        return f"endpoint: holds {why}; keys go in the environment or .env, never in the run's spec"
    return f"endpoint: {why}" if (why := not_a_url(endpoint)) else None


def seat_count(game: str, preset: str, params: dict[str, Any]) -> int:
    cls = get_game(game)
    return cls.n_seats(cls.resolve_params(params, preset))


def param_problems(game: str, params: dict[str, Any]) -> dict[str, str]:
    """Each changed parameter that is wrong (unknown, or outside the game's Param bounds): name -> why."""
    cls = get_game(game)
    problems = {}
    for pname, value in params.items():
        if pname not in cls.params:
            problems[pname] = f"'{game}' has no parameter '{pname}'"
            continue
        try:
            cls.params[pname].validate(pname, value)
        except (SpecError, ValueError) as exc:
            problems[pname] = str(exc)
    return problems


def seats_shown(game: str, presets: list[str], params: dict[str, Any]) -> int:
    """How many seat pickers the form shows: the seat count the first preset and the changed parameters give.
    A wrong parameter (its own message says why) is left out, so the pickers stay for the seat count
    the rest gives instead of vanishing; 0 without a known preset."""
    cls = get_game(game)
    preset = next((p for p in presets if p in cls.presets), None)
    if preset is None:
        return 0
    wrong = param_problems(game, params)
    try:
        return seat_count(game, preset, {k: v for k, v in params.items() if k not in wrong})
    except (SpecError, ValueError):
        return 0


def name_problem(name: str) -> str | None:
    """What is wrong with a run name (it names the run's folder, so: NAME_RULE), or None: empty, too long by how
    much, or which character where (position 1 is the first)."""
    if not name:
        return f"run name: empty; give it {NAME_RULE}"
    if len(name) > MAX_NAME:
        return f"run name: {len(name)} characters, {len(name) - MAX_NAME} too many (at most {MAX_NAME})"
    if (at := control_character(name)) is not None:
        return f"run name: a control character (U+{ord(name[at]):04X}) at position {at + 1}; use {NAME_CHARACTERS}"
    bad = next((i for i, c in enumerate(name) if not NAME_CHARACTER.fullmatch(c)), None)
    if bad is not None:
        shown = "a space" if name[bad] == " " else repr(name[bad])
        return f"run name: {shown} at position {bad + 1} is not allowed; use {NAME_CHARACTERS}"
    if not name[0].isalnum():
        return f"run name: starts with {name[0]!r}; start it with a letter or digit"
    return None


def _spec_error(errors: dict[str, str], key: str, check, *args) -> Any:
    """Run one of the spec's checks; its SpecError becomes the message of field `key`."""
    try:
        return check(*args)
    except (SpecError, ValueError) as exc:
        errors[key] = str(exc)
        return None


def build_spec(form: LaunchForm) -> BuiltSpec:
    """Check every field on its own (so each wrong one gets its message), then the whole spec."""
    errors: dict[str, str] = {}
    if problem := name_problem(form.name or ""):
        errors["name"] = problem
    counts = {"repeats": form.repeats, "seed": form.seed, "concurrency": form.concurrency}
    for key, lo, hi in (("repeats", 1, MAX_REPEATS), ("seed", 0, MAX_SEED), ("concurrency", 1, MAX_CONCURRENCY)):
        _spec_error(errors, key, int_setting, counts, key, 1, lo, "", hi)
    _spec_error(errors, "strategy", check_strategy, form.strategy)
    for key in ("temperature", "max_tokens"):  # a run-wide default is checked as any seat's setting is
        if getattr(form, key) is not None:
            _spec_error(errors, key, check_seat, "tictactoe", {"agent": "bot:random", key: getattr(form, key)}, {}, "")
    if not form.games:
        errors["games"] = "pick at least one game"
    known = all_games()
    for choice in form.games:
        if choice.game not in known:
            errors["games"] = f"unknown game '{choice.game}'"
            continue
        _check_game(choice, form, errors)
    study = _study(form, errors)
    if errors:
        return BuiltSpec(None, None, errors)
    raw = {
        "name": form.name, "seed": form.seed, "repeats": form.repeats, "concurrency": form.concurrency,
        "defaults": form.defaults(),
        "games": [{"game": c.game, "presets": list(c.presets), "params": dict(c.params),
                   "lineups": [[s.raw() for s in c.seat_choices()]]} for c in form.games],
    }
    try:
        spec = parse_spec(raw)
    except SpecError as exc:
        return BuiltSpec(raw, None, {"spec": str(exc)})
    if study is not None:
        try:
            frame_of(spec)  # an adaptive study plays pairs of agents in two-seat games
        except SpecError as exc:
            return BuiltSpec(raw, None, {"study": f"adaptive study: {exc}"})
    return BuiltSpec(raw, spec, {}, study)


def _study(form: LaunchForm, errors: dict[str, str]) -> StudySettings | None:
    """The adaptive study the form asks for (None: the grid once); a budget not above zero is refused."""
    if not form.until_separated:
        return None
    if form.budget_unit is None:
        return StudySettings()
    if problem := budget_problem(form.budget, form.budget_unit):
        errors["budget"] = problem
        return None
    amount = float(form.budget) if form.budget_unit == "dollars" else int(form.budget)
    return StudySettings(**{UNITS[form.budget_unit]: amount})


def _check_game(choice: GameChoice, form: LaunchForm, errors: dict[str, str]) -> None:
    cls = get_game(choice.game)
    g = choice.game
    wrong_params = param_problems(g, choice.params)
    for pname, problem in wrong_params.items():
        errors[field_key(g, "param", pname)] = problem
    valid_params = {k: cls.params[k].validate(k, v) for k, v in choice.params.items() if k not in wrong_params}
    unknown = [p for p in choice.presets if p not in cls.presets]
    if not choice.presets or unknown:
        errors[field_key(g, "presets")] = (f"'{g}' has no preset {', '.join(unknown)} (has: {', '.join(cls.presets)})"
                                           if unknown else "pick at least one preset")
    seats = {n for preset in choice.presets if preset in cls.presets
             if (n := _spec_error(errors, field_key(g, "params"), seat_count, g, preset, valid_params)) is not None}
    if len(seats) > 1:
        errors[field_key(g, "presets")] = (f"these presets seat different numbers of players ({sorted(seats)}): "
                                           "launch them as separate runs")
    elif seats and not wrong_params and len(choice.seats) != next(iter(seats)):
        # with a wrong parameter the seat count is not known (players=1): its own message says why, not this one
        errors[field_key(g, "seats")] = f"this game has {next(iter(seats))} seats, the lineup lists {len(choice.seats)}"
    defaults = {k: v for k, v in form.defaults().items() if k not in errors}  # a wrong default is said once, above
    models = [s for s in choice.seat_choices() if s.agent.strip() and not s.agent.strip().startswith("bot:")]
    if any(s.prompt_version is None for s in models) and form.prompt_version not in versions(g):
        errors["prompt_version"] = (f"'{g}' has no prompt version '{form.prompt_version}' "
                                    f"(has: {', '.join(versions(g))})")
        defaults.pop("prompt_version")
    for i, seat in enumerate(choice.seat_choices()):
        key = field_key(g, "seat", i)
        if not seat.agent.strip():
            errors[key] = "pick a bot or type a model string"
            continue
        if seat.api_base and seat.api_base.strip() and (problem := endpoint_problem(seat.api_base)):
            errors[field_key(g, "endpoint", i)] = problem
            seat = SeatChoice(seat.agent, seat.temperature, seat.prompt_version)  # said once, under its own field
        _spec_error(errors, key, check_seat, g, seat.raw(), defaults, f"seat {i + 1}")  # a model string included


# ---------------------------------------------------------------- who may launch
def admin_token() -> str | None:
    """`ARENA_ADMIN_TOKEN`, or None when unset or blank (a token of spaces guards nothing)."""
    return os.environ.get(ADMIN_TOKEN_ENV, "").strip() or None


def admin_required() -> bool:
    return admin_token() is not None or serving_beyond_localhost()


def serving_beyond_localhost() -> bool:
    """`python -m engine serve --address` other than loopback says so: anyone on the network sees the pages."""
    return os.environ.get(PUBLIC_ENV) == "1"


def admin_refusal() -> str:
    if admin_token() is None:
        return ("Launching is off: the dashboard is served beyond localhost without an admin token. Set "
                "ARENA_ADMIN_TOKEN and restart `python -m engine serve`.")
    return "Starting a run needs the admin token (ARENA_ADMIN_TOKEN)."


def admin_ok(given: str | None) -> bool:
    """Launching and cancelling need `ARENA_ADMIN_TOKEN` when it is set; viewing never does. Served beyond
    localhost without a token, nobody may launch."""
    wanted = admin_token()
    if wanted is None:
        return not serving_beyond_localhost()
    return hmac.compare_digest((given or "").strip().encode(), wanted.encode())
