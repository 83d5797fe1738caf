"""What a run will cost before it starts: per model its calls, tokens and dollars. Prompt sizes come from
rehearsing matches with random moves; prices from litellm's (local) price map, "unknown" without one.

The Launch page reruns on every change of a widget, so an estimate stays within ESTIMATE_BUDGET_S whatever the
form holds: each kind of match (game, preset, parameters, lineup) is rehearsed for at most SAMPLE_SEEDS of its
seeds and the figures are scaled to its matches; rehearsals are remembered between reruns; a rehearsal that runs
out of its share of the time is extrapolated over the game's rounds (prompts grow with the history, fitted as a
line per round)."""

from __future__ import annotations

import json
import random
import time
from collections import Counter, OrderedDict
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

from engine.agents.base import AgentSpec
from engine.agents.prompting import render
from engine.agents.strategies import apply as apply_strategy
from engine.agents.strategies import find_probe
from engine.games import get_game
from engine.play.spec import MatchPlan, RunSpec

# Output tokens assumed per call: a bare answer is short; a reasoning strategy may use its whole budget.
SHORT_ANSWER_TOKENS = 32
CHARS_PER_TOKEN = 4
ESTIMATE_BUDGET_S = 0.12  # an estimate's time to rehearse in: part of the page's budget, pricing after it
SAMPLE_SEEDS = 3  # matches rehearsed per kind of match; the kind's other seeds are taken to be alike
REMEMBERED = 2048  # rehearsals kept between reruns
MAX_STEPS = 10_000  # a rehearsal's steps, whatever the game


@dataclass
class ModelEstimate:
    model: str
    matches: int
    calls: int
    tokens_in: int
    tokens_out: int
    usd: float | None  # None: litellm has no price for this model


@dataclass(frozen=True)
class SeatLoad:
    """What one LLM seat sends in one match: its calls and their prompt tokens (extrapolated: not whole numbers)."""

    calls: float
    tokens: float


def price(model: str) -> tuple[float, float] | None:
    """USD per input and per output token from litellm's (local) price map, or None when unknown."""
    from engine.agents.llm import load_litellm

    litellm = load_litellm()
    for name in (model, model.partition("/")[2]):
        info = litellm.model_cost.get(name) if name else None
        if info and info.get("input_cost_per_token") is not None and info.get("output_cost_per_token") is not None:
            return float(info["input_cost_per_token"]), float(info["output_cost_per_token"])
    return None


_remembered: OrderedDict[str, dict[int, SeatLoad]] = OrderedDict()


def _rehearse(game: str, params: dict[str, Any], seed: int, seats: list[AgentSpec],
              deadline: float) -> dict[int, SeatLoad]:
    """Play the match with random moves and measure each LLM seat's prompts, until it ends or `deadline` (at least one
    prompt is measured). The real match may run longer or shorter; this is the size of a typical one."""
    instance = get_game(game)(params)
    instance.reset(seed)
    rng = random.Random(seed)
    prompts: dict[int, list[tuple[int, int]]] = {s: [] for s, a in enumerate(seats) if not a.is_bot}  # (round, size)
    cut_short = False
    for _ in range(MAX_STEPS):
        if instance.done() or cut_short:
            break
        actions = {}
        for s in instance.to_act():
            if time.perf_counter() > deadline and any(prompts.values()):
                cut_short = True
                break
            obs = instance.observe(s)
            if s in prompts:
                messages = apply_strategy(seats[s].strategy, render(obs, seats[s].prompt_version), obs)
                prompts[s].append((obs.round, sum(len(m["content"]) for m in messages) // CHARS_PER_TOKEN
                                   + 4 * len(messages)))
            actions[s] = obs.space.sample(rng)
        else:
            instance.step(actions)
    rounds = params.get("rounds") if cut_short and isinstance(params.get("rounds"), int) else None
    loads = {s: _load(sizes, rounds) for s, sizes in prompts.items() if sizes}
    mean = SeatLoad(*(sum(getattr(v, f) for v in loads.values()) / len(loads) for f in ("calls", "tokens")))
    return {s: loads.get(s, mean) for s in prompts}  # a seat not reached before the deadline: like the others


def _load(prompts: list[tuple[int, int]], rounds: int | None) -> SeatLoad:
    """A seat's calls and prompt tokens; a rehearsal cut short at its deadline is carried on to the match's `rounds`,
    its calls per round as measured and its prompt size on the line fitted through the sizes per round."""
    reached = max(max(r for r, _ in prompts), 1)
    if rounds is None or rounds <= reached:
        return SeatLoad(len(prompts), sum(size for _, size in prompts))
    n = len(prompts)
    mean_round = sum(r for r, _ in prompts) / n
    mean_size = sum(size for _, size in prompts) / n
    spread = sum((r - mean_round) ** 2 for r, _ in prompts)
    slope = sum((r - mean_round) * (size - mean_size) for r, size in prompts) / spread if spread else 0.0
    per_round = n / reached
    sizes = sum(mean_size + slope * (k - mean_round) for k in range(1, rounds + 1))
    return SeatLoad(per_round * rounds, per_round * max(sizes, 0.0))


def _kind(plan: MatchPlan) -> str:
    """Matches alike but for their seed: rehearsing a few stands for all."""
    seats = [[a.agent, a.strategy, a.prompt_version, a.max_tokens] for a in plan.seats]
    return json.dumps([plan.game, plan.preset, plan.params, plan.lineup, seats], sort_keys=True, default=str)


def _kinds(plans: list[MatchPlan]) -> dict[str, tuple[list[MatchPlan], int]]:
    """The run's kinds of match played by a model: up to SAMPLE_SEEDS of its plans and how many it has. The seeds
    of one lineup share its seats list (engine.play.spec builds one per preset and lineup, and one per match where the
    seating changes with the seed), so plans are grouped by that list's id, in passes that run at C speed: the page
    allows 100,000 plans."""
    ids = list(map(id, map(attrgetter("seats"), plans)))
    first = dict(zip(reversed(ids), range(len(ids) - 1, -1, -1), strict=True))  # each group's first plan
    kinds: dict[str, tuple[list[MatchPlan], int]] = {}
    for group, count in Counter(ids).items():
        i = first[group]
        if all(a.is_bot for a in plans[i].seats):
            continue
        sampled, total = kinds.get(_kind(plans[i]), ([], 0))
        more = [p for j, p in enumerate(plans[i:i + SAMPLE_SEEDS], i) if ids[j] == group]
        kinds[_kind(plans[i])] = ((sampled + more)[:SAMPLE_SEEDS], total + count)
    return kinds


def estimate_cost(spec: RunSpec) -> list[ModelEstimate]:
    """Per model: calls, tokens and dollars for the whole run (bots cost nothing and are left out).
    Prompt tokens come from rehearsing up to SAMPLE_SEEDS matches per kind with random moves; output
    tokens are SHORT_ANSWER_TOKENS for a bare answer, max_tokens with a reasoning strategy; a strategy
    that asks a question first (pgm) makes two calls per decision."""
    start = time.perf_counter()
    kinds = _kinds(spec.matches)
    # every kind's first seed, then the second ones...: a kind's further seeds only while time is left
    samples = [(kind, plans[i]) for i in range(SAMPLE_SEEDS) for kind, (plans, _) in kinds.items() if i < len(plans)]
    todo = sum(f"{kind}:{plan.seed}" not in _remembered for kind, plan in samples)
    loads: dict[str, list[dict[int, SeatLoad]]] = {}
    for kind, plan in samples:
        key = f"{kind}:{plan.seed}"
        left = ESTIMATE_BUDGET_S - (time.perf_counter() - start)
        if key not in _remembered:
            if kind in loads and left <= 0:
                continue
            _remembered[key] = _rehearse(plan.game, plan.params, plan.seed, plan.seats,
                                         time.perf_counter() + max(left, 0.0) / todo)
            todo -= 1
            if len(_remembered) > REMEMBERED:
                _remembered.popitem(last=False)
        _remembered.move_to_end(key)
        loads.setdefault(kind, []).append(_remembered[key])
    per_model: dict[str, dict[str, float]] = {}
    for kind, (plans, count) in kinds.items():
        plan, rehearsed = plans[0], loads[kind]
        for seat in rehearsed[0]:
            agent = plan.seats[seat]
            calls = sum(r[seat].calls for r in rehearsed) / len(rehearsed) * count
            tokens = sum(r[seat].tokens for r in rehearsed) / len(rehearsed) * count
            per_decision = 2 if find_probe(agent.strategy, plan.game) else 1
            out = SHORT_ANSWER_TOKENS if agent.strategy == "vanilla" else agent.max_tokens
            row = per_model.setdefault(agent.agent, {"matches": 0, "calls": 0.0, "tokens_in": 0.0, "tokens_out": 0.0})
            row["calls"] += per_decision * calls
            row["tokens_in"] += per_decision * tokens
            row["tokens_out"] += per_decision * calls * min(out, agent.max_tokens)
        for model in {a.agent for a in plan.seats if not a.is_bot}:
            per_model[model]["matches"] += count
    estimates = []
    for model, row in sorted(per_model.items()):
        prices = price(model)
        tokens_in, tokens_out = round(row["tokens_in"]), round(row["tokens_out"])
        estimates.append(ModelEstimate(model, row["matches"], round(row["calls"]), tokens_in, tokens_out,
                                       None if prices is None else tokens_in * prices[0] + tokens_out * prices[1]))
    return estimates
