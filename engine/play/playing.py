"""Playing matches: one match's loop (`play_match`), many at once in this process (`play_here`), and a worker
process's share of a run streamed back to its driver (`play_streamed`).

This is what every executor shares, below the runner that chooses one (`engine.play.runner`): the local executor is
`play_here` itself; the worker processes of this machine (`engine.play.local_workers`) and the Ray workers
(`engine.play.ray_executor`) each play their share with `play_streamed` and send back the finished matches and the
turn notes (`TurnNote`) that the driver hands to its `OnTurn`. Every match ends by its deadline (the spec's
`match_deadline_s`), and no match keeps the event loop to itself (`let_others_run`).
"""

from __future__ import annotations

import asyncio
import os
import random
import socket
import time
import traceback
import weakref
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from engine import store
from engine.agents import Agent, TurnContext, make_agent
from engine.agents import cache as response_cache
from engine.agents.base import AgentError, AgentSpec, Decision
from engine.agents.limits import ModelLimits
from engine.agents.llm import LOCAL_PREFIX
from engine.games import get_game
from engine.games.base import ERROR, FIXED, FORFEIT, Game, IllegalAction, Observation, RetryPolicy
from engine.play.match_rows import TurnLog, match_metrics, seat_rows
from engine.play.spec import MatchPlan
from engine.store import MatchRecord

MAX_STEPS = 10_000  # a game that never ends is a bug; stop it as an error instead of hanging
NOTE_INTERVAL = 0.5  # seconds: a worker process sends its decisions' notes (turn-level progress) this often
RAMP_S = 0.8  # seconds over which the first matches that call a model over the network start (see play_here)
HOLD_LOOP_AT_MOST = 0.05  # seconds the event loop may go without coming round (see let_others_run)


@dataclass(frozen=True)
class TurnNote:
    """One decision as the turn-level progress counts it (`engine run --progress-file`, the Launch page): the
    database only learns of a match when it ends. Small, so a Ray worker can send its notes to the driver."""

    match_id: str
    llm: bool
    tokens_in: int | None
    tokens_out: int | None
    cost_usd: float | None
    retries: int
    fallback: bool

    @classmethod
    def of(cls, match_id: str, seat: AgentSpec, decision: Decision) -> TurnNote:
        return cls(match_id, not seat.is_bot, decision.tokens_in, decision.tokens_out, decision.cost_usd,
                   decision.retries, decision.fallback)


OnTurn = Callable[[TurnNote], None]


@dataclass
class _LoopRound:
    """When an event loop last came round to its waiting tasks, and whether every match now hands it back."""

    since: float = field(default_factory=time.monotonic)
    handing_back: bool = False

    def came_round(self) -> None:
        self.since, self.handing_back = time.monotonic(), False


_rounds: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopRound] = weakref.WeakKeyDictionary()


async def let_others_run() -> None:
    """A bot answers without ever awaiting, so a match of bots (and the next, and the next) would keep the event loop
    to itself: the group commit's flush every second, Ctrl-C and the whole-match deadline would wait for the run's
    end. Called every turn: once the loop has not come round for HOLD_LOOP_AT_MOST s, every match hands it back at
    its next turn, until it has come round. The bound is the loop's, not each match's: with a bound per match, a round
    would last as long as every match's hold added up. Handing it back at every turn would slow bots-only runs
    a good deal."""
    loop = asyncio.get_running_loop()
    round_ = _rounds.get(loop)
    if round_ is None:
        round_ = _rounds[loop] = _LoopRound()
    if not round_.handing_back:
        if time.monotonic() - round_.since < HOLD_LOOP_AT_MOST:
            return
        round_.handing_back = True
        loop.call_soon(round_.came_round)
    await asyncio.sleep(0)


@dataclass(frozen=True)
class Illegal:
    """A well-formed but forbidden answer under a policy where it loses the game: a usable answer, not a re-ask."""

    action: Any
    reason: str


def as_asked(obs: Observation) -> Observation:
    """The observation a model answers: under a policy where an illegal action loses (LLMArena's Hold'em and Bid,
    PettingZoo's TerminateIllegalWrapper), the parser hands back the illegal action instead of asking again."""
    if obs.retry.illegal != FORFEIT:
        return obs

    def parse(text: str) -> Any:
        try:
            return obs.parse(text)
        except IllegalAction as exc:
            return Illegal(exc.action, str(exc))

    return replace(obs, parse=parse)


def settle(game: Game, seat: int, decision: Decision, policy: RetryPolicy) -> bool:
    """Apply the game's retry policy to a model's decision and, where the policy acted (a re-ask, a fallback, a
    forfeit), note on it which policy and what happened: the turn's `action.extra.retry`, which the transcripts
    show (a turn without it was answered on the first try). Returns whether the seat forfeited the game."""
    forfeited = False
    if isinstance(decision.action, Illegal):
        decision.action, decision.error, decision.legal = decision.action.action, decision.action.reason, False
        game.forfeit(seat, decision.error, decision.action)
        outcome, forfeited = "forfeit (illegal action)", True
    elif not decision.fallback:
        outcome = "answered"
    elif policy.exhausted == FIXED:
        decision.action, outcome = game.fixed_action(seat), "fixed action"
    elif policy.exhausted == FORFEIT:
        game.forfeit(seat, "no usable answer")
        outcome, forfeited = "forfeit (no usable answer)", True
    elif policy.exhausted == ERROR:
        raise AgentError(f"{game.name}: {game.player_name(seat)} gave no usable answer in {policy.tries} tries "
                         f"(retry policy '{policy.name}': {policy.describe()}); last error: {decision.error}")
    else:
        outcome = "random action"
    if decision.retries or outcome != "answered":
        decision.extra["retry"] = {"policy": policy.name, "tries": decision.retries + 1, "outcome": outcome}
    return forfeited


def this_worker() -> str:
    """Who plays a match in this process (`matches.worker`): host and process id."""
    return f"{socket.gethostname()}:{os.getpid()}"


async def play_match(plan: MatchPlan, limits: ModelLimits | None = None,
                     agent_factory: Callable[..., Agent] = make_agent, worker: str | None = None,
                     on_turn: OnTurn | None = None) -> MatchRecord:
    """Play one match to the end, telling `on_turn` of each decision. Never raises for a game or agent failure:
    the record says `error`."""
    started = store.now()
    limits = limits or ModelLimits()
    agents = [agent_factory(spec, limits=limits) for spec in plan.seats]
    game = get_game(plan.game)(plan.params)
    log = TurnLog(plan.match_id)
    status, error = "ok", None
    deadline = asyncio.timeout(plan.deadline_s)  # a dead endpoint's retries, or a bot that thinks forever, end here
    try:
        async with deadline:
            game.reset(plan.seed)
            log.messages(game, store.to_json(game.public_state()))
            for _ in range(MAX_STEPS):
                if game.done():
                    break
                seats = game.to_act()
                if not seats:
                    raise RuntimeError(f"{plan.game}: no seat is to act but the game is not done")
                observations = {s: game.observe(s) for s in seats}
                first_turn = log.next_turn()
                contexts = {s: TurnContext(plan.match_id, plan.seed, s, first_turn + i,
                                           random.Random(f"{plan.seed}:{s}:{first_turn + i}"))
                            for i, s in enumerate(seats)}
                asked = {s: observations[s] if plan.seats[s].is_bot else as_asked(observations[s]) for s in seats}
                if len(seats) == 1:  # a turn-based game: no task to create and gather per move
                    decisions = [await agents[seats[0]].act(asked[seats[0]], contexts[seats[0]])]
                else:
                    decisions = await asyncio.gather(*(agents[s].act(asked[s], contexts[s]) for s in seats))
                forfeited = False
                for s, d in zip(seats, decisions, strict=True):
                    if not plan.seats[s].is_bot:
                        forfeited |= settle(game, s, d, observations[s].retry)
                if not forfeited:
                    game.step({s: d.action for s, d in zip(seats, decisions, strict=True)})
                state = store.to_json(game.public_state())
                rewards = game.step_rewards()
                for s, d in zip(seats, decisions, strict=True):
                    log.decision(observations[s].phase, observations[s].round, s, d, state, rewards.get(s))
                    if on_turn is not None:
                        on_turn(TurnNote.of(plan.match_id, plan.seats[s], d))
                log.messages(game, state)
                await let_others_run()
            else:
                raise RuntimeError(f"{plan.game}: no end after {MAX_STEPS} steps")
    except Exception as exc:  # noqa: BLE001 - a bug in one match must not stop the run
        status = "error"
        if deadline.expired():
            failed = [a.last_failure for a in agents if getattr(a, "last_failure", None)]  # models only
            error = (f"the match did not end within its deadline of {plan.deadline_s:g} s " + (
                f"while calls kept failing (the last: {failed[-1]})" if failed else
                "(match_deadline_s in the spec; raise it for longer matches)"))
        elif isinstance(exc, AgentError):
            error = str(exc)
        else:
            error = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=4)}"

    players = [{"agent": spec.agent, "label": spec.label} | ({} if spec.is_bot else {
        "prompt_version": spec.prompt_version, "strategy": spec.strategy, "temperature": spec.temperature,
        "max_tokens": spec.max_tokens})
        for spec in plan.seats]
    seats = seat_rows(plan.match_id, game, players, game.result() if status == "ok" else {})
    metrics = match_metrics(plan.match_id, game, len(plan.seats), log.rows) if status == "ok" else []
    match = {
        "match_id": plan.match_id, "run_id": plan.run_id, "game": plan.game, "preset": plan.preset,
        "params": store.to_json(plan.params), "seed": plan.seed, "repeat": plan.repeat, "status": status,
        "error": error, "started_at": started, "finished_at": store.now(),
        "outcome": store.to_json(game.outcome() if status == "ok" else None), "worker": worker or this_worker(),
        "rules_version": game.rules_version, "mirror": plan.mirror, "deal": plan.deal,
    }
    return MatchRecord(match, seats, log.rows, metrics)


async def play_here(plans: list[MatchPlan], concurrency: int, limits: ModelLimits,
                    agent_factory: Callable[..., Agent] = make_agent, worker: str | None = None,
                    on_turn: OnTurn | None = None) -> AsyncIterator[MatchRecord]:
    """The local executor (and a Ray worker's): `concurrency` matches at a time in this process, each
    yielded as it finishes.

    Matches that call a model over the network start spread over RAMP_S instead of all at once. Started
    together, their calls reach the provider in one instant and come back in one instant; asyncio then serves
    the replies round-robin, so every one of them (each costs litellm some CPU) finishes only when the whole
    burst is done, and every match starts its next turn that late: the burst comes back every turn, longer the
    more calls are in flight on few cores. Spread once, the calls stay spread. Spread over most of a second (a
    fast provider's turn) rather than the burst's own length: calls spread thinner wait less on each other every
    turn, which outweighs the later start."""
    queue = iter(plans)
    worker = worker or this_worker()
    n_players = min(concurrency, len(plans))
    # bounded: players wait while their finished matches wait for the consumer (a run waiting for its writer)
    finished: asyncio.Queue[MatchRecord | BaseException] = asyncio.Queue(maxsize=max(1, n_players))
    ramp = RAMP_S / n_players if calls_a_remote_model(plans) else 0.0

    async def player(k: int) -> None:
        try:
            await asyncio.sleep(k * ramp)
            for plan in queue:
                await finished.put(await play_match(plan, limits, agent_factory, worker, on_turn))
        except Exception as exc:  # noqa: BLE001 - handed to the consumer, which re-raises it
            await finished.put(exc)

    players = [asyncio.create_task(player(k)) for k in range(n_players)]
    try:
        for _ in plans:
            item = await finished.get()
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        for task in players:
            task.cancel()


def play_streamed(plans: list[MatchPlan], concurrency: int, limits: ModelLimits, agent_factory: Callable[..., Agent],
                  worker: str, cache: Any, notes: bool = False) -> Iterator[MatchRecord | list[TurnNote]]:
    """A worker process's share of a run (Ray's or a local one's): `plans` played here, `concurrency` at a time,
    yielding each finished match and, if `notes`, the notes of the decisions made since the last yield (at least
    every NOTE_INTERVAL), for the driver. `cache` is the response cache to answer from (None: none)."""
    heard: list[TurnNote] = []
    played = play_here(plans, concurrency, limits, agent_factory, worker, heard.append if notes else None)
    events = _between_matches(played, heard)
    # the Runner's close cancels what the share left behind (litellm's logging task)
    with response_cache.shared(cache), asyncio.Runner() as runner:
        try:
            while True:
                try:
                    item = runner.run(anext(events))
                except StopAsyncIteration:
                    return
                yield item
        finally:
            runner.run(events.aclose())


async def _between_matches(played: AsyncIterator[MatchRecord], heard: list[TurnNote],
                           ) -> AsyncIterator[MatchRecord | list[TurnNote]]:
    """`played`'s matches as they finish, and what `heard` gathered meanwhile, at least every NOTE_INTERVAL
    (a match of an LLM can take minutes)."""
    upcoming = asyncio.ensure_future(anext(played))
    try:
        while True:
            done, _ = await asyncio.wait({upcoming}, timeout=NOTE_INTERVAL)
            if heard:  # taken before the yield: the matches go on adding to `heard` while the consumer has the batch
                batch = heard.copy()
                heard.clear()
                yield batch
            if done:
                try:
                    record = upcoming.result()
                except StopAsyncIteration:
                    return
                yield record
                upcoming = asyncio.ensure_future(anext(played))
    finally:
        upcoming.cancel()
        await asyncio.wait({upcoming})  # the matches it was waiting for are cancelled before `played` closes
        await played.aclose()


def calls_a_remote_model(plans: list[MatchPlan]) -> bool:
    """Whether a seat of these matches calls a model over the network (not a bot, not the embedded model)."""
    return any(not seat.is_bot and not seat.agent.startswith(LOCAL_PREFIX) for plan in plans for seat in plan.seats)


