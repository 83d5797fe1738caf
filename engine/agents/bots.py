"""Scripted players. `bot:random` and `bot:fixed:<answer>` work in every game; games declare their own
policies (the equilibrium player, named fixed strategies) with `engine.games.extensions.policy` next to
their rules, and every game module is loaded before one is looked up."""

from __future__ import annotations

import random
import time
from typing import Any

from engine.agents.base import AgentSpec, Decision, TurnContext
from engine.games import all_games
from engine.games.base import Observation, ParseError
from engine.games.extensions import ARGUMENTS, POLICIES, Policy


def _random(obs: Observation, rng: random.Random, arg: str | None) -> Any:
    return obs.space.sample(rng)


def _fixed(obs: Observation, rng: random.Random, arg: str | None) -> Any:
    """Always give the same answer, read by the game's own parser (`bot:fixed:defect`, `bot:fixed:0`), else by its
    action space where the game reads a model's answer as a paper's code does (γ-Bench: a JSON object only)."""
    if arg is None:
        raise ValueError("bot:fixed needs an answer, e.g. bot:fixed:0 or bot:fixed:defect")
    try:
        return obs.parse(arg)
    except ParseError:
        return obs.space.parse(arg)


_GENERIC: dict[str, Policy] = {"random": _random, "fixed": _fixed}


def bot_names(game: str) -> list[str]:
    all_games()  # the games declare their policies as their modules load
    return sorted(set(_GENERIC) | {name for g, name in POLICIES if g == game})


def find_policy(game: str, name: str) -> Policy:
    all_games()
    if (game, name) in POLICIES:
        return POLICIES[(game, name)]
    if name in _GENERIC:
        return _GENERIC[name]
    raise ValueError(f"game '{game}' has no bot '{name}' (has: {', '.join(bot_names(game))})")


def check_bot(game: str, agent: str) -> None:
    """Raise ValueError if `agent` (`bot:<name>[:<arg>]`) is no bot of `game` or gives an argument the bot does not
    take: caught with the spec, not in every match (a search depth too deep would never end one)."""
    name, has_arg, arg = agent.removeprefix("bot:").partition(":")
    find_policy(game, name)
    if name == "fixed":
        if not arg:
            raise ValueError("bot:fixed needs an answer, e.g. bot:fixed:0")
    elif (game, name) in ARGUMENTS:
        ARGUMENTS[(game, name)](arg if has_arg else None)
    elif has_arg:
        raise ValueError(f"bot:{name} takes no argument, got '{agent}'")


class BotAgent:
    """Plays a policy on the structured view. An answer the policy cannot give legally
    (a fixed answer that is illegal now) becomes a random legal one, marked as fallback. Its recorded answer is
    written in the game's own move format (`ActionSpace.written`), as a model's is."""

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
            action=action, response=obs.space.written(action), prompt={"view": obs.view},
            legal=not fallback, fallback=fallback, error=error, cost_usd=0.0,
            latency_ms=(time.perf_counter() - start) * 1000,
        )
