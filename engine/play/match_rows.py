"""The rows a match leaves in the database, built in one place: the runner (a match played), the importers
(a published record replayed) and `rescore` (a stored match replayed from its turn log) all call these,
so a match scores the same whichever way it arrived.
"""

from __future__ import annotations

from typing import Any

from engine import store
from engine.agents.base import Decision
from engine.games.base import Game, SeatResult

TALLY = ("decisions", "invalid_answers", "fallbacks")  # per seat, counted from its decision turns


class TurnLog:
    """Numbers turns and keeps the moderator's messages in order with the decisions."""

    def __init__(self, match_id: str):
        self.match_id = match_id
        self.rows: list[dict[str, Any]] = []
        self.seen_messages = 0

    def next_turn(self) -> int:
        return len(self.rows)

    def decision(self, phase: str, round_: int, seat: int, d: Decision, state: str | None,
                 reward: float | None = None) -> None:
        self.rows.append({
            "match_id": self.match_id, "turn": len(self.rows), "round": round_, "phase": phase,
            "seat": seat, "prompt": store.to_json(d.prompt), "response": d.response,
            "action": store.to_json({"action": d.action} | ({"extra": d.extra} if d.extra else {})),
            "legal": d.legal, "fallback": d.fallback, "retries": d.retries, "error": d.error,
            "state": state, "reward": reward, "tokens_in": d.tokens_in, "tokens_out": d.tokens_out,
            "cost_usd": d.cost_usd, "latency_ms": d.latency_ms, "cached": d.cached, "call_errors": d.call_errors,
        })

    def messages(self, game: Game, state: str | None) -> None:
        for m in game.log[self.seen_messages:]:
            self.moderator(m.round, m.text, state, sorted(m.to) if m.to is not None else None)
        self.seen_messages = len(game.log)

    def moderator(self, round_: int, text: str, state: str | None, to: list[int] | None = None) -> None:
        """A line nobody decided: the moderator's, seen by `to` (None: everyone)."""
        self.rows.append({
            "match_id": self.match_id, "turn": len(self.rows), "round": round_, "phase": "moderator",
            "seat": None, "prompt": None, "response": text,
            "action": store.to_json({"to": to} if to is not None else None),
            "legal": None, "fallback": None, "retries": None, "error": None, "state": state,
            "reward": None, "tokens_in": None, "tokens_out": None, "cost_usd": None,
            "latency_ms": None, "cached": None, "call_errors": None,
        })


def tally(n_seats: int, turns: list[dict[str, Any]]) -> list[tuple[int, str, float]]:
    """Per seat: its decisions, its invalid answers (re-asks and fallbacks) and its fallbacks."""
    counts = {s: dict.fromkeys(TALLY, 0) for s in range(n_seats)}
    for t in turns:
        if t.get("seat") is None:
            continue
        mine = counts.setdefault(int(t["seat"]), dict.fromkeys(TALLY, 0))
        fallback = int(bool(t.get("fallback")))
        mine["decisions"] += 1
        mine["invalid_answers"] += int(t.get("retries") or 0) + fallback
        mine["fallbacks"] += fallback
    return [(s, name, float(v)) for s, c in counts.items() for name, v in c.items()]


def metric_rows(match_id: str, figures: list[tuple[int | None, str, float]]) -> list[dict[str, Any]]:
    return [{"match_id": match_id, "seat": s, "name": k, "value": float(v)} for s, k, v in figures]


def match_metrics(match_id: str, game: Game, n_seats: int, turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The `metrics` rows of a finished match: the game's own figures and each seat's tally of its turns."""
    return metric_rows(match_id, list(game.metrics()) + tally(n_seats, turns))


def seat_rows(match_id: str, game: Game, players: list[dict[str, Any]],
              results: dict[int, SeatResult]) -> list[dict[str, Any]]:
    """One row per seat: who sat there (`players[s]`: agent, label, prompt_version, strategy, temperature,
    max_tokens) and how it ended (`results`, empty for a match that failed)."""
    rows = []
    for s, who in enumerate(players):
        r = results.get(s)
        rows.append({"match_id": match_id, "seat": s, "player": game.player_name(s), "agent": who["agent"],
                     "role": r.role if r else None, "prompt_version": who.get("prompt_version"),
                     "strategy": who.get("strategy"), "temperature": who.get("temperature"),
                     "score": r.score if r else None, "won": r.won if r else None, "rank": r.rank if r else None,
                     "label": who.get("label") or who["agent"], "max_tokens": who.get("max_tokens")})
    return rows
