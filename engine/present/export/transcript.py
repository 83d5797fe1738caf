"""One match as a page of the site: its parameters and outcome, its seats, then every turn in order: who
acted, what it saw, what it answered (raw), how that was parsed, what went wrong (`engine.present.transcripts.badges`),
and the public state after it. Read through engine/present/transcripts.py, as the Transcripts page reads it.

Nothing is repeated where a match repeats itself: a message a model was sent again unchanged (the rules, in every
prompt) is named by the turn that first showed it, a bot's view shows the facts that changed since its last one,
an unchanged public state is said in a word: the transcripts of 1,000 matches stay under 50 MB
(bench/export.py)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from engine.present import transcripts
from engine.present.export.html import compact_json, esc, note, pre, table, text
from engine.present.numbers import cell, missing, readable, usd
from engine.present.transcripts import facts_text
from engine.score.precision import fixed_nested
from engine.wording import count

FACTS = ("legal", "fallback", "retries", "call_errors", "tokens_in", "tokens_out", "latency_ms", "cached")
ALWAYS = ("legal", "fallback", "latency_ms")  # shown whatever their value; the others only when not 0


@dataclass
class Memory:
    """What a match's page has shown so far: the messages (text -> the turn that showed it), each seat's last
    view, and the last public state."""

    messages: dict[str, int] = field(default_factory=dict)
    views: dict[Any, tuple[int, dict]] = field(default_factory=dict)
    state: str | None = None


def loads(raw: Any) -> Any:
    """A JSON column's value, its numbers at the arena's one precision (26.133333333333333 reads 26.1333)."""
    return fixed_nested(json.loads(raw)) if isinstance(raw, str) and raw else None


def text_of(value: Any) -> str:
    """A text cell as the match holds it: blank where it holds none (a missing string reads NaN)."""
    return "" if missing(value) else str(value)


def state_html(state: Any) -> str:
    """A public state as its facts in text (`transcripts.facts_text`), as the Transcripts page draws it."""
    return pre(facts_text(state) if isinstance(state, dict) else compact_json(state))


def _messages(prompt: list[dict], seen: dict[str, int], turn: int) -> str:
    """A model's prompt: each message (role, text); a message sent before is named by the turn that showed it."""
    parts = []
    for message in prompt:
        content = message["content"] if isinstance(message["content"], str) else compact_json(message["content"])
        role = text(message.get("role", ""))
        if content in seen:
            first = seen[content]
            parts.append(f'<p class="note">{role}: the same message as <a href="#t{first}">turn {first}</a></p>')
        else:
            seen[content] = turn
            parts.append(f'<p class="note">{role}</p>{pre(content)}')
    return "".join(parts)


def _view(prompt: Any, views: dict[Any, tuple[int, dict]], seat: Any, turn: int) -> str:
    """A bot's view of the game (the facts it decides on): the facts that changed since the seat's last view, and
    a link to that view for the others (a 10-player, 20-round game repeats its rules 200 times)."""
    facts = prompt["view"] if isinstance(prompt, dict) and set(prompt) == {"view"} else prompt
    if not isinstance(facts, dict):
        return pre(compact_json(prompt))
    last = views.get(seat)
    views[seat] = (turn, facts)
    if last is None:
        return pre(facts_text(facts))
    before_turn, before = last
    changed = {k: v for k, v in facts.items() if k not in before or before[k] != v}
    same = len(facts) - len(changed)
    unchanged = f'the other {count(same, "fact")} as at <a href="#t{before_turn}">turn {before_turn}</a>'
    return pre(facts_text(changed)) + f'<p class="note">{unchanged}</p>' if same else pre(facts_text(facts))


def _saw(prompt: Any, memory: Memory, seat: Any, turn: int) -> str:
    """What the player was sent."""
    if prompt is None:
        return '<p class="note">nothing recorded</p>'
    if isinstance(prompt, list) and all(isinstance(m, dict) and "content" in m for m in prompt):
        return _messages(prompt, memory.messages, turn)
    return _view(prompt, memory.views, seat, turn)


def _badges(turn: dict) -> str:
    return "".join(f'<span class="badge{" retry" if label.startswith("re-asked") else ""}">{esc(label)}</span>'
                   for label, _, _ in transcripts.badges(turn))


def _facts(turn: dict) -> str:
    """The decision's facts on one line ("legal yes · tokens_in 312 · ... · cost $0.0004"); a count that is 0 (no
    retry, no token: a bot) is left out, so a 400-turn match of bots stays light."""
    shown = [f"{k} {cell(turn[k], 2, k)}" for k in FACTS
             if not missing(turn[k]) and (k in ALWAYS or bool(turn[k]))]
    return " · ".join([*shown, f"cost {usd(turn['cost_usd'])}"])


def _turn(turn: dict, memory: Memory) -> str:
    """One turn as a section (its anchor `t<turn>`), with the public state after it where it changed."""
    number = int(turn["turn"])
    state = text_of(turn["state"])
    after = "" if not state or state == memory.state else (
        f"<details><summary>Public state after this turn</summary>{state_html(loads(state))}</details>")
    memory.state = state or memory.state
    where = f"Turn {number}, round {text_of(turn['round'])}"
    if turn["phase"] == "moderator" or missing(turn["seat"]):  # a message, on one line: a game sends hundreds
        return (f'<section class="turn" id="t{number}"><h3>{where}: the moderator said</h3>'
                f"{pre(text_of(turn['response']))}{after}</section>")
    who = f"seat {int(turn['seat'])}: {turn['player']} ({turn['agent']})"
    answered = "<b>What it answered (raw)</b>" + pre(text_of(turn["response"]))
    if not missing(turn["response_chars"]) and turn["response_chars"] > transcripts.DISPLAY_CHARS:
        answered += note(f"The first {transcripts.DISPLAY_CHARS:,} of {int(turn['response_chars']):,} characters.")
    drawn = not missing(turn["fallback"]) and bool(turn["fallback"])
    answered += ("<b>Random fallback (the answer could not be parsed): the engine played this legal move</b>"
             if drawn else "<b>How it was parsed</b>") + pre(compact_json(loads(turn["action"]) or {}))
    answered += note(_facts(turn))
    if text_of(turn["error"]):
        answered += pre(text_of(turn["error"]))
    saw = _saw(loads(turn["prompt"]), memory, turn["seat"], number)
    return (f'<section class="turn" id="t{number}"><h3>{esc(where)}, phase {text(turn["phase"])} - {text(who)}</h3>'
            f'{_badges(turn)}<div class="cols"><div><b>What it saw</b>{saw}</div><div>{answered}</div></div>{after}'
            "</section>")


def match_body(db: str | Path, match_id: str) -> tuple[str, str, str]:
    """(its game, the page's title, its body) for one match."""
    info = transcripts.match_info(db, match_id).iloc[0]
    facts = readable(pd.DataFrame([info.drop(["error", "params", "outcome"])]))
    body = table(facts)
    body += pre(f"params: {compact_json(loads(info['params']))}\noutcome: {compact_json(loads(info['outcome']))}")
    if text_of(info["error"]):
        body += '<p><span class="badge">match error</span></p>' + pre(text_of(info["error"]))
    seats = transcripts.match_seats(db, match_id)
    body += "<h2>Seats</h2>" + table(readable(seats, {"score": 2, "temperature": 2}))
    turns = transcripts.match_turns(db, match_id)
    body += f"<h2>Turns ({len(turns):,})</h2>" + note("A turn shows the public state after it where it changed.")
    if turns.empty:
        body += '<p class="note">This match has no turns recorded.</p>'
    memory = Memory()
    body += "".join(_turn(turn, memory) for turn in turns.to_dict("records"))
    return str(info["game"]), f"Match {match_id}: {info['game']}", body
