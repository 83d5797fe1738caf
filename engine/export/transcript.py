"""One match as a page of the site: its parameters and outcome, its seats, then every turn in order: who
acted, what it saw, what it answered (raw), how that was parsed, what went wrong (`engine.transcripts.badges`),
and the public state after it. Read through engine/transcripts.py, as the Transcripts page reads it.

A message a player was sent again unchanged (the rules, repeated in every prompt) is shown once and then named
by the turn that first showed it: the transcripts of 1,000 matches stay far below 50 MB."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from engine import transcripts
from engine.export.html import compact_json, esc, pre, table
from engine.numbers import missing, readable, usd

FACTS = ("legal", "fallback", "retries", "call_errors", "tokens_in", "tokens_out", "latency_ms", "cached")


def loads(raw: Any) -> Any:
    return json.loads(raw) if isinstance(raw, str) and raw else None


def text_of(value: Any) -> str:
    """A text cell as the match holds it: blank where it holds none (a missing string reads NaN)."""
    return "" if missing(value) else str(value)


def _saw(prompt: Any, seen: dict[str, int], turn: int) -> str:
    """What the player was sent: each message (role, text), a message sent before named by its first turn."""
    if prompt is None:
        return '<p class="note">nothing: a moderator message</p>'
    if not (isinstance(prompt, list) and all(isinstance(m, dict) and "content" in m for m in prompt)):
        return pre(compact_json(prompt))  # a bot's view of the game: the facts it decides on
    parts = []
    for message in prompt:
        content = message["content"] if isinstance(message["content"], str) else compact_json(message["content"])
        role = esc(message.get("role", ""))
        if content in seen:
            first = seen[content]
            parts.append(f'<p class="note">{role}: the same message as <a href="#t{first}">turn {first}</a></p>')
        else:
            seen[content] = turn
            parts.append(f'<p class="note">{role}</p>{pre(content)}')
    return "".join(parts)


def _badges(turn: pd.Series) -> str:
    return "".join(f'<span class="badge{" retry" if label.startswith("re-asked") else ""}">{esc(label)}</span>'
                   for label, _, _ in transcripts.badges(turn))


def _turn(turn: pd.Series, seen: dict[str, int]) -> str:
    number = int(turn["turn"])
    who = "moderator" if missing(turn["seat"]) else f"seat {int(turn['seat'])}: {turn['player']} ({turn['agent']})"
    head = f"Turn {number}, round {text_of(turn['round'])}, phase {text_of(turn['phase'])} - {who}"
    moderator = turn["phase"] == "moderator" or missing(turn["seat"])
    answer = text_of(turn["response"])
    if not missing(turn["response_chars"]) and turn["response_chars"] > transcripts.DISPLAY_CHARS:
        answer_note = (f'<p class="note">The first {transcripts.DISPLAY_CHARS:,} of {int(turn["response_chars"]):,} '
                       "characters.</p>")
    else:
        answer_note = ""
    said = f"<b>{'What the moderator said' if moderator else 'What it answered (raw)'}</b>{pre(answer)}{answer_note}"
    if not moderator:
        drawn = not missing(turn["fallback"]) and bool(turn["fallback"])
        said += ("<b>Random fallback (the answer could not be parsed): the engine played this legal move</b>"
                 if drawn else "<b>How it was parsed</b>") + pre(compact_json(loads(turn["action"]) or {}))
        facts = {k: turn[k] for k in FACTS} | {"cost_usd": usd(turn["cost_usd"])}
        said += table(readable(pd.DataFrame([facts])))
        if text_of(turn["error"]):
            said += pre(text_of(turn["error"]))
    state = loads(turn["state"])
    after = (f"<details><summary>Public state after this turn</summary>{pre(compact_json(state))}</details>"
             if state is not None else "")
    return (f'<section class="turn" id="t{number}"><h3>{esc(head)}</h3>{_badges(turn)}<div class="cols">'
            f"<div><b>What it saw</b>{_saw(loads(turn['prompt']), seen, number)}</div><div>{said}</div></div>"
            f"{after}</section>")


def match_body(db: str | Path, match_id: str) -> tuple[str, str]:
    """(the page's title, its body) for one match."""
    info = transcripts.match_info(db, match_id).iloc[0]
    facts = readable(pd.DataFrame([info.drop(["error", "params", "outcome"])]))
    body = table(facts)
    body += pre(f"params: {compact_json(loads(info['params']))}\noutcome: {compact_json(loads(info['outcome']))}")
    if text_of(info["error"]):
        body += '<p><span class="badge">match error</span></p>' + pre(text_of(info["error"]))
    seats = transcripts.match_seats(db, match_id)
    body += "<h2>Seats</h2>" + table(readable(seats, {"score": 2, "temperature": 2}))
    turns = transcripts.match_turns(db, match_id)
    body += f"<h2>Turns ({len(turns):,})</h2>"
    if turns.empty:
        body += '<p class="note">This match has no turns recorded.</p>'
    seen: dict[str, int] = {}
    body += "".join(_turn(turn, seen) for _, turn in turns.iterrows())
    return f"Match {match_id}: {info['game']}", body
