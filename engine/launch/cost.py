"""What a run will cost before it starts: per model its calls, tokens and dollars. Prompt sizes come from
rehearsing each match with random moves; prices from litellm's (local) price map, "unknown" without one."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

from engine.agents.base import AgentSpec
from engine.agents.prompting import render
from engine.agents.strategies import apply as apply_strategy
from engine.agents.strategies import find_probe
from engine.games import get_game
from engine.spec import RunSpec

# Output tokens assumed per call: a bare answer is short; a reasoning strategy may use its whole budget.
SHORT_ANSWER_TOKENS = 32
CHARS_PER_TOKEN = 4

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
