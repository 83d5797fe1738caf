"""The run spec's structure as pydantic models: its keys, their types and bounds. A refusal names where it is
(`games[0].lineups[0][1].temperature: Input should be less than or equal to 2, got 5`). What needs the games,
the bots or the other entries (a game's presets and parameters, a lineup's seat count, aliases) is checked by
engine/play/spec.py once the structure passes.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeVar, get_args
from urllib.parse import urlsplit

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    TypeAdapter,
    ValidationError,
)

from engine.agents.agent_names import DEFAULT_MAX_TOKENS, DEFAULT_PROMPT_VERSION, DEFAULT_TEMPERATURE
from engine.play.spec_text import SpecError, name_problem, short, text_problem

MAX_REPEATS = 10_000
MAX_SEED = 2**53 - 1  # exact as a JSON number everywhere (a browser's too), well inside the database's BIGINT
MAX_CONCURRENCY = 10_000
MAX_DESCRIPTION = 10_000
MAX_STRATEGY = 2_000  # a free-text persona goes into every prompt
MAX_SETTING_TEXT = 2_000  # a prompt version, an endpoint URL
MAX_ENDPOINTS = 64
MAX_ANSWER_TOKENS = 1_000_000
MATCH_DEADLINE_S, MAX_MATCH_DEADLINE_S = 300, 7 * 24 * 3600


def _checked(problem_of):
    def check(value: str, *args: Any) -> str:
        if problem := problem_of(value, *args):
            raise ValueError(problem)
        return value
    return check


def _text(limit: int) -> Any:
    return Annotated[str, AfterValidator(lambda value: _checked(text_problem)(value, limit))]


def not_a_url(endpoint: str) -> str | None:
    """Why `endpoint` is no URL a provider can be reached at (an http(s) URL naming a host), or None."""
    parts = urlsplit(endpoint.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname or any(c.isspace() for c in endpoint.strip()):
        return f"{endpoint!r} is not a URL; write it as http://host:port/v1"
    return None


def _agent_problem(agent: str) -> str | None:
    if problem := name_problem(agent):
        return problem
    if any(c.isspace() for c in agent):
        return f"agent {agent!r} has whitespace; use a litellm model string or bot:<name>"
    return None


Printable = Annotated[str, AfterValidator(_checked(name_problem))]
Name = Annotated[Printable, AfterValidator(str.strip)]  # "Alice " is Alice
Count = Annotated[int, Field(ge=1, le=MAX_CONCURRENCY)]
Seed = Annotated[int, Field(ge=0, le=MAX_SEED)]
Endpoint = Annotated[str, Field(max_length=MAX_SETTING_TEXT), AfterValidator(_checked(not_a_url))]


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


class Seat(_Strict):
    """A seat's settings once its alias and the spec's defaults are merged in (engine.agents.base.AgentSpec)."""

    agent: Annotated[str, AfterValidator(_checked(_agent_problem))]
    prompt_version: _text(MAX_SETTING_TEXT) = DEFAULT_PROMPT_VERSION
    strategy: _text(MAX_STRATEGY) = "vanilla"
    temperature: Annotated[float, Field(ge=0, le=2)] = DEFAULT_TEMPERATURE
    max_tokens: Annotated[int, Field(ge=1, le=MAX_ANSWER_TOKENS)] = DEFAULT_MAX_TOKENS
    api_base: Annotated[list[Endpoint], Field(min_length=1, max_length=MAX_ENDPOINTS),
                        BeforeValidator(lambda value: [value] if isinstance(value, str) else value)] | None = None
    label: Name | None = None


class Challenger(_Strict):
    """`{challenger: A, others: B}`: A in every seat in turn (in the special seat, then the others, in a game
    with a special role, unless `rotate`)."""

    challenger: Any
    others: Any
    rotate: bool = False


class GameEntry(_Strict):
    game: str
    preset: str | None = None
    presets: Annotated[list[str], Field(min_length=1)] | None = None
    params: dict[str, Any] | None = None
    lineups: Annotated[list[Any], Field(min_length=1)]
    repeats: Annotated[int, Field(ge=1, le=MAX_REPEATS)] | None = None
    mirror: StrictBool = False  # each lineup also played with its seats reversed on the same seed


class Spec(_Strict):
    name: Name
    description: _text(MAX_DESCRIPTION) | None = None
    seed: Seed = 0
    seeds: Annotated[list[Seed], Field(min_length=1, max_length=MAX_REPEATS)] | None = None
    repeats: Annotated[int, Field(ge=1, le=MAX_REPEATS)] = 1
    concurrency: Count = 8
    model_concurrency: Count = 16
    model_limits: dict[str, Count] | None = None
    executor: Literal["local", "ray"] | None = None
    match_deadline_s: Annotated[int, Field(ge=1, le=MAX_MATCH_DEADLINE_S)] = MATCH_DEADLINE_S
    defaults: dict[str, Any] | None = None
    agents: dict[Printable, Annotated[Any, AfterValidator(lambda value: _checked(_alias_problem)(value))]] | None = None
    games: Annotated[list[GameEntry], Field(min_length=1)]


def _alias_problem(seat: Any) -> str | None:
    """An alias is an agent string or a seat mapping (its settings are checked where a lineup uses it)."""
    if isinstance(seat, (str, dict)):
        return None
    return f"an agent string or a mapping with 'agent', got {short(seat)}"


Model = TypeVar("Model", bound=BaseModel)


def validated(model: type[Model], raw: Any, where: str = "") -> Model:
    """`raw` read as `model`, or SpecError naming the outermost wrong field from `where` on (an unknown key at the
    top before what is wrong inside a game; an unknown key before a missing one, its likely misspelling)."""
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        error = min(exc.errors(), key=lambda error: (len(error["loc"]), error["type"] != "extra_forbidden"))
        raise SpecError(_located(model, error, where)) from None


def checked_int(value: Any, lo: int, hi: int, where: str) -> int:
    """`value` if it is an integer from lo to hi, or SpecError naming `where` (the launch form's fields)."""
    try:
        return TypeAdapter(Annotated[int, Field(strict=True, ge=lo, le=hi)]).validate_python(value)
    except ValidationError as exc:
        raise SpecError(_located(BaseModel, exc.errors()[0], where)) from None


def _located(model: type[BaseModel], error: dict, where: str) -> str:
    loc = error["loc"]
    path = where + "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc)
    path = path.lstrip(".") or "the spec"
    if error["type"] == "extra_forbidden":
        return f"{path}: unknown key; allowed: {', '.join(_keys_at(model, loc[:-1]))}"
    if error["type"] == "missing":
        return f"{path}: required"
    if error["type"] == "value_error":
        return f"{path}: {error['ctx']['error']}"
    return f"{path}: {error['msg']}, got {short(error['input'])}"


def _keys_at(model: type[BaseModel], loc: tuple) -> list[str]:
    """The keys of the model found at `loc` (list indexes passed over)."""
    for part in loc:
        if isinstance(part, str):
            model = next(_models_in(model.model_fields[part].annotation))
    return sorted(model.model_fields)


def _models_in(annotation: Any):
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
    for arg in get_args(annotation):
        yield from _models_in(arg)
