"""Strategy overlays: how a prompt is changed around the game's own wording.

A strategy string is `name` or `name:arg` (`persona:mathematician`). Overlays are registered with
`@overlay(name)`; a game family may register its own (the social games' attack/defense) next to
its rules. `vanilla` leaves the prompt alone; `cot` asks for reasoning before the answer (the
parsers read the answer last, so reasoning first is safe).
"""

from __future__ import annotations

from collections.abc import Callable

from engine.games.base import Observation

Messages = list[dict[str, str]]
Overlay = Callable[[Messages, Observation, str | None], Messages]
OVERLAYS: dict[str, Overlay] = {}

COT = "Think it through step by step first, then give your final answer on the last line in the format asked."


def overlay(name: str) -> Callable[[Overlay], Overlay]:
    def add(fn: Overlay) -> Overlay:
        OVERLAYS[name] = fn
        return fn

    return add


def append_to_last_user(messages: Messages, text: str) -> Messages:
    out = [dict(m) for m in messages]
    for m in reversed(out):
        if m["role"] == "user":
            m["content"] = m["content"] + "\n\n" + text
            break
    return out


@overlay("vanilla")
def _vanilla(messages: Messages, obs: Observation, arg: str | None) -> Messages:
    return messages


@overlay("cot")
def _cot(messages: Messages, obs: Observation, arg: str | None) -> Messages:
    return append_to_last_user(messages, COT)


def split(strategy: str) -> tuple[str, str | None]:
    name, _, arg = strategy.partition(":")
    return name, arg or None


def check(strategy: str) -> None:
    """Raise ValueError naming the known strategies if `strategy` is not one."""
    from engine.games import all_games

    all_games()  # games may register overlays of their own
    if split(strategy)[0] not in OVERLAYS:
        raise ValueError(f"unknown strategy '{strategy}' (known: {', '.join(sorted(OVERLAYS))})")


def apply(strategy: str, messages: Messages, obs: Observation) -> Messages:
    name, arg = split(strategy)
    if name not in OVERLAYS:
        raise ValueError(f"unknown strategy '{strategy}' (known: {', '.join(sorted(OVERLAYS))})")
    return OVERLAYS[name](messages, obs, arg)
