"""The LLM player: prompt -> litellm.acompletion -> the game's parser, with the re-asks of the game's retry
policy on an unusable answer (told its error or the same question again) and a random legal fallback after
the last one, which the match loop may replace (engine.play.playing.settle).

Every call goes through litellm, so any model string works (`openai/...`, `anthropic/...`,
`ollama/...`, `hosted_vllm/...`, an OpenAI-compatible server through `api_base`, and the
embedded `local/smollm2`). A seat that lists several `api_base`s (one model served by several
endpoints) calls through litellm's Router, which spreads the calls over them and fails over when one
dies. Answers are looked up in our response cache first. Transport failures
(429, 5xx, timeouts, dropped connections) are retried with exponential backoff and jitter, waiting
at least as long as a Retry-After header asks; when they persist the agent raises AgentError and
the match ends as `error` (and is played again on resume).

A hostile or broken endpoint cannot hang or break a match: every call has a whole-call deadline
(litellm's `timeout` only bounds each read, so a reply trickled a byte at a time would never end),
besides the connect and first-byte timeouts; a reply is read at most `max_answer_chars` characters' worth of
bytes (engine.agents.capped_http) and a longer answer is refused; both are retried like any transport failure
and counted on the turn (`call_errors`). A `Retry-After` that is neither seconds nor a date is no ask at all.
Token counts and prices are checked (engine.agents.usage). An answer is redacted as it arrives (engine.secrets),
so the move is read from the text the cache and the database keep; errors are redacted with the rest of the
match when it is stored (engine.store.MatchRecord).
"""

from __future__ import annotations

import asyncio
import datetime
import email.utils
import random
import re
import time
import weakref
import zlib
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from engine.agents.base import AgentError, AgentSpec, Decision, TurnContext
from engine.agents.cache import CachedReply, ResponseCache, cache_from_env, cache_key
from engine.agents.limits import ModelLimits
from engine.agents.prompting import render
from engine.agents.strategies import append_to_last_user, find_probe
from engine.agents.strategies import apply as apply_strategy
from engine.agents.usage import USAGE_COUNTS, as_litellm_count, call_cost, token_count
from engine.games.base import Observation, ParseError
from engine.secrets import load_dotenv, redact

RETRYABLE_STATUS = {408, 409, 425, 429, 500, 502, 503, 504, 529}
RETRYABLE_NAMES = {"Timeout", "APIConnectionError", "ServiceUnavailableError", "InternalServerError",
                   "BadGatewayError", "RateLimitError", "APITimeoutError"}
REASK = "Your answer could not be used: {error}. Answer again, ending with your answer in the format asked ({format})."
LOCAL_PREFIX = "local/"
COOLDOWN_S = 30.0  # an endpoint that failed a call is left out of the rotation this long, then tried again
BYTES_PER_CHAR = 12  # the longest JSON form of one character of an answer: a surrogate pair, \ud83d\ude00
REPLY_OVERHEAD = 65_536  # bytes of a reply besides its answer: ids, usage, headers of the format


class CallRefused(Exception):
    """A call that ran past its deadline or answered more than we accept: retried, then the match errors."""


class WholeCallTimeout(CallRefused, TimeoutError):
    pass


class AnswerTooLarge(CallRefused):
    pass


@lru_cache(maxsize=1)
def load_litellm():
    """litellm takes seconds to import and would fetch its price map from the network: do it once,
    offline, with the `.env` keys in the environment and the embedded model registered."""
    load_dotenv()
    import litellm

    from engine.agents import local_model

    litellm.suppress_debug_info = True
    litellm.drop_params = True
    _odd_counts_unknown(litellm)
    local_model.register(litellm)
    return litellm


def _odd_counts_unknown(litellm: Any) -> None:
    """litellm builds every provider's token counts into its `Usage`, which takes whole numbers only: a count of
    12.5 or "12" made it refuse the whole answer (retried, then the match errored). Such a count is handed over as
    UNKNOWN_COUNT instead, and stored as unknown (engine.agents.usage)."""
    build = litellm.Usage.__init__
    names = USAGE_COUNTS[:3]  # the positional ones

    def build_checked(self: Any, *args: Any, **counts: Any) -> None:
        args = tuple(as_litellm_count(a) if i < len(names) else a for i, a in enumerate(args))
        counts = {k: as_litellm_count(v) if k in USAGE_COUNTS else v for k, v in counts.items()}
        build(self, *args, **counts)

    litellm.Usage.__init__ = build_checked


_routers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple, Any]] = weakref.WeakKeyDictionary()


def endpoint_router(model: str, api_bases: tuple[str, ...]) -> Any:
    """The litellm Router of one model served by several endpoints, shared by every agent of this event loop
    (its HTTP clients belong to the loop): calls are shuffled over the endpoints; one that fails is cooled
    down at once and the call is retried on another."""
    litellm = load_litellm()
    per_loop = _routers.setdefault(asyncio.get_running_loop(), {})
    key = (model, api_bases)
    if key not in per_loop:
        per_loop[key] = litellm.Router(
            model_list=[{"model_name": model, "litellm_params": {"model": model, "api_base": base}}
                        for base in api_bases],
            routing_strategy="simple-shuffle", num_retries=len(api_bases), allowed_fails=0,
            cooldown_time=COOLDOWN_S, retry_after=0)
    return per_loop[key]


@dataclass
class Reply:
    text: str
    tokens_in: int | None  # None: the provider gave no believable count
    tokens_out: int | None
    cost_usd: float | None
    latency_ms: float
    cached: bool = False
    failed_calls: int = 0  # transport failures retried before this answer came


@dataclass
class Usage:
    """What the calls behind one decision used, summed (unknown if any part is unknown); the decision
    is `cached` if every call was."""

    tokens_in: int | None = 0
    tokens_out: int | None = 0
    cost_usd: float | None = 0.0
    latency_ms: float = 0.0
    calls: int = 0
    cached_calls: int = 0
    failed_calls: int = 0

    def add(self, reply: Reply) -> None:
        self.tokens_in = _sum(self.tokens_in, reply.tokens_in)
        self.tokens_out = _sum(self.tokens_out, reply.tokens_out)
        self.cost_usd = _sum(self.cost_usd, reply.cost_usd)
        self.latency_ms += reply.latency_ms
        self.calls += 1
        self.cached_calls += int(reply.cached)
        self.failed_calls += reply.failed_calls

    def fields(self) -> dict[str, Any]:
        return {"tokens_in": self.tokens_in, "tokens_out": self.tokens_out, "cost_usd": self.cost_usd,
                "latency_ms": self.latency_ms, "cached": self.calls > 0 and self.cached_calls == self.calls,
                "call_errors": self.failed_calls}


def _sum(total, part):
    return None if total is None or part is None else total + part


def is_retryable(exc: BaseException) -> bool:
    if isinstance(exc, (TimeoutError, ConnectionError, CallRefused)):
        return True
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        return status in RETRYABLE_STATUS
    return type(exc).__name__ in RETRYABLE_NAMES


def _headers_of(exc: BaseException) -> list[Any]:
    """Every place litellm and the provider SDKs keep the response headers of a failed call."""
    response = getattr(exc, "response", None)
    found = [getattr(exc, "litellm_response_headers", None), getattr(response, "headers", None),
             getattr(exc, "headers", None)]
    return [h for h in found if h]


def retry_after(exc: BaseException) -> float | None:
    """Seconds the provider asked us to wait (`retry-after-ms`, or `Retry-After` in seconds or as a date)."""
    for headers in _headers_of(exc):
        try:
            ms = headers.get("retry-after-ms")
            if ms is not None:
                return max(0.0, float(ms) / 1000)
            value = headers.get("retry-after") or headers.get("Retry-After")
        except (TypeError, ValueError, AttributeError):
            continue
        if value is None:
            continue
        try:
            return max(0.0, float(value))
        except (TypeError, ValueError):
            pass
        try:
            when = email.utils.parsedate_to_datetime(str(value))
        except (TypeError, ValueError, IndexError):  # "soon": no ask, the usual backoff
            continue
        if when.tzinfo is None:  # a date without a zone is UTC (RFC 9110)
            when = when.replace(tzinfo=datetime.UTC)
        return max(0.0, when.timestamp() - time.time())
    return None


# what a provider's error carries that says nothing to a user: aiohttp's "ssl:<ssl.SSLContext object at 0x7f...>"
# (printed for plain-http endpoints too), any other object's address
_OBJECT_NOISE = re.compile(r"\s*ssl:(?:<[^<>]*object at 0x[0-9a-fA-F]+>|default)"
                           r"|(?<=<)([\w.]+) object at 0x[0-9a-fA-F]+")


def plain_error(text: str) -> str:
    """A provider's error as a user reads it: without the addresses and SSL contexts of the objects it names."""
    return _OBJECT_NOISE.sub(lambda found: found.group(1) or "", text)


def _nth(attempt: int) -> str:
    """The sample key's suffix for a re-ask: none for the first ask, so the keys of first asks never change."""
    return f":{attempt}" if attempt else ""


class LLMAgent:
    def __init__(self, spec: AgentSpec, limits: ModelLimits | None = None,
                 transport_retries: int = 5, timeout: float = 120.0, backoff_base: float = 0.5,
                 backoff_cap: float = 30.0, max_wait: float = 120.0, cache: ResponseCache | None = None,
                 use_cache: bool = True, connect_timeout: float = 10.0, first_byte_timeout: float = 60.0,
                 max_answer_chars: int = 100_000):
        self.spec = spec
        self.limits = limits or ModelLimits()
        self.transport_retries = transport_retries
        self.timeout = timeout  # the whole call, from connecting to the last byte
        self.connect_timeout = min(connect_timeout, timeout)
        self.first_byte_timeout = min(first_byte_timeout, timeout)  # also bounds every silence after it
        self.max_answer_chars = max_answer_chars
        self.backoff_base = backoff_base
        self.backoff_cap = backoff_cap
        self.max_wait = max_wait
        self.cache = (cache if cache is not None else cache_from_env()) if use_cache else None
        self.last_failure: str | None = None  # the last transient failure: why a match ran out its deadline

    async def act(self, obs: Observation, ctx: TurnContext) -> Decision:
        messages = apply_strategy(self.spec.strategy, render(obs, self.spec.prompt_version), obs)
        usage = Usage()
        extra: dict[str, Any] = {}
        probe = find_probe(self.spec.strategy, obs.game)
        if probe is not None:
            question, arg = probe
            asked = append_to_last_user(messages, question.question(obs, arg))
            answer = await self.complete(asked, ctx)
            usage.add(answer)
            extra[question.key] = answer.text
            messages = asked + [{"role": "assistant", "content": answer.text or "(no answer)"},
                                {"role": "user", "content": question.decide.format(format=obs.space.describe())}]
        error = None
        text = ""
        tries = obs.retry.tries  # the game's retry policy (RetryPolicy); engine.play.playing applies the rest
        for attempt in range(tries):
            reply = await self.complete(messages, replace(ctx, attempt=attempt) if attempt else ctx)
            usage.add(reply)
            text = reply.text
            try:
                action = obs.parse(text)
            except ParseError as exc:
                error = str(exc)
                if attempt == tries - 1:
                    break
                if obs.retry.feedback:  # else the same question again, as LLMArena's code asks it
                    messages = messages + [
                        {"role": "assistant", "content": text},
                        {"role": "user", "content": REASK.format(error=error, format=obs.space.describe())},
                    ]
                continue
            return Decision(action=action, response=text, prompt=messages, retries=attempt, error=error,
                            extra=extra, **usage.fields())
        return Decision(action=obs.space.sample(ctx.rng), response=text, prompt=messages, legal=False,
                        fallback=True, retries=tries - 1, error=error, extra=extra, **usage.fields())

    def sampling(self, ctx: TurnContext) -> dict[str, Any]:
        """The sampling parameters of a call (part of the cache key). The embedded model also gets a
        seed from the sample key, so its answers are reproducible."""
        params: dict[str, Any] = {"temperature": self.spec.temperature, "max_tokens": self.spec.max_tokens}
        if self.spec.agent.startswith(LOCAL_PREFIX):
            params["seed"] = zlib.crc32(f"{ctx.match_seed}:{ctx.seat}:{ctx.turn}{_nth(ctx.attempt)}".encode())
        return params

    async def complete(self, messages: list[dict[str, str]], ctx: TurnContext) -> Reply:
        """One answer: from the cache if this exact question was asked for this sample, else from the provider.
        A re-ask of the same question (a policy without feedback) is a new sample: its attempt is in the key."""
        params = self.sampling(ctx)
        if self.cache is None:
            return await self.call(messages, params)
        start = time.perf_counter()
        sample = (ctx.match_seed, ctx.seat, ctx.turn) + ((ctx.attempt,) if ctx.attempt else ())
        key = cache_key(self.spec.agent, self.spec.api_base, messages, params, sample)
        hit = await self.cache.aget(key)
        if hit is not None:
            return Reply(hit.text, hit.tokens_in, hit.tokens_out, 0.0, (time.perf_counter() - start) * 1000, True)
        reply = await self.call(messages, params)
        await self.cache.aput(key, self.spec.agent,
                              CachedReply(reply.text, reply.tokens_in, reply.tokens_out, reply.cost_usd))
        return reply

    def backoff(self, attempt: int, asked: float | None) -> float:
        """Exponential backoff with jitter, never shorter than what the provider asked for."""
        wait = min(self.backoff_cap, self.backoff_base * 2 ** attempt) * random.uniform(0.5, 1.0)
        return min(self.max_wait, max(wait, asked or 0.0))

    async def call(self, messages: list[dict[str, str]], params: dict[str, Any]) -> Reply:
        """One answer from the provider, retrying transient failures."""
        import httpx

        from engine.agents.capped_http import capped_client

        litellm = load_litellm()
        timeout = httpx.Timeout(self.timeout, connect=self.connect_timeout, read=self.first_byte_timeout)
        kwargs: dict[str, Any] = {"model": self.spec.agent, "messages": messages, **params, "timeout": timeout}
        if not self.spec.agent.startswith(LOCAL_PREFIX):
            kwargs["client"] = capped_client(self.max_answer_chars * BYTES_PER_CHAR + REPLY_OVERHEAD)
        bases = self.spec.api_base
        if isinstance(bases, tuple) and len(bases) > 1:
            acompletion = endpoint_router(self.spec.agent, bases).acompletion
        else:
            acompletion = litellm.acompletion
            kwargs["num_retries"] = 0
            if bases:
                kwargs["api_base"] = bases[0] if isinstance(bases, tuple) else bases
        for attempt in range(self.transport_retries + 1):
            try:
                async with self.limits.slot(self.spec.agent):
                    start = time.perf_counter()
                    response = await self._within_deadline(acompletion(**kwargs))
                    latency = (time.perf_counter() - start) * 1000
                reply = _reply(litellm, response, latency)
                if len(reply.text) > self.max_answer_chars:
                    raise AnswerTooLarge(f"an answer of {len(reply.text)} characters (at most "
                                         f"{self.max_answer_chars} are kept)")
                reply.text = redact(reply.text)
                reply.failed_calls = attempt
                return reply
            except Exception as exc:  # noqa: BLE001 - classified just below
                reason = plain_error(f"{type(exc).__name__}: {exc}"[:2000])[:500]
                if not is_retryable(exc) or attempt == self.transport_retries:
                    raise AgentError(f"{self.spec.agent} failed after {attempt + 1} attempt(s): {reason}") from None
                self.last_failure = f"{self.spec.agent}: {reason}"
                await asyncio.sleep(self.backoff(attempt, retry_after(exc)))
        raise AssertionError("unreachable")

    async def _within_deadline(self, call: Any) -> Any:
        try:
            return await asyncio.wait_for(call, self.timeout)
        except TimeoutError:
            raise WholeCallTimeout(f"no complete answer within {self.timeout:g} s") from None


def _reply(litellm, response: Any, latency_ms: float) -> Reply:
    """The answer (redacted by the caller once its size is checked) and what the provider says it used (checked)."""
    choice = response.choices[0] if getattr(response, "choices", None) else None
    text = (getattr(getattr(choice, "message", None), "content", None) or "") if choice else ""
    usage = getattr(response, "usage", None)
    tokens_in = token_count(getattr(usage, "prompt_tokens", 0) or 0)
    tokens_out = token_count(getattr(usage, "completion_tokens", 0) or 0)
    priced = tokens_in is not None and tokens_out is not None  # a price computed from a bad count is bad too
    return Reply(text=str(text), tokens_in=tokens_in, tokens_out=tokens_out,
                 cost_usd=_cost(litellm, response) if priced else None, latency_ms=latency_ms)


def _cost(litellm, response: Any) -> float | None:
    """Dollars from litellm's price map; None (NULL in the turn log) for a model without a price."""
    hidden = getattr(response, "_hidden_params", None) or {}
    if "response_cost" in hidden:  # litellm priced the call already (None: it has no price for the model)
        return call_cost(hidden["response_cost"])
    try:
        return call_cost(litellm.completion_cost(completion_response=response))
    except Exception:  # noqa: BLE001 - a model without a price has cost NULL, not a crash
        return None
