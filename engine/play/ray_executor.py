"""The Ray executor: a run's matches played as Ray tasks on a cluster, streamed back to this process.

`python -m engine run SPEC --executor ray [--address ADDR]` connects to the cluster at ADDR (or
`$RAY_ADDRESS`), or starts a local one for the run. The matches are cut into chunks; each chunk is a
Ray generator task that plays its matches concurrently on a worker (asyncio, as the local executor
does) and yields each finished match at once. This process, the driver, stays the only writer of the
database: it group-commits what comes back, drives the progress bar, and skips a match it already has
(a match played again after its node was lost). A chunk whose worker or node is lost starts again,
elsewhere, with the matches it had not delivered (`play_part`).

A worker process serves many chunks of the run, so what a process loads once (litellm, the
embedded model) is loaded once per worker. Workers answer from the driver's response cache: one
actor on the driver's node holds it, so a repeated run replays for free on any node. Provider keys
are not shipped with the tasks: each node reads its own environment or `.env`.
"""

from __future__ import annotations

import asyncio
import math
import os
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from engine import store
from engine.agents import Agent, make_agent
from engine.agents import cache as response_cache
from engine.agents.limits import ModelLimits
from engine.play.playing import OnTurn, TurnNote, play_streamed
from engine.play.spec import MatchPlan

RAY_TEMP = store.ROOT / ".ray"  # a local cluster's sockets and logs stay inside the work tree
CHUNKS_PER_TASK_SLOT = 2        # at least this many chunks per task slot, so a slow chunk does not idle the rest
MAX_CHUNK_ROUNDS = 4            # a chunk holds at most this many times the matches it plays at once
TASK_RETRIES = 3                # a chunk whose worker or node dies is played again elsewhere, this many times


def connect(address: str | None) -> bool:
    """Connect this process to the cluster at `address` (or `$RAY_ADDRESS`), or start a local one.
    Returns whether this call did it (and so should disconnect at the end)."""
    import ray

    if ray.is_initialized():
        return False
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                               "runtime_env": {"py_modules": [str(store.ROOT / "engine")]}}
    address = address or os.environ.get("RAY_ADDRESS") or None
    if address is None:
        RAY_TEMP.mkdir(exist_ok=True)
        options["_temp_dir"] = str(RAY_TEMP)
    ray.init(address=address, **options)
    return True


class RemoteCache:
    """The response cache as a worker sees it: the same `aget`/`aput` as `ResponseCache`, served by the
    cache actor on the driver's node."""

    def __init__(self, actor: Any):
        self.actor = actor

    async def aget(self, key: str) -> response_cache.CachedReply | None:
        return await self.actor.get.remote(key)

    async def aput(self, key: str, model: str, reply: response_cache.CachedReply) -> None:
        await self.actor.put.remote(key, model, reply)


def _cache_actor(ray: Any) -> RemoteCache | None:
    """The driver's response cache (None when it is off), served from the driver's node."""
    local = response_cache.cache_from_env()
    if local is None:
        return None
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)
    actor = ray.remote(response_cache.ResponseCache).options(num_cpus=0, max_concurrency=16,
                                                              scheduling_strategy=here)
    return RemoteCache(actor.remote(str(local.path)))


def worker_name() -> str:
    """`matches.worker` for a match played by this Ray worker process: its node and process id."""
    import ray

    return f"ray:{ray.get_runtime_context().get_node_id()[:12]}:{os.getpid()}"


def play_chunk(plans: list[MatchPlan], concurrency: int, limits: ModelLimits, agent_factory: Callable[..., Agent],
               cache: RemoteCache | None, notes: bool = False) -> Iterator[store.MatchRecord | list[TurnNote]]:
    """A Ray generator task: play `plans` on this worker, `concurrency` at a time, yielding each finished match
    and, if `notes`, the notes of the decisions made meanwhile (`engine.play.playing.play_streamed`)."""
    yield from play_streamed(plans, concurrency, limits, agent_factory, worker_name(), cache, notes)


async def play_part(start: Callable[[list[MatchPlan]], Any], part: list[MatchPlan],
                    deliver: Callable[[store.MatchRecord], None], on_turn: OnTurn | None) -> None:
    """Deliver each match of `part` as its generator task (`start(part)`) yields it; when the task's worker or node
    is lost, start the matches not yet delivered again, up to TASK_RETRIES times.

    Not Ray's own `max_retries`: a retried generator's items are matched to the stream's positions, and those
    already consumed are dropped as repeats, but a chunk's matches finish in another order on each attempt (and
    the notes between them come by the clock), so a match never delivered could be dropped and the run would
    wait for it forever (the two-node test once hung until its timeout on a loaded machine)."""
    from ray import exceptions as ray_errors

    lost = (ray_errors.LocalRayletDiedError, ray_errors.NodeDiedError, ray_errors.ObjectLostError,
            ray_errors.OutOfMemoryError, ray_errors.RaySystemError, ray_errors.WorkerCrashedError)
    for attempt in range(TASK_RETRIES + 1):
        delivered: set[str] = set()
        try:
            async for ref in start(part):
                item = await ref
                if isinstance(item, list):
                    for note in item:
                        on_turn(note)
                else:
                    delivered.add(item.match["match_id"])
                    deliver(item)
            return
        except lost:
            part = [plan for plan in part if plan.match_id not in delivered]
            if not part:
                return
            if attempt == TASK_RETRIES:
                raise


def plan_chunks(n_plans: int, concurrency: int, slots: int) -> tuple[int, int, int]:
    """(tasks at once, matches at once per task, matches per chunk): `concurrency` matches in flight over the
    cluster's task slots; chunks small enough that every slot has work until the end, never so small that
    the run plays fewer matches at once than asked."""
    tasks = max(1, min(slots, concurrency, n_plans))
    per_task = math.ceil(concurrency / tasks)
    keeps_concurrency = min(per_task, math.ceil(n_plans / tasks))
    balanced = min(per_task * MAX_CHUNK_ROUNDS, math.ceil(n_plans / (tasks * CHUNKS_PER_TASK_SLOT)))
    chunk = max(1, keeps_concurrency, balanced)
    return tasks, min(per_task, chunk), chunk


async def play_on_ray(plans: list[MatchPlan], concurrency: int, limits: ModelLimits,
                      agent_factory: Callable[..., Agent] = make_agent, address: str | None = None,
                      on_turn: OnTurn | None = None) -> AsyncIterator[store.MatchRecord]:
    """Each match of `plans` once, as it finishes on the cluster; `on_turn` hears here of every decision the
    workers make (twice for a match replayed after its node was lost: its calls were made twice)."""
    import ray

    started_here = connect(address)
    slots = max(1, int(ray.cluster_resources().get("CPU", 1)))
    tasks, per_task, chunk = plan_chunks(len(plans), concurrency, slots)
    share = limits.split(tasks)  # the model bounds hold over the whole cluster
    remote = ray.remote(play_chunk).options(max_retries=0, scheduling_strategy="SPREAD")  # see play_part
    cache = _cache_actor(ray)
    chunks = iter([plans[i:i + chunk] for i in range(0, len(plans), chunk)])
    finished: asyncio.Queue[store.MatchRecord | BaseException] = asyncio.Queue()
    running: set[Any] = set()

    def start(part: list[MatchPlan]) -> Any:
        generator = remote.remote(part, per_task, share, agent_factory, cache, on_turn is not None)
        running.add(generator)
        return generator

    async def lane() -> None:
        try:
            for part in chunks:
                await play_part(start, part, finished.put_nowait, on_turn)
        except Exception as exc:  # noqa: BLE001 - handed to the consumer, which re-raises it
            finished.put_nowait(exc)

    lanes = [asyncio.create_task(lane()) for _ in range(tasks)]
    seen: set[str] = set()
    try:
        while len(seen) < len(plans):
            item = await finished.get()
            if isinstance(item, BaseException):
                raise item
            if item.match["match_id"] not in seen:
                seen.add(item.match["match_id"])
                yield item
    finally:
        for task in lanes:
            task.cancel()
        for generator in running:
            ray.cancel(generator)
        if started_here:
            ray.shutdown()

