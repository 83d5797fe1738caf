"""Before a run starts: does each model of the spec have its key (and its endpoint), and does it answer? A missing key
or a wrong model name would otherwise surface as every match of the run ending in `error`. Each distinct
(model, endpoint) gets litellm's environment check, then one request for a single token through the
agent's own call path (no cache: the answer must come from the provider now)."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass

from engine.agents.base import AgentError, AgentSpec
from engine.agents.llm import LLMAgent, load_litellm
from engine.play.spec import RunSpec

# Providers served from the user's own machine: litellm knows no address for them and its environment check asks
# for none, so a seat without an endpoint failed every match ("hosted_vllm/foo" was accepted silently).
SELF_HOSTED_ENDPOINT_ENV = {"hosted_vllm": "HOSTED_VLLM_API_BASE", "lm_studio": "LM_STUDIO_API_BASE"}
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
    """The environment variables litellm says `model` needs and does not find (`.env` included): keys, and for a
    self-hosted provider its endpoint's variable (OLLAMA_API_BASE...) when the seat gives no endpoint."""
    found = load_litellm().validate_environment(model=model, api_base=api_base)
    missing = [] if found.get("keys_in_environment") else list(found.get("missing_keys") or [])
    endpoint_env = SELF_HOSTED_ENDPOINT_ENV.get(model.partition("/")[0])
    if endpoint_env and not api_base and not os.environ.get(endpoint_env):
        missing.append(endpoint_env)
    return missing


def access_problem(model: str, api_base: str | None = None) -> str | None:
    """The preflight's "no key" / "no endpoint" line for `model`, or None when what it needs is there. No network:
    the form shows it under a seat as soon as the model is picked (the one-token request waits for Start). An
    endpoint variable is called an endpoint: the seat's own endpoint field can stand for it, not for a key."""
    missing = missing_keys(model, api_base)
    endpoints = [name for name in missing if name.endswith("_API_BASE")]
    keys = [name for name in missing if name not in endpoints]
    problems = []
    if keys:
        problems.append(f"no key: set {_one_of(keys)} in the environment or in .env")
    if endpoints:
        problems.append(f"no endpoint: set {_one_of(endpoints)} or give the seat an endpoint")
    return "; ".join(problems) or None


def _one_of(names: list[str]) -> str:
    return names[0] if len(names) == 1 else "one of " + ", ".join(names)


async def check_model(seat: AgentSpec, timeout: float) -> ModelCheck:
    if problem := access_problem(seat.agent, seat.api_base):
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
