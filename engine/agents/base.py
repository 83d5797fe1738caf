"""What an agent is: `act(observation, context) -> Decision`, and the seat settings it is built from."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.agents.agent_names import DEFAULT_MAX_TOKENS, DEFAULT_PROMPT_VERSION, DEFAULT_TEMPERATURE
from engine.games.base import Observation


@dataclass(frozen=True)
class AgentSpec:
    """One seat of a lineup, as the run spec gives it."""

    agent: str
    prompt_version: str = DEFAULT_PROMPT_VERSION
    strategy: str = "vanilla"
    temperature: float = DEFAULT_TEMPERATURE
    max_tokens: int = DEFAULT_MAX_TOKENS
    api_base: str | tuple[str, ...] | None = None  # several: one model served by several endpoints (balanced)
    label: str | None = None  # a display name when one model plays under several settings

    @property
    def is_bot(self) -> bool:
        return self.agent.startswith("bot:")


@dataclass(frozen=True)
class TurnContext:
    """Where a decision happens: the sample key of the response cache and a seeded rng."""

    match_id: str
    match_seed: int
    seat: int
    turn: int
    rng: random.Random
    attempt: int = 0  # a re-ask of the same question is another sample (0: the first ask)


@dataclass
class Decision:
    """An action and everything the turn log keeps about how it was reached."""

    action: Any
    response: str | None = None
    prompt: Any = None
    legal: bool = True
    fallback: bool = False
    retries: int = 0
    error: str | None = None
    tokens_in: int | None = 0  # None: unknown (the provider gave no believable count)
    tokens_out: int | None = 0
    cost_usd: float | None = 0.0
    latency_ms: float = 0.0
    cached: bool = False
    call_errors: int = 0  # failed calls (timeouts, refused answers, 5xx...) retried on the way to this answer
    extra: dict[str, Any] = field(default_factory=dict)


class Agent(Protocol):
    spec: AgentSpec

    async def act(self, obs: Observation, ctx: TurnContext) -> Decision: ...


class AgentError(RuntimeError):
    """An agent could not answer at all (the provider kept failing): the match ends as `error`."""
