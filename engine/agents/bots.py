"""Scripted players. `bot:random` and `bot:fixed:<answer>` work in every game; games add their own
policies (the equilibrium player, named fixed strategies) with `@policy(game, name)` next to their rules."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from typing import Any

from engine.agents.base import AgentSpec, Decision, TurnContext
from engine.games.base import Observation, ParseError

Policy = Callable[[Observation, random.Random, str | None], Any]
_POLICIES: dict[tuple[str, str], Policy] = {}


def policy(game: str, name: str) -> Callable[[Policy], Policy]:
    def add(fn: Policy) -> Policy:
        _POLICIES[(game, name)] = fn
        return fn

    return add


def _random(obs: Observation, rng: random.Random, arg: str | None) -> Any:
    return obs.space.sample(rng)


def _fixed(obs: Observation, rng: random.Random, arg: str | None) -> Any:
    """Always give the same answer, read by the game's own parser (`bot:fixed:defect`, `bot:fixed:0`)."""
    if arg is None:
        raise ValueError("bot:fixed needs an answer, e.g. bot:fixed:0 or bot:fixed:defect")
    return obs.parse(arg)


_GENERIC: dict[str, Policy] = {"random": _random, "fixed": _fixed}


def bot_names(game: str) -> list[str]:
    return sorted(set(_GENERIC) | {name for g, name in _POLICIES if g == game})


def find_policy(game: str, name: str) -> Policy:
    if (game, name) in _POLICIES:
        return _POLICIES[(game, name)]
    if name in _GENERIC:
        return _GENERIC[name]
    raise ValueError(f"game '{game}' has no bot '{name}' (has: {', '.join(bot_names(game))})")


class BotAgent:
    """Plays a policy on the structured view. An answer the policy cannot give legally
    (a fixed answer that is illegal now) becomes a random legal one, marked as fallback."""

    def __init__(self, spec: AgentSpec):
        self.spec = spec
        _, _, rest = spec.agent.partition(":")
        self.name, _, arg = rest.partition(":")
        self.arg = arg or None

    async def act(self, obs: Observation, ctx: TurnContext) -> Decision:
        start = time.perf_counter()
        fn = find_policy(obs.game, self.name)
        try:
            action, fallback, error = fn(obs, ctx.rng, self.arg), False, None
        except ParseError as exc:
            action, fallback, error = obs.space.sample(ctx.rng), True, str(exc)
        return Decision(
            action=action, response=json.dumps(action, default=str), prompt={"view": obs.view},
            legal=not fallback, fallback=fallback, error=error, cost_usd=0.0,
            latency_ms=(time.perf_counter() - start) * 1000,
        )
