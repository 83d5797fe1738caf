"""TicTacToe (LLMArena, seed 001 App. A.1): X moves first; positions are (row, column), 1-based.
An occupied or off-board position is an illegal move: the parser rejects it, the agent is asked
again, and the turn log counts it. `hint` toggles the list of legal positions in the prompt."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from engine.agents.bots import policy
from engine.games import register
from engine.games.base import Choice, Game, Observation, Param, ParseError, SeatResult
from engine.games.parsing import json_field

MARKS = ("X", "O")
LINES = [[(r, c) for c in range(3)] for r in range(3)] + [[(r, c) for r in range(3)] for c in range(3)] + [
    [(i, i) for i in range(3)], [(i, 2 - i) for i in range(3)]]
_POSITION = re.compile(r"(?<!\d)(-?\d{1,3})\s*,\s*(-?\d{1,3})(?!\d)")  # bounded: linear on huge answers


def winner_of(board: tuple[str | None, ...]) -> str | None:
    for line in LINES:
        marks = {board[r * 3 + c] for r, c in line}
        if len(marks) == 1 and None not in marks:
            return marks.pop()
    return None


def board_text(board: list[str | None] | tuple[str | None, ...]) -> str:
    rows = [" | ".join(board[r * 3 + c] or "." for c in range(3)) for r in range(3)]
    return "\n---------\n".join(rows)


def label(cell: int) -> str:
    return f"({cell // 3 + 1},{cell % 3 + 1})"


@register
class TicTacToe(Game):
    name = "tictactoe"
    title = "TicTacToe"
    paper = "LLMArena"
    params = {"hint": Param(True, "list the legal positions in the prompt", kind=bool)}
    presets = {"default": {}, "no_hint": {"hint": False}}

    @classmethod
    def n_seats(cls, params: dict[str, Any]) -> int:
        return 2

    def setup(self) -> None:
        self.board: list[str | None] = [None] * 9
        self.to_move = 0
        self.moves: list[int] = []
        self.round = 1

    def legal_cells(self) -> list[int]:
        return [i for i, m in enumerate(self.board) if m is None]

    def winner(self) -> str | None:
        return winner_of(tuple(self.board))

    def to_act(self) -> list[int]:
        return [] if self.done() else [self.to_move]

    def observe(self, seat: int) -> Observation:
        legal = self.legal_cells()
        view = {
            "mark": MARKS[seat], "board": list(self.board), "board_text": board_text(self.board),
            "available_line": ("You can only place your mark on: [" + ", ".join(label(c) for c in legal) + "]."
                               if self.p["hint"] else ""),
        }
        space = Choice(tuple(legal), tuple(label(c) for c in legal), key="position")
        return self.make_observation(seat, "move", view, space)

    def parse(self, seat: int, text: str) -> int:
        if not isinstance(text, str) or not text.strip():
            raise ParseError("the answer was empty")
        value = json_field(text, "position")
        found = _POSITION.findall(str(value) if value is not None else text)
        if not found:
            raise ParseError('no position found; answer like "X: (1,3)" with row and column from 1 to 3')
        r, c = (int(x) for x in found[-1])
        if not (1 <= r <= 3 and 1 <= c <= 3):
            raise ParseError(f"({r},{c}) is off the board; rows and columns go from 1 to 3")
        cell = (r - 1) * 3 + (c - 1)
        if self.board[cell] is not None:
            raise ParseError(f"({r},{c}) is already taken; choose an empty position")
        return cell

    def step(self, actions: dict[int, Any]) -> None:
        seat = self.to_move
        cell = int(actions[seat])
        if self.board[cell] is not None:
            raise ValueError(f"illegal move {label(cell)} reached step")
        self.board[cell] = MARKS[seat]
        self.moves.append(cell)
        self.announce(f"{self.player_name(seat)} ({MARKS[seat]}) played {label(cell)}.\n{board_text(self.board)}")
        self.to_move = 1 - seat
        self.round += 1

    def done(self) -> bool:
        return self.winner() is not None or not self.legal_cells()

    def public_state(self) -> dict[str, Any]:
        return {"board": list(self.board), "moves": [label(c) for c in self.moves],
                "to_move": MARKS[self.to_move], "winner": self.winner()}

    def result(self) -> dict[int, SeatResult]:
        w = self.winner()
        if w is None:
            return {s: SeatResult(0.5, False, 1, MARKS[s]) for s in (0, 1)}
        return {s: SeatResult(float(MARKS[s] == w), MARKS[s] == w, 1 if MARKS[s] == w else 2, MARKS[s]) for s in (0, 1)}

    def outcome(self) -> dict[str, Any]:
        return {"winner": self.winner(), "moves": len(self.moves)}


@cache
def _value(board: tuple[str | None, ...], mark: str) -> int:
    """Minimax value for the side to move (`mark`): +1 win, 0 draw, -1 loss."""
    w = winner_of(board)
    if w is not None:
        return 1 if w == mark else -1
    empty = [i for i, m in enumerate(board) if m is None]
    if not empty:
        return 0
    other = "O" if mark == "X" else "X"
    return max(-_value(board[:i] + (mark,) + board[i + 1:], other) for i in empty)


@policy("tictactoe", "equilibrium")
def _minimax(obs: Observation, rng, arg) -> int:
    """Perfect play; among equally good moves, a seeded random one."""
    board, mark = tuple(obs.view["board"]), obs.view["mark"]
    other = "O" if mark == "X" else "X"
    scored = {i: -_value(board[:i] + (mark,) + board[i + 1:], other) for i in obs.space.options}
    best = max(scored.values())
    return rng.choice([i for i, v in scored.items() if v == best])
