"""Playing a run: match plans -> matches played by an executor -> finished matches group-committed.

The executor is this process (`engine.play.playing.play_here`: asyncio, `concurrency` matches at once), worker
processes of this machine (`engine.play.local_workers`: a model call costs CPU, so one process cannot keep hundreds
of calls in flight) or a Ray cluster (`engine.play.ray_executor`); each yields the finished matches,
which come back here: this process is the only writer.
Resuming is the same call: matches already `ok` in the database are skipped; errored and
never-finished ones are played again (a match is only written when it ends, so a killed run
leaves no partial match behind). One process plays a run at a time (`engine.play.run_lock`).
Finished matches reach the database about every second whatever the agents (`engine.play.playing.let_others_run`),
and a run plays on only as fast as they are written (`GroupCommit.wait_for_room`): its memory is bounded
by its concurrency, not its length.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from engine import store
from engine.agents import Agent, make_agent
from engine.agents.limits import ModelLimits
from engine.play import run_lock
from engine.play.group_commit import GroupCommit
from engine.play.local_workers import play_in_workers
from engine.play.playing import OnTurn, calls_a_remote_model, play_here
from engine.play.progress import match_progress
from engine.play.ray_executor import play_on_ray
from engine.play.spec import RunSpec
from engine.store import MatchRecord


@dataclass
class RunSummary:
    run_id: str
    n_matches: int
    skipped: int = 0
    played: int = 0
    errors: int = 0
    turns: int = 0  # the players' decisions (the moderator's lines not counted)
    tokens: int = 0
    cost_usd: float = 0.0
    error_messages: list[str] = field(default_factory=list)

    def count(self, record: MatchRecord) -> None:
        self.played += 1
        self.turns += sum(t["seat"] is not None for t in record.turns)
        self.tokens += sum((t["tokens_in"] or 0) + (t["tokens_out"] or 0) for t in record.turns)
        self.cost_usd += sum(t["cost_usd"] or 0.0 for t in record.turns)
        if record.match["status"] != "ok":
            self.errors += 1
            self.error_messages.append(f"{record.match['match_id']}: {record.match['error'].splitlines()[0]}")


def default_workers(spec: RunSpec) -> int:
    """Processes of this machine that play a run on the local executor when none is asked: one per core when a
    seat calls a model over the network (each call costs CPU in litellm), else 1, this process (bots cost
    next to nothing, and an embedded model would be loaded in every process)."""
    return (os.cpu_count() or 1) if calls_a_remote_model(spec.matches) else 1


async def run_spec(spec: RunSpec, db: str | Path, concurrency: int | None = None,
                   progress: bool = True, agent_factory: Callable[..., Agent] = make_agent,
                   executor: str | None = None, address: str | None = None,
                   on_turn: OnTurn | None = None, workers: int = 1) -> RunSummary:
    """Play every match of the spec not yet `ok` in `db` on the spec's executor (or `executor`: local or ray,
    at `address`; the local one in `workers` processes), writing the finished ones a batch per transaction;
    `on_turn` hears of every decision, in this process whichever executor plays it."""
    store.init_db(db)
    with run_lock.playing(db, spec.run_id):  # before the run's row: a second player of the run changes nothing
        return await _play(spec, db, concurrency or spec.concurrency, progress, agent_factory, executor, address,
                           on_turn, workers)


async def _play(spec: RunSpec, db: str | Path, concurrency: int, progress: bool, agent_factory: Callable[..., Agent],
                executor: str | None, address: str | None, on_turn: OnTurn | None, workers: int) -> RunSummary:
    store.upsert_run(db, spec.run_id, spec.name, spec.raw, "engine", len(spec.matches))
    attempted = store.match_statuses(db, spec.run_id)
    todo = [m for m in spec.matches if attempted.get(m.match_id) != "ok"]
    summary = RunSummary(spec.run_id, len(spec.matches), skipped=len(spec.matches) - len(todo))
    limits = ModelLimits(spec.model_concurrency, spec.model_limits)
    if (executor or spec.executor) == "ray":
        played = play_on_ray(todo, concurrency, limits, agent_factory, address, on_turn)
    elif min(workers, len(todo)) > 1:
        played = play_in_workers(todo, concurrency, limits, agent_factory, workers, on_turn)
    else:
        played = play_here(todo, concurrency, limits, agent_factory, on_turn=on_turn)
    bar = match_progress(len(spec.matches), summary.skipped, spec.name, progress)
    status = "cancelled"
    try:
        async with GroupCommit(db) as writer:
            async for record in played:
                writer.add(record)
                await writer.wait_for_room()
                summary.count(record)
                if bar is not None:
                    bar.update(1)
                    bar.set_postfix(errors=summary.errors, turns=summary.turns, tokens=summary.tokens,
                                    usd=summary.cost_usd, refresh=False)
        status = "ok" if summary.errors == 0 else "error"
    finally:
        await played.aclose()
        if bar is not None:
            bar.close()
        store.finish_run(db, spec.run_id, status)
    return summary
