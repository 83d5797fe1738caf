"""The local executor over several processes: a run's model matches spread over this machine's cores.

A model call costs CPU in litellm and HTTP, so one process tops out short of the hundreds of calls a run
keeps in flight. `play_in_workers` starts worker processes, forked
from a server that has litellm loaded already (`engine.play.worker_preload`), hands each every N-th match
and streams their finished matches (and turn notes) back here: this process, the driver, stays the
only writer of the database, as with Ray. A worker plays its share as the local executor does
(asyncio, its part of the run's concurrency and model bounds), answers from the response cache
`$ARENA_CACHE` names (SQLite in WAL mode, shared by processes) and sees the driver's environment.

Stopping: each worker watches a pipe from the driver and exits at once when it closes: when the run
ends, is cancelled, or the driver dies (even by kill -9). Ctrl-C, which reaches the whole process
group, is left to the driver. A worker that dies mid-run fails the run with a clear error once the
others have finished theirs; every match already finished is here, the rest are played on resume.
"""

from __future__ import annotations

import asyncio
import math
import multiprocessing
import os
import signal
import threading
import traceback
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any

from engine.agents import Agent
from engine.agents.cache import cache_from_env
from engine.agents.limits import ModelLimits
from engine.play.playing import OnTurn, TurnNote, play_streamed, this_worker
from engine.play.spec import MatchPlan
from engine.secrets import load_dotenv, redact
from engine.store import MatchRecord

PRELOAD = ["engine.play.worker_preload"]
JOIN_TIMEOUT = 5.0  # seconds a stopped worker gets to exit before it is killed


@dataclass(frozen=True)
class WorkerFailed:
    """What a worker sends before it exits on an error of its own (not a match's: those are recorded)."""

    message: str


def _exit_when_closed(driver: Connection) -> None:
    """Stop this worker as soon as the driver closes its end of the pipe, or dies."""
    try:
        driver.recv()
    except (EOFError, OSError):
        pass
    os._exit(0)


def _work(results: Connection, driver: Connection, plans: list[MatchPlan], concurrency: int, limits: ModelLimits,
          agent_factory: Callable[..., Agent], notes: bool, environment: dict[str, str]) -> None:
    """A worker process: play `plans`, sending each finished match and the turn notes to the driver."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.environ.clear()  # the driver's environment (keys, $ARENA_CACHE), not the one the fork server started with
    os.environ.update(environment)
    load_dotenv()
    threading.Thread(target=_exit_when_closed, args=(driver,), daemon=True).start()
    try:
        for item in play_streamed(plans, concurrency, limits, agent_factory, this_worker(), cache_from_env(), notes):
            results.send(item)
    except Exception as exc:  # noqa: BLE001 - told to the driver, which fails the run with it
        results.send(WorkerFailed(redact(f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=4)}")))
    finally:
        results.close()


def _forward(pipes: list[Connection], loop: asyncio.AbstractEventLoop, inbox: asyncio.Queue[Any]) -> None:
    """A thread of the driver: what the workers send, into `inbox`; None once every worker has hung up."""
    open_pipes = list(pipes)
    try:
        while open_pipes:
            for pipe in wait(open_pipes):
                try:
                    item = pipe.recv()
                except (EOFError, OSError):
                    open_pipes.remove(pipe)
                    continue
                loop.call_soon_threadsafe(inbox.put_nowait, item)
        loop.call_soon_threadsafe(inbox.put_nowait, None)
    except RuntimeError:  # the run is over and its event loop closed: nobody is listening
        return


async def play_in_workers(plans: list[MatchPlan], concurrency: int, limits: ModelLimits,
                          agent_factory: Callable[..., Agent], workers: int,
                          on_turn: OnTurn | None = None) -> AsyncIterator[MatchRecord]:
    """Each match of `plans` once, as it finishes in one of `workers` processes (`concurrency` matches at once
    over all of them, the model bounds of `limits` holding over all of them); `on_turn` hears here of every
    decision."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)
    n = max(1, min(workers, len(plans)))
    share, per_worker = limits.split(n), math.ceil(concurrency / n)
    environment = dict(os.environ)
    inbox: asyncio.Queue[MatchRecord | list[TurnNote] | WorkerFailed | None] = asyncio.Queue()
    processes: list[Any] = []
    results: list[Connection] = []
    lifelines: list[Connection] = []
    forwarder = None
    try:
        for i in range(n):
            receive, send = context.Pipe(duplex=False)
            watch, hold = context.Pipe(duplex=False)
            process = context.Process(target=_work, name=f"arena-worker-{i}", daemon=True, args=(
                send, watch, plans[i::n], per_worker, share, agent_factory, on_turn is not None, environment))
            process.start()
            send.close()
            watch.close()
            processes.append(process)
            results.append(receive)
            lifelines.append(hold)
        forwarder = threading.Thread(target=_forward, args=(results, asyncio.get_running_loop(), inbox), daemon=True)
        forwarder.start()
        left = len(plans)
        while left:
            item = await inbox.get()
            if item is None:
                raise RuntimeError(f"a worker process ended with {left} of the run's matches unplayed "
                                   "(run the same command again to resume them)")
            if isinstance(item, WorkerFailed):
                raise RuntimeError(f"a worker process failed: {item.message}")
            if isinstance(item, list):
                for note in item:
                    if on_turn is not None:
                        on_turn(note)
                continue
            left -= 1
            yield item
    finally:
        for hold in lifelines:
            hold.close()
        for process in processes:
            process.join(JOIN_TIMEOUT)
            if process.is_alive():
                process.kill()
                process.join()
        if forwarder is not None:
            forwarder.join(JOIN_TIMEOUT)
        for receive in results:
            receive.close()
