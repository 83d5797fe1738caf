"""A stored match played again from its turn log: the game is reset with the match's params and seed and
fed the recorded actions step by step, no agent asked. Each step's public state is checked against the
recorded one, so a replay that drifts (a changed rule, an action that does not read back) is an error,
never a silently different score. `python -m engine rescore` and the importers use it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from engine import store
from engine.games import get_game
from engine.games.base import Game, SeatResult


class ReplayError(ValueError):
    """The turn log does not replay through the game's rules."""


@dataclass(frozen=True)
class LoggedDecision:
    """What the replay reads of a decision turn."""

    turn: int
    seat: int
    action: Any  # as stored: JSON types
    facts: dict[str, Any] | None = None  # what an imported record forces on the game at this step
    state: str | None = None  # the public state recorded after the step


def logged_decisions(turns: Iterable[dict[str, Any]]) -> list[LoggedDecision]:
    """One match's turn rows (`turn`, `seat`, `action` and `state` JSON), in order -> its decisions."""
    out = []
    for t in turns:
        if t["seat"] is None:
            continue
        stored = json.loads(t["action"]) if t["action"] else {}
        extra = stored.get("extra") or {}
        out.append(LoggedDecision(int(t["turn"]), int(t["seat"]), stored.get("action"), extra.get("facts"),
                                  t["state"]))
    return out


@dataclass
class Replayed:
    """The game at the end of the replay, and the reward each decision turn earned (None where the game has none)."""

    game: Game
    rewards: dict[int, float | None]


def replay(game_name: str, params: dict[str, Any], seed: int, decisions: list[LoggedDecision],
           check_states: bool = True) -> Replayed:
    """Play `decisions` through a fresh game; raises ReplayError where the log and the rules part ways."""
    game = get_game(game_name)(params)
    game.reset(seed)
    rewards: dict[int, float | None] = {}
    at = 0
    while not game.done():
        if at < len(decisions) and decisions[at].facts:  # an imported record's draws, kept on the step's first turn
            game.force(decisions[at].facts)
        seats = game.to_act()
        step = decisions[at:at + len(seats)]
        if [d.seat for d in step] != list(seats):
            turn = step[0].turn if step else "the end of the log"
            raise ReplayError(f"{game_name}: at turn {turn} the rules have seats {list(seats)} acting, the log "
                              f"{[d.seat for d in step]}")
        game.step({d.seat: d.action for d in step})
        earned = game.step_rewards()
        for d in step:
            rewards[d.turn] = earned.get(d.seat)
        if check_states and step[-1].state is not None and store.to_json(game.public_state()) != step[-1].state:
            raise ReplayError(f"{game_name}: after turn {step[-1].turn} the replayed state differs from the log")
        at += len(seats)
    if at != len(decisions):
        raise ReplayError(f"{game_name}: the game ended at turn {decisions[at - 1].turn if at else 0} but the log "
                          f"goes on for {len(decisions) - at} decisions")
    return Replayed(game, rewards)


@dataclass
class Rescored:
    """A match's figures as its game computes them now."""

    metrics: list[dict[str, Any]]
    rewards: dict[int, float | None] = field(default_factory=dict)  # decision turn -> its reward
    results: dict[int, SeatResult] = field(default_factory=dict)  # empty: the seats' rows are kept
