"""What we change in litellm to make a call cheaper, all in one place, each change with what it saves.

At hundreds of calls in flight the CPU a call costs on our side (litellm building, sending, parsing, pricing
and logging it) is what bounds a run: 256 calls a second on 2 cores leave ~7.8 ms of CPU per call for
everything. Each change below names the figure it saves, measured A/B with `bench/engine.py` (CPU per call
with and without it; docs/RUNNING.md has the table and the command). A change that saved under 5% was
removed. Some rely on litellm's private names (each change's `hooks`): litellm is pinned in requirements.txt, and
tests/test_llm_tuning.py fails, naming the litellm version, when one of them moves.

`ARENA_LITELLM_UNTUNED` (a comma-separated list of the names in `TUNINGS`, or `all`) leaves changes off:
that is how the figures are measured again after a litellm upgrade.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any

UNTUNED_ENV = "ARENA_LITELLM_UNTUNED"


@dataclass(frozen=True)
class Hook:
    """A private name of litellm a change relies on: `name` (dotted, from `litellm`) must exist and, when `holds` is
    given, its source must still hold that text (a parameter, the statement the change depends on)."""

    name: str
    holds: str = ""

    def moved(self, litellm: Any) -> str | None:
        """Why the hook no longer holds in this litellm, or None."""
        found = litellm
        for part in self.name.split(".")[1:]:
            found = getattr(found, part, None)
            if found is None:
                return f"{self.name} is gone"
        if self.holds:
            try:
                source = inspect.getsource(found)
            except (OSError, TypeError):
                return f"{self.name} has no source to check"
            if self.holds not in source:
                return f"{self.name} no longer holds `{self.holds}`"
        return None


@dataclass(frozen=True)
class Tuning:
    name: str
    saves: str  # what it saves, as bench/engine.py measured it (docs/RUNNING.md has the command)
    apply: Callable[[Any], None]  # given the imported litellm
    hooks: tuple[Hook, ...] = ()


def _untuned() -> set[str]:
    names = {n.strip() for n in os.environ.get(UNTUNED_ENV, "").split(",") if n.strip()}
    return set(TUNINGS) if "all" in names else names


def tuned(name: str) -> bool:
    return name not in _untuned()


def moved_hooks(litellm: Any) -> dict[str, list[str]]:
    """Per change, the private names it relies on that this litellm no longer has as the change expects."""
    moved = {t.name: [m for h in t.hooks if (m := h.moved(litellm))] for t in TUNINGS.values()}
    return {name: reasons for name, reasons in moved.items() if reasons}


_APPLIED: set[str] = set()


def tune(litellm: Any) -> None:
    """The changes made to the imported litellm; one whose hooks moved (a litellm other than the pinned one) is left
    out, so a call works as litellm made it, only slower (tests/test_llm_tuning.py says which and why)."""
    moved = moved_hooks(litellm)
    for tuning in TUNINGS.values():
        if tuned(tuning.name) and tuning.name not in moved:
            tuning.apply(litellm)
            _APPLIED.add(tuning.name)


def _log_only_when_listened(litellm: Any) -> None:
    """After every successful call litellm builds a full logging payload for the success callbacks an
    observability tool or the Router registers, in a task of its own, thrown away when nobody listens (our cost and
    tokens come from the response itself). Skip it then; a callback registered at any time (the Router's health
    tracking, a user's logger) gets every call's log again."""
    import litellm.utils as litellm_utils

    log = litellm_utils._client_async_logging_helper

    @wraps(log)  # its source and signature stay litellm's: `Hook` checks them
    async def log_when_listened(*args: Any, **kwargs: Any) -> None:
        call = kwargs.get("logging_obj")
        if (litellm.callbacks or litellm.success_callback or litellm._async_success_callback
                or getattr(call, "dynamic_async_success_callbacks", None)
                or getattr(call, "dynamic_success_callbacks", None)):
            await log(*args, **kwargs)

    litellm_utils._client_async_logging_helper = log_when_listened


def _remember_unpriced(litellm: Any) -> None:
    """litellm's price of a call, except that a model its price map lacks (a self-hosted one, the benchmark's stub)
    is looked up once instead of on every call: the failed lookup makes ten passes over the map and a diagnostic
    that repeats them. The figure stays the same: no price (NULL)."""
    calculate = litellm.response_cost_calculator
    unpriced: set[tuple[Any, ...]] = set()

    def price(**call: Any) -> float | None:
        key = (call.get("model"), call.get("custom_llm_provider"), call.get("base_model"), call.get("router_model_id"),
               len(litellm.model_cost))  # a model registered since has its price looked up again
        if key in unpriced and not call.get("custom_pricing"):
            return None
        try:
            return calculate(**call)
        except litellm.ModelNotMappedError:
            unpriced.add(key)
            raise

    litellm.response_cost_calculator = price


def import_first_call_modules(litellm: Any) -> None:
    """What litellm imports on its first call in a process (the proxy's file-id helpers, the default tokenizer),
    imported now, by the fork server's preload (engine.play.worker_preload), so each local worker starts with them."""
    with contextlib.suppress(ImportError):
        importlib.import_module("litellm.proxy.openai_files_endpoints.common_utils")
    with contextlib.suppress(AttributeError):
        litellm.main.encoding  # noqa: B018 - the lazy attribute's load is the point


TUNINGS: dict[str, Tuning] = {t.name: t for t in [
    Tuning("log_only_when_listened", "CPU per call 4.72 ms against 5.02 without (-6%)", _log_only_when_listened,
           hooks=(Hook("litellm.utils._client_async_logging_helper", "logging_obj"),
                  Hook("litellm.utils", "_client_async_logging_helper("), Hook("litellm.callbacks"),
                  Hook("litellm.success_callback"), Hook("litellm._async_success_callback"))),
    Tuning("remember_unpriced", "CPU per call 3.86 ms against 5.35 without (-28%)", _remember_unpriced,
           hooks=(Hook("litellm.response_cost_calculator"), Hook("litellm.ModelNotMappedError"),
                  Hook("litellm.litellm_core_utils.litellm_logging", "litellm.response_cost_calculator("))),
]}
