"""The LLM player: prompt -> litellm.acompletion -> the game's parser, with a bounded re-ask on an
unusable answer and a random legal fallback after the last one. Transport failures (429, 5xx,
timeouts, dropped connections) are retried with exponential backoff and jitter, honouring
Retry-After; when they persist the agent raises AgentError and the match ends as `error`."""

from __future__ import annotations

import asyncio
import os
import random
import time
from dataclasses import dataclass
from typing import Any

from engine.agents.base import AgentError, AgentSpec, Decision, TurnContext
from engine.agents.limits import ModelLimits
from engine.agents.prompting import render
from engine.agents.strategies import apply as apply_strategy
from engine.games.base import Observation, ParseError
from engine.secrets import redact

RETRYABLE_STATUS = {408, 409, 425, 429, 500, 502, 503, 504, 529}
REASK = "Your answer could not be used: {error}. Answer again, ending with your answer in the format asked ({format})."


def load_litellm():
    """litellm takes seconds to import and would fetch its price map from the network: do it once, offline."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    litellm.drop_params = True
    return litellm


@dataclass
class Reply:
    text: str
    tokens_in: int
    tokens_out: int
    cost_usd: float | None
    latency_ms: float


def is_retryable(exc: BaseException) -> bool:
    if isinstance(exc, (asyncio.TimeoutError, TimeoutError, ConnectionError)):
        return True
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        return status in RETRYABLE_STATUS
    name = type(exc).__name__
    return name in {"Timeout", "APIConnectionError", "ServiceUnavailableError", "InternalServerError",
                    "BadGatewayError", "RateLimitError", "APITimeoutError"}


def retry_after(exc: BaseException) -> float | None:
    """Seconds the provider asked us to wait, from a Retry-After header, if any."""
    for source in (getattr(exc, "response", None), exc):
        headers = getattr(source, "headers", None) or getattr(source, "litellm_response_headers", None)
        if not headers:
            continue
        try:
            value = headers.get("retry-after") or headers.get("Retry-After")
            return max(0.0, float(value)) if value is not None else None
        except (TypeError, ValueError, AttributeError):
            return None
    return None


class LLMAgent:
    def __init__(self, spec: AgentSpec, limits: ModelLimits | None = None, max_reasks: int = 2,
                 transport_retries: int = 5, timeout: float = 120.0, backoff_base: float = 0.5,
                 backoff_cap: float = 30.0):
        self.spec = spec
        self.limits = limits or ModelLimits()
        self.max_reasks = max_reasks
        self.transport_retries = transport_retries
        self.timeout = timeout
        self.backoff_base = backoff_base
        self.backoff_cap = backoff_cap

    async def act(self, obs: Observation, ctx: TurnContext) -> Decision:
        messages = apply_strategy(self.spec.strategy, render(obs, self.spec.prompt_version), obs)
        tokens_in = tokens_out = 0
        cost: float | None = 0.0
        latency = 0.0
        error = None
        text = ""
        for attempt in range(self.max_reasks + 1):
            reply = await self.complete(messages, ctx)
            text = reply.text
            tokens_in += reply.tokens_in
            tokens_out += reply.tokens_out
            cost = None if cost is None or reply.cost_usd is None else cost + reply.cost_usd
            latency += reply.latency_ms
            try:
                action = obs.parse(text)
            except ParseError as exc:
                error = str(exc)
                if attempt == self.max_reasks:
                    break
                messages = messages + [
                    {"role": "assistant", "content": text},
                    {"role": "user", "content": REASK.format(error=error, format=obs.space.describe())},
                ]
                continue
            return Decision(action=action, response=text, prompt=messages, retries=attempt, error=error,
                            tokens_in=tokens_in, tokens_out=tokens_out, cost_usd=cost, latency_ms=latency)
        return Decision(action=obs.space.sample(ctx.rng), response=text, prompt=messages, legal=False,
                        fallback=True, retries=self.max_reasks, error=error, tokens_in=tokens_in,
                        tokens_out=tokens_out, cost_usd=cost, latency_ms=latency)

    def _request(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "model": self.spec.agent, "messages": messages, "temperature": self.spec.temperature,
            "max_tokens": self.spec.max_tokens, "timeout": self.timeout, "num_retries": 0,
        }
        if self.spec.api_base:
            kwargs["api_base"] = self.spec.api_base
        return kwargs

    async def complete(self, messages: list[dict[str, str]], ctx: TurnContext) -> Reply:
        """One answer from the provider, retrying transient failures."""
        litellm = load_litellm()
        kwargs = self._request(messages)
        for attempt in range(self.transport_retries + 1):
            try:
                async with self.limits.slot(self.spec.agent):
                    start = time.perf_counter()
                    response = await litellm.acompletion(**kwargs)
                    latency = (time.perf_counter() - start) * 1000
                return _reply(litellm, response, latency)
            except Exception as exc:  # noqa: BLE001 - classified just below
                if not is_retryable(exc) or attempt == self.transport_retries:
                    reason = redact(f"{type(exc).__name__}: {exc}")[:500]
                    raise AgentError(f"{self.spec.agent} failed after {attempt + 1} attempt(s): {reason}") from None
                wait = retry_after(exc)
                if wait is None:
                    wait = min(self.backoff_cap, self.backoff_base * 2 ** attempt) * random.uniform(0.5, 1.0)
                await asyncio.sleep(min(wait, self.backoff_cap))
        raise AssertionError("unreachable")


def _reply(litellm, response: Any, latency_ms: float) -> Reply:
    choice = response.choices[0] if getattr(response, "choices", None) else None
    text = (getattr(getattr(choice, "message", None), "content", None) or "") if choice else ""
    usage = getattr(response, "usage", None)
    try:
        cost: float | None = float(litellm.completion_cost(completion_response=response))
    except Exception:  # noqa: BLE001 - a model without a price has cost NULL, not a crash
        cost = None
    return Reply(
        text=str(text), tokens_in=int(getattr(usage, "prompt_tokens", 0) or 0),
        tokens_out=int(getattr(usage, "completion_tokens", 0) or 0), cost_usd=cost, latency_ms=latency_ms,
    )
