"""TicTacToe (LLMArena paper App. A.1): X moves first; positions are (row, column), 1-based.
An off-board position is unparseable (asked again); an occupied one is an illegal move that loses the
game (LLMArena's rule, see engine.games.grid). `hint` toggles the list of legal positions in the prompt."""

from __future__ import annotations

import re
from functools import cache

from engine.games import register
from engine.games.base import LLMARENA_SETTINGS, Observation, ParseError
from engine.games.extensions import policy
from engine.games.grid import MARKS, Board, GridGame, grid_text, other, stated_pair, winner_on

_AUTHORS_PAIR = re.compile(r"\(\s*(\d)\s*,\s*(\d)\s*\)")

__all__ = ["MARKS", "TicTacToe", "board_text", "label", "winner_of"]


def winner_of(board: Board) -> str | None:
    return winner_on(board, 3, 3, 3)


def board_text(board: list[str | None] | Board) -> str:
    return grid_text(board, 3, 3)


def label(cell: int) -> str:
    return f"({cell // 3 + 1},{cell % 3 + 1})"


@register
class TicTacToe(GridGame):
    name = "tictactoe"
    title = "TicTacToe"
    paper = "LLMArena"
    answer_settings = LLMARENA_SETTINGS
    rows = cols = connect = 3
    hint_template = "You can only place your mark on: [{moves}]."
    answer_key = "position"

    def legal_moves(self) -> list[int]:
        return [i for i, m in enumerate(self.board) if m is None]

    def move_label(self, move: int) -> str:
        return label(move)

    def landing_cell(self, move: int) -> int:
        return move

    def read_move(self, text: str) -> int:
        r, c = stated_pair(text, '"X: (1,3)" with row and column from 1 to 3')
        if not (1 <= r <= 3 and 1 <= c <= 3):
            raise ParseError(f"({r},{c}) is off the board; rows and columns go from 1 to 3")
        return (r - 1) * 3 + (c - 1)

    def authors_move(self, text: str) -> int:
        """tictactoe_v3/opponent.py `_get_chat_action`: the first "(r, c)" of single digits anywhere in the answer,
        looked up in the nine positions; any other pair, or none, is asked again."""
        found = _AUTHORS_PAIR.search(text)
        if found is None:
            raise ParseError('no position "(row, column)" found; answer like "X: (1, 3)"')
        r, c = found.groups()
        if r not in "123" or c not in "123":  # their nine keys "(1,1)" .. "(3,3)"
            raise ParseError(f"({r},{c}) is off the board; rows and columns go from 1 to 3")
        return (int(r) - 1) * 3 + (int(c) - 1)

    def why_illegal(self, move: int) -> str:
        return f"{label(move)} is already taken; choose an empty position"


@cache
def _value(board: Board, mark: str) -> int:
    """Minimax value for the side to move (`mark`): +1 win, 0 draw, -1 loss."""
    w = winner_of(board)
    if w is not None:
        return 1 if w == mark else -1
    empty = [i for i, m in enumerate(board) if m is None]
    if not empty:
        return 0
    return max(-_value(board[:i] + (mark,) + board[i + 1:], other(mark)) for i in empty)


@policy("tictactoe", "equilibrium")
def _minimax(obs: Observation, rng, arg) -> int:
    """Perfect play; among equally good moves, a seeded random one."""
    board, mark = tuple(obs.view["board"]), obs.view["mark"]
    scored = {i: -_value(board[:i] + (mark,) + board[i + 1:], other(mark)) for i in obs.space.options}
    best = max(scored.values())
    return rng.choice([i for i, v in scored.items() if v == best])
