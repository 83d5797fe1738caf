"""Strategy overlays: how a prompt is changed around the game's own wording.

`vanilla` leaves it alone; `cot` asks for reasoning before the answer (the parsers read the
answer last, so reasoning first is safe)."""

from __future__ import annotations

from collections.abc import Callable

Messages = list[dict[str, str]]

COT = "Think it through step by step first, then give your final answer on the last line in the format asked."


def _append_to_last_user(messages: Messages, text: str) -> Messages:
    out = [dict(m) for m in messages]
    for m in reversed(out):
        if m["role"] == "user":
            m["content"] = m["content"] + "\n\n" + text
            break
    return out


OVERLAYS: dict[str, Callable[[Messages], Messages]] = {
    "vanilla": lambda messages: messages,
    "cot": lambda messages: _append_to_last_user(messages, COT),
}


def apply(strategy: str, messages: Messages) -> Messages:
    if strategy not in OVERLAYS:
        raise ValueError(f"unknown strategy '{strategy}' (known: {', '.join(OVERLAYS)})")
    return OVERLAYS[strategy](messages)
