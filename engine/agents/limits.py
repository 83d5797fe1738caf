"""Concurrency limits on model calls: one bound per model, shared by every match of a run."""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class ModelLimits:
    """`slot(model)` admits at most `per_model` calls to one model at a time (or `overrides[model]`)."""

    def __init__(self, per_model: int = 16, overrides: dict[str, int] | None = None):
        if per_model < 1:
            raise ValueError("the per-model concurrency must be at least 1")
        self.per_model = per_model
        self.overrides = dict(overrides or {})
        self._sems: dict[str, asyncio.Semaphore] = {}

    def split(self, parts: int) -> ModelLimits:
        """The bounds of one of `parts` processes that play a run together, so that they hold over the whole run."""
        return ModelLimits(max(1, math.ceil(self.per_model / parts)),
                           {m: max(1, math.ceil(n / parts)) for m, n in self.overrides.items()})

    @asynccontextmanager
    async def slot(self, model: str) -> AsyncIterator[None]:
        sem = self._sems.get(model)
        if sem is None:
            sem = self._sems[model] = asyncio.Semaphore(self.overrides.get(model, self.per_model))
        async with sem:
            yield
