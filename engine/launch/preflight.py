"""Before a run starts: does each model of the spec have its key, and does it answer? A missing key or a
wrong model name would otherwise surface as every match of the run ending in `error`. Each distinct
(model, endpoint) gets litellm's environment check, then one request for a single token through the
agent's own call path (no cache: the answer must come from the provider now)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from engine.agents.base import AgentError, AgentSpec
from engine.agents.llm import LLMAgent, load_litellm
from engine.spec import RunSpec

PING = [{"role": "user", "content": "Reply with the single word OK."}]


@dataclass
class ModelCheck:
    model: str
    api_base: str | None
    ok: bool
    problem: str = ""  # why it fails, in words (keys named, never their values)
    latency_ms: float | None = None


def models_of(spec: RunSpec) -> list[AgentSpec]:
    """Each distinct model and endpoint the run calls (bots call nothing)."""
    seen: dict[tuple[str, str | None], AgentSpec] = {}
    for plan in spec.matches:
        for seat in plan.seats:
            if not seat.is_bot:
                seen.setdefault((seat.agent, seat.api_base), seat)
    return list(seen.values())


def missing_keys(model: str, api_base: str | None = None) -> list[str]:
    """The environment variables litellm says `model` needs and does not find (`.env` included)."""
    found = load_litellm().validate_environment(model=model, api_base=api_base)
    return [] if found.get("keys_in_environment") else list(found.get("missing_keys") or [])


def key_problem(model: str, api_base: str | None = None) -> str | None:
    """The preflight's "no key" line for `model`, or None when its key is there. No network: the form shows
    it under a seat as soon as the model is picked (the one-token request waits for Start)."""
    missing = missing_keys(model, api_base)
    if not missing:
        return None
    names = missing[0] if len(missing) == 1 else "one of " + ", ".join(missing)
    return f"no key: set {names} in the environment or in .env"


async def check_model(seat: AgentSpec, timeout: float) -> ModelCheck:
    if problem := key_problem(seat.agent, seat.api_base):
        return ModelCheck(seat.agent, seat.api_base, False, problem)
    agent = LLMAgent(AgentSpec(seat.agent, max_tokens=1, temperature=0.0, api_base=seat.api_base),
                     use_cache=False, transport_retries=0, timeout=timeout)
    try:
        reply = await asyncio.wait_for(agent.call(PING, {"max_tokens": 1, "temperature": 0.0}), timeout + 5)
    except AgentError as exc:
        return ModelCheck(seat.agent, seat.api_base, False, f"did not answer a one-token request: {exc}")
    except TimeoutError:
        return ModelCheck(seat.agent, seat.api_base, False, f"no answer to a one-token request within {timeout:g} s")
    return ModelCheck(seat.agent, seat.api_base, True, latency_ms=reply.latency_ms)


async def _check_all(seats: list[AgentSpec], timeout: float) -> list[ModelCheck]:
    return list(await asyncio.gather(*(check_model(seat, timeout) for seat in seats)))


def preflight(spec: RunSpec, timeout: float = 30.0) -> list[ModelCheck]:
    """One check per model and endpoint of the run, all at once; empty for a bots-only run."""
    seats = models_of(spec)
    return asyncio.run(_check_all(seats, timeout)) if seats else []
