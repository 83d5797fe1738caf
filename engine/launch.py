"""Launching a run from the dashboard: a form -> a validated run spec, its cost estimate, and the run
played as its own process (`python -m engine run`), which the page watches, cancels and resumes.

The Streamlit server never plays a match nor writes the database: it starts the CLI as a child process
in its own session and reads progress from the database (read-only, short-lived connections). A launch
leaves a folder beside the database, `<db>.launches/<run_id>/`, holding the spec (no keys: they stay in
the environment the child inherits), the child's pid and its log.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from engine import store
from engine.agents.base import AgentSpec
from engine.agents.bots import bot_names, find_policy
from engine.agents.prompting import render, versions
from engine.agents.strategies import apply as apply_strategy
from engine.agents.strategies import check as check_strategy
from engine.agents.strategies import find_probe
from engine.games import all_games, get_game
from engine.secrets import redact
from engine.spec import RunSpec, SpecError, parse_spec

ADMIN_TOKEN_ENV = "ARENA_ADMIN_TOKEN"
PUBLIC_ENV = "ARENA_SERVED_BEYOND_LOCALHOST"  # set by `python -m engine serve` on a non-loopback address
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
SUGGESTED_MODELS = ("openai/gpt-4o-mini", "openai/gpt-4o", "anthropic/claude-3-5-haiku-20241022",
                    "gemini/gemini-1.5-flash", "ollama/llama3", "local/smollm2")
MAX_REPEATS, MAX_CONCURRENCY = 1000, 64
# Output tokens assumed per call: a bare answer is short; a reasoning strategy may use its whole budget.
SHORT_ANSWER_TOKENS = 32
CHARS_PER_TOKEN = 4


# ---------------------------------------------------------------- the form
@dataclass
class GameChoice:
    """One game of the form: its presets, the parameters the user changed, one agent string per seat."""

    game: str
    presets: list[str]
    params: dict[str, Any] = field(default_factory=dict)
    seats: list[str] = field(default_factory=list)


@dataclass
class LaunchForm:
    name: str
    games: list[GameChoice]
    prompt_version: str = "v1"
    strategy: str = "vanilla"
    temperature: float = 1.0
    max_tokens: int = 256
    repeats: int = 1
    seed: int = 0
    concurrency: int = 4


@dataclass
class BuiltSpec:
    """The spec the form describes, or the reason of each field that is wrong (field key -> message)."""

    raw: dict[str, Any] | None
    spec: RunSpec | None
    errors: dict[str, str]


def field_key(game: str, part: str, item: str | int | None = None) -> str:
    """The key of a per-game field in `BuiltSpec.errors` (and of its widget on the page)."""
    return f"{game}.{part}" if item is None else f"{game}.{part}.{item}"


def agent_options(game: str, known_models: list[str] | tuple[str, ...] = ()) -> list[str]:
    """What a seat can be picked from: the game's bots, then models (those seen in the database first)."""
    models = list(dict.fromkeys([*known_models, *SUGGESTED_MODELS]))
    return [f"bot:{b}" for b in bot_names(game) if b != "fixed"] + models


def seat_count(game: str, preset: str, params: dict[str, Any]) -> int:
    cls = get_game(game)
    return cls.n_seats(cls.resolve_params(params, preset))


def check_model(model: str) -> str | None:
    """Why `model` is not a litellm model string we can call, or None. No network: the provider prefix
    must be one litellm knows (or `local`), a bare name one of its price map."""
    from engine.agents.llm import load_litellm

    litellm = load_litellm()
    provider, _, rest = model.partition("/")
    providers = {str(getattr(p, "value", p)) for p in litellm.provider_list} | {"local"}
    if rest:
        return None if provider in providers and rest.strip() else (
            f"unknown provider '{provider}' in '{model}' (a litellm model string is provider/model, "
            "e.g. openai/gpt-4o-mini)")
    return None if model in litellm.model_cost else (
        f"'{model}' is not a model litellm knows by bare name: write it as provider/model")


def check_agent(game: str, agent: str) -> str | None:
    """Why `agent` cannot sit at `game`, or None."""
    agent = agent.strip()
    if not agent:
        return "pick a bot or type a model string"
    if any(c.isspace() for c in agent):
        return f"'{agent}' has whitespace: use a litellm model string (provider/model) or bot:<name>"
    if agent.startswith("bot:"):
        name = agent.split(":")[1]
        try:
            find_policy(game, name)
        except ValueError as exc:
            return str(exc)
        return "bot:fixed needs an answer, e.g. bot:fixed:0" if name == "fixed" and agent.count(":") < 2 else None
    return check_model(agent)


def _check_range(errors: dict, key: str, value: Any, lo: float, hi: float, kind: type) -> None:
    if not isinstance(value, kind) or isinstance(value, bool) or not lo <= value <= hi:
        errors[key] = f"must be {'an integer' if kind is int else 'a number'} from {lo:g} to {hi:g}, got {value!r}"


def build_spec(form: LaunchForm) -> BuiltSpec:
    """Check every field on its own (so each wrong one gets its message), then the whole spec."""
    errors: dict[str, str] = {}
    if not NAME_PATTERN.fullmatch(form.name or ""):
        errors["name"] = "1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit"
    _check_range(errors, "temperature", form.temperature, 0, 2, (int, float))
    _check_range(errors, "max_tokens", form.max_tokens, 1, 100_000, int)
    _check_range(errors, "repeats", form.repeats, 1, MAX_REPEATS, int)
    _check_range(errors, "seed", form.seed, 0, 2**53, int)
    _check_range(errors, "concurrency", form.concurrency, 1, MAX_CONCURRENCY, int)
    try:
        check_strategy(form.strategy)
    except ValueError as exc:
        errors["strategy"] = str(exc)
    if not form.games:
        errors["games"] = "pick at least one game"
    known = all_games()
    for choice in form.games:
        if choice.game not in known:
            errors["games"] = f"unknown game '{choice.game}'"
            continue
        _check_game(choice, form, errors)
    if errors:
        return BuiltSpec(None, None, errors)
    raw = {
        "name": form.name, "seed": form.seed, "repeats": form.repeats, "concurrency": form.concurrency,
        "defaults": {"prompt_version": form.prompt_version, "strategy": form.strategy,
                     "temperature": float(form.temperature), "max_tokens": form.max_tokens},
        "games": [{"game": c.game, "presets": list(c.presets), "params": dict(c.params),
                   "lineups": [[a.strip() for a in c.seats]]} for c in form.games],
    }
    try:
        return BuiltSpec(raw, parse_spec(raw), {})
    except SpecError as exc:
        return BuiltSpec(raw, None, {"spec": str(exc)})


def _check_game(choice: GameChoice, form: LaunchForm, errors: dict[str, str]) -> None:
    cls = get_game(choice.game)
    g = choice.game
    valid_params = {}
    for pname, value in choice.params.items():
        if pname not in cls.params:
            errors[field_key(g, "param", pname)] = f"'{g}' has no parameter '{pname}'"
            continue
        try:
            valid_params[pname] = cls.params[pname].validate(pname, value)
        except ValueError as exc:
            errors[field_key(g, "param", pname)] = str(exc)
    unknown = [p for p in choice.presets if p not in cls.presets]
    if not choice.presets or unknown:
        errors[field_key(g, "presets")] = (f"'{g}' has no preset {', '.join(unknown)} (has: {', '.join(cls.presets)})"
                                           if unknown else "pick at least one preset")
    seats = set()
    for preset in [p for p in choice.presets if p in cls.presets]:
        try:
            seats.add(seat_count(g, preset, valid_params))
        except ValueError as exc:
            errors[field_key(g, "params")] = str(exc)
    if len(seats) > 1:
        errors[field_key(g, "presets")] = (f"these presets seat different numbers of players ({sorted(seats)}): "
                                           "launch them as separate runs")
    elif seats and len(choice.seats) != next(iter(seats)):
        errors[field_key(g, "seats")] = f"this game has {next(iter(seats))} seats, the lineup lists {len(choice.seats)}"
    for i, agent in enumerate(choice.seats):
        problem = check_agent(g, agent)
        if problem:
            errors[field_key(g, "seat", i)] = problem
    if any(not a.strip().startswith("bot:") for a in choice.seats) and form.prompt_version not in versions(g):
        errors["prompt_version"] = (f"'{g}' has no prompt version '{form.prompt_version}' "
                                    f"(has: {', '.join(versions(g))})")


# ---------------------------------------------------------------- the cost estimate
@dataclass
class ModelEstimate:
    model: str
    matches: int
    calls: int
    tokens_in: int
    tokens_out: int
    usd: float | None  # None: litellm has no price for this model


def price(model: str) -> tuple[float, float] | None:
    """USD per input and per output token from litellm's (local) price map, or None when unknown."""
    from engine.agents.llm import load_litellm

    litellm = load_litellm()
    for name in (model, model.partition("/")[2]):
        info = litellm.model_cost.get(name) if name else None
        if info and info.get("input_cost_per_token") is not None and info.get("output_cost_per_token") is not None:
            return float(info["input_cost_per_token"]), float(info["output_cost_per_token"])
    return None


def _rehearse(game: str, params: dict[str, Any], seed: int, seats: list[AgentSpec]) -> dict[int, list[int]]:
    """Play the match once with random moves and measure each LLM seat's prompts: seat -> prompt tokens per
    call. The real match may run longer or shorter; this is the size of a typical one."""
    instance = get_game(game)(params)
    instance.reset(seed)
    rng = random.Random(seed)
    sizes: dict[int, list[int]] = {s: [] for s, a in enumerate(seats) if not a.is_bot}
    for _ in range(10_000):
        if instance.done():
            break
        actions = {}
        for s in instance.to_act():
            obs = instance.observe(s)
            if s in sizes:
                messages = apply_strategy(seats[s].strategy, render(obs, seats[s].prompt_version), obs)
                sizes[s].append(sum(len(m["content"]) for m in messages) // CHARS_PER_TOKEN + 4 * len(messages))
            actions[s] = obs.space.sample(rng)
        instance.step(actions)
    return sizes


def estimate_cost(spec: RunSpec) -> list[ModelEstimate]:
    """Per model: calls, tokens and dollars for the whole run (bots cost nothing and are left out).
    Prompt tokens come from rehearsing one match per game, preset and lineup with random moves; output
    tokens are SHORT_ANSWER_TOKENS for a bare answer, max_tokens with a reasoning strategy; a strategy
    that asks a question first (pgm) makes two calls per decision."""
    per_model: dict[str, ModelEstimate] = {}
    rehearsed: dict[str, dict[int, list[int]]] = {}
    for plan in spec.matches:
        if all(a.is_bot for a in plan.seats):
            continue
        key = json.dumps([plan.game, plan.preset, plan.params, plan.lineup, plan.seed], sort_keys=True, default=str)
        if key not in rehearsed:
            rehearsed[key] = _rehearse(plan.game, plan.params, plan.seed, plan.seats)
        for seat, prompts in rehearsed[key].items():
            agent = plan.seats[seat]
            calls_per_decision = 2 if find_probe(agent.strategy, plan.game) else 1
            out = SHORT_ANSWER_TOKENS if agent.strategy == "vanilla" else agent.max_tokens
            row = per_model.setdefault(agent.agent, ModelEstimate(agent.agent, 0, 0, 0, 0, 0.0))
            row.calls += calls_per_decision * len(prompts)
            row.tokens_in += calls_per_decision * sum(prompts)
            row.tokens_out += calls_per_decision * len(prompts) * min(out, agent.max_tokens)
        for model in {a.agent for a in plan.seats if not a.is_bot}:
            per_model[model].matches += 1
    for row in per_model.values():
        prices = price(row.model)
        row.usd = None if prices is None else row.tokens_in * prices[0] + row.tokens_out * prices[1]
    return sorted(per_model.values(), key=lambda r: r.model)


def format_usd(value: float | None) -> str:
    return "unknown" if value is None or value != value else f"${value:,.4f}"


# ---------------------------------------------------------------- who may launch
def admin_required() -> bool:
    return bool(os.environ.get(ADMIN_TOKEN_ENV)) or serving_beyond_localhost()


def serving_beyond_localhost() -> bool:
    """`python -m engine serve --address` other than loopback says so: anyone on the network sees the pages."""
    return os.environ.get(PUBLIC_ENV) == "1"


def admin_refusal() -> str:
    if not os.environ.get(ADMIN_TOKEN_ENV):
        return ("Launching is off: the dashboard is served beyond localhost without an admin token. Set "
                "ARENA_ADMIN_TOKEN and restart `python -m engine serve`.")
    return "Starting a run needs the admin token (ARENA_ADMIN_TOKEN)."


def admin_ok(given: str | None) -> bool:
    """Launching and cancelling need `ARENA_ADMIN_TOKEN` when it is set; viewing never does. Served beyond
    localhost without a token, nobody may launch."""
    wanted = os.environ.get(ADMIN_TOKEN_ENV)
    if not wanted:
        return not serving_beyond_localhost()
    return hmac.compare_digest((given or "").encode(), wanted.encode())


# ---------------------------------------------------------------- the run as its own process
_children: dict[int, subprocess.Popen] = {}  # reaped by `is_alive`, so a finished run leaves no zombie


def launches_dir(db: str | Path) -> Path:
    db = Path(db).resolve()
    return db.with_name(db.name + ".launches")


def _folder(db: str | Path, run_id: str) -> Path:
    """The run's folder of launches: its id, or for an id with other characters (a name with a space)
    a safe spelling of it plus a hash that keeps two such ids apart."""
    if not run_id or "\0" in run_id:
        raise ValueError(f"not a run id: {run_id!r}")
    if re.fullmatch(r"[A-Za-z0-9_.-]+", run_id) and run_id not in (".", ".."):
        return launches_dir(db) / run_id
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", run_id)[:80].strip(".")
    return launches_dir(db) / f"{safe}-{hashlib.sha1(run_id.encode()).hexdigest()[:8]}"


def start_run(raw: dict[str, Any], db: str | Path, concurrency: int | None = None) -> str:
    """Start `python -m engine run` on the spec, in its own process and session; returns the run id.
    Starting a run that is already playing is refused; starting a finished or stopped one resumes it."""
    spec = parse_spec(raw)
    if is_alive(db, spec.run_id):
        raise RuntimeError(f"run {spec.run_id} is already playing")
    folder = _folder(db, spec.run_id)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "spec.yaml").write_text(yaml.safe_dump(raw, sort_keys=False), encoding="utf-8")
    command = [sys.executable, "-m", "engine", "run", str(folder / "spec.yaml"), "--db", str(Path(db).resolve()),
               "--quiet"]
    if concurrency:
        command += ["--concurrency", str(concurrency)]
    with open(folder / "log.txt", "ab") as log:
        child = subprocess.Popen(command, cwd=store.ROOT, stdout=log, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL, start_new_session=True)
    _children[child.pid] = child
    (folder / "pid").write_text(str(child.pid), encoding="utf-8")
    return spec.run_id


def _pid(db: str | Path, run_id: str) -> int | None:
    try:
        return int((_folder(db, run_id) / "pid").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def is_alive(db: str | Path, run_id: str) -> bool:
    """Whether this run's launched process still plays (a dead, reused or zombie pid is not)."""
    pid = _pid(db, run_id)
    if pid is None:
        return False
    if pid in _children:
        if _children[pid].poll() is None:
            return True
        del _children[pid]
        return False
    return _runs_engine(pid, str(_folder(db, run_id) / "spec.yaml").encode())


def _runs_engine(pid: int, argument: bytes | None = None) -> bool:
    """Whether `pid` is a live (not zombie) `python -m engine` process, with `argument` on its command line."""
    try:
        status = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except (OSError, IndexError):
        return False
    return status != "Z" and b"engine" in cmdline and (argument is None or argument in cmdline)


def died(pid: Any, host: Any) -> bool:
    """Whether the process a run recorded as its own is gone (kill -9, a crash, a reboot). Only a process of
    this machine can be checked; a run playing elsewhere is taken at its word."""
    try:
        pid = int(pid)
    except (TypeError, ValueError):  # NULL: a run recorded before runs kept their pid
        return False
    return host == socket.gethostname() and not _runs_engine(pid)


def cancel_run(db: str | Path, run_id: str) -> bool:
    """Interrupt the run's process (as Ctrl-C would): finished matches stay, the run ends `cancelled`."""
    if not is_alive(db, run_id):
        return False
    os.killpg(_pid(db, run_id), signal.SIGINT)
    return True


def resume_run(db: str | Path, run_id: str, concurrency: int | None = None) -> str:
    """Play the unfinished matches of a run again from the spec the database kept."""
    rows = store.query(db, "SELECT spec FROM runs WHERE run_id = ? AND source = 'engine'", [run_id])
    if rows.empty:
        raise ValueError(f"no engine run {run_id} in {db}")
    return start_run(json.loads(rows["spec"][0]), db, concurrency)


def log_tail(db: str | Path, run_id: str, lines: int = 20) -> str:
    """The end of the run process's log, with anything secret-looking masked."""
    path = _folder(db, run_id) / "log.txt"
    if not path.exists():
        return ""
    return redact("\n".join(path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:]))


def progress(db: str | Path, newest: int = 20) -> Any:
    """One row per run (the `newest` ones, newest first): status (`stopped`: launched from here, its process
    gone), matches done of all, errors, tokens and dollars (NaN when some call had no price)."""
    table = store.query(db, """
        WITH r AS (SELECT * FROM runs ORDER BY created_at DESC LIMIT ?),
        m AS (
            SELECT run_id, count(*) FILTER (WHERE status = 'error') AS errors FROM matches
            WHERE run_id IN (SELECT run_id FROM r) GROUP BY run_id),
        t AS (
            SELECT m.run_id, sum(coalesce(t.tokens_in, 0) + coalesce(t.tokens_out, 0)) AS tokens,
                   sum(t.cost_usd) AS usd,
                   count(*) FILTER (WHERE t.cost_usd IS NULL AND t.tokens_in > 0) AS unpriced_calls
            FROM turns t JOIN matches m USING (match_id)
            WHERE t.seat IS NOT NULL AND m.run_id IN (SELECT run_id FROM r) GROUP BY m.run_id)
        SELECT r.run_id, r.name, r.source, r.status, r.pid, r.host, r.n_done, r.n_matches,
               coalesce(m.errors, 0) AS errors,
               coalesce(t.tokens, 0) AS tokens, CASE WHEN t.unpriced_calls > 0 THEN NULL ELSE coalesce(t.usd, 0) END
               AS usd, r.created_at, r.finished_at
        FROM runs r LEFT JOIN m USING (run_id) LEFT JOIN t USING (run_id)
        ORDER BY r.created_at DESC""", [newest])
    if table.empty:
        return table
    table["playing"] = [is_alive(db, run_id) for run_id in table["run_id"]]
    launched = table["run_id"].map(lambda run_id: _pid(db, run_id) is not None)
    stopped = (table["status"] == "running") & launched & ~table["playing"]
    table.loc[stopped, "status"] = "stopped"
    gone = [status == "running" and died(pid, host) for status, pid, host in
            zip(table["status"], table["pid"], table["host"], strict=True)]
    table.loc[gone, "status"] = "interrupted"
    return table.drop(columns=["pid", "host"])
