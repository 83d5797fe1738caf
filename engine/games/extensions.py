"""What a game adds for the players, declared next to its rules without importing the agents: its scripted
bots (`@policy(game, name)`), strategy overlays of its own (`@overlay(name)`, e.g. Who-is-Spy's attack) and
probes worded for it (`add_probe`). The agents (engine/agents/bots.py, strategies.py) read these tables and
load every game module first (`engine.games.all_games`), so what a game declares is found whichever module
was imported first.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.games.base import Observation

# ---------------------------------------------------------------- scripted bots
Policy = Callable[[Observation, random.Random, str | None], Any]
ArgumentReader = Callable[[str | None], Any]
POLICIES: dict[tuple[str, str], Policy] = {}
ARGUMENTS: dict[tuple[str, str], ArgumentReader] = {}


def policy(game: str, name: str, argument: ArgumentReader | None = None) -> Callable[[Policy], Policy]:
    """Declare `bot:<name>` for `game`: a function of the structured view, the bot's rng and its argument.
    A bot that takes an argument (`bot:<name>:<arg>`) declares its reader, which raises ValueError on a wrong
    one: a spec is checked with it before a match is played. A bot without one takes no argument."""

    def add(fn: Policy) -> Policy:
        POLICIES[(game, name)] = fn
        if argument is not None:
            ARGUMENTS[(game, name)] = argument
        return fn

    return add


# ---------------------------------------------------------------- strategy overlays
Messages = list[dict[str, str]]
Overlay = Callable[[Messages, Observation, str | None], Messages]
OVERLAYS: dict[str, Overlay] = {}
NEEDS_ARG: set[str] = set()


def overlay(name: str, needs_arg: bool = False) -> Callable[[Overlay], Overlay]:
    """Declare the strategy `name`; `needs_arg` makes `name` alone (without `:arg`) an error in a spec."""

    def add(fn: Overlay) -> Overlay:
        OVERLAYS[name] = fn
        if needs_arg:
            NEEDS_ARG.add(name)
        return fn

    return add


def append_to_last_user(messages: Messages, text: str) -> Messages:
    out = [dict(m) for m in messages]
    for m in reversed(out):
        if m["role"] == "user":
            m["content"] = m["content"] + "\n\n" + text
            break
    return out


# ---------------------------------------------------------------- probes asked before the decision
@dataclass(frozen=True)
class Probe:
    """A question asked before the decision: its answer stays in the conversation for the decision
    and is stored on the turn as `Decision.extra[key]`."""

    key: str
    question: Callable[[Observation, str | None], str]
    decide: str  # the ask that follows the answer


PROBES: dict[tuple[str, str | None], Probe] = {}
PGM_DECIDE = ("Now make your decision, taking your analysis above into account. "
              "Give your answer in the format asked before ({format}).")


def add_probe(strategy: str, probe: Probe, game: str | None = None) -> None:
    """Ask `probe` before each decision under `strategy`; `game` words it for one game only."""
    PROBES[(strategy, game)] = probe
