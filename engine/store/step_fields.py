"""The fields of a game's step records (`state["last"]`, one per round, shot or vote) that name a seat (counted from
0): who acted, not how much, so no figure averages them and the pages show them as the players' names. A module
that imports nothing of the engine, so that the store's per-round summary (engine/store/summaries.py) leaves them out
as γ-Bench's curves do, without importing the games it sits beneath."""

from __future__ import annotations

SEAT_FIELDS = frozenset({"winners", "winner", "shooter", "proposer", "eliminated_seat"})
SEAT_FIELDS_OF = {"battle_royale": frozenset({"target"})}


def seat_fields(game: str) -> frozenset[str]:
    """The fields of `game`'s step records that name a seat."""
    return SEAT_FIELDS | SEAT_FIELDS_OF.get(game, frozenset())
