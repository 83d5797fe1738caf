"""ConnectFour (LLMArena paper §2.2, App. A.2): a 6x7 grid, X first; a marker drops to the
lowest empty cell of the chosen column (1-7, left to right); four in a row, column or diagonal
wins. An off-board column is unparseable; a full one is an illegal move that loses
(engine.games.grid). Each move's reward V(s') - V(s) (docs/GAMES.md) is
stored with the public state, so the paper's strategic-planning analysis is a query."""

from __future__ import annotations

import re
from typing import Any

from engine.games import register
from engine.games.base import LLMARENA_SETTINGS, Observation, ParseError
from engine.games.extensions import policy
from engine.games.grid import Board, GridGame, lines, other, stated_int, winner_on

ROWS, COLS, CONNECT = 6, 7, 4
_AUTHORS_COLUMN = re.compile(r"[XO]\s*:\s*([1-7])")
WEIGHTS = {4: 10, 3: 5, 2: 2}
WIN = 10_000  # a won position in the search, beyond any board value
MAX_PLIES = 5  # bot:minimax's deepest search within a move's budget of a second: each ply more multiplies it


def counts(board: Board, mark: str) -> dict[int, int]:
    """Windows of four cells holding exactly k of `mark`'s pieces and no opponent piece, for k = 2, 3, 4."""
    found = {k: 0 for k in WEIGHTS}
    for line in lines(ROWS, COLS, CONNECT):
        cells = [board[i] for i in line]
        mine = cells.count(mark)
        if mine in found and cells.count(None) == CONNECT - mine:
            found[mine] += 1
    return found


def board_value(board: Board, mark: str) -> int:
    """V(s) = 10(my4 - opp4) + 5(my3 - opp3) + 2(my2 - opp2), from `mark`'s side."""
    mine, theirs = counts(board, mark), counts(board, other(mark))
    return sum(w * (mine[k] - theirs[k]) for k, w in WEIGHTS.items())


def drop_cell(board: Board, column: int) -> int | None:
    """The cell a marker dropped in `column` (0-based) lands on, or None if the column is full."""
    for r in range(ROWS - 1, -1, -1):
        if board[r * COLS + column] is None:
            return r * COLS + column
    return None


@register
class ConnectFour(GridGame):
    name = "connect_four"
    title = "ConnectFour"
    paper = "LLMArena"
    answer_settings = LLMARENA_SETTINGS
    rows, cols, connect = ROWS, COLS, CONNECT
    hint_template = "You can only choose one of these columns: [{moves}]."
    answer_key = "column"

    def legal_moves(self) -> list[int]:
        return [c for c in range(COLS) if self.board[c] is None]

    def move_label(self, move: int) -> str:
        return str(move + 1)

    def landing_cell(self, move: int) -> int:
        cell = drop_cell(tuple(self.board), move)
        assert cell is not None, "a full column is not a legal move"
        return cell

    def authors_move(self, text: str) -> int:
        """connect_four_v3/opponent.py `_get_chat_action`: the first "X: n" or "O: n" (either mark, upper case, a
        digit from 1 to 7: "X: 12" is column 1); an answer without one is asked again."""
        found = _AUTHORS_COLUMN.search(text)
        if found is None:
            raise ParseError('no "X: <column>" found; answer like "X: 4"')
        return int(found.group(1)) - 1

    def read_move(self, text: str) -> int:
        column = stated_int(text, '"X: 4" with a column from 1 to 7')
        if not 1 <= column <= COLS:
            raise ParseError(f"column {column} is off the board; columns go from 1 to 7")
        return column - 1

    def why_illegal(self, move: int) -> str:
        return f"column {move + 1} is full; choose a column with an empty cell"

    def move_notes(self, mark: str, before: Board) -> dict[str, Any]:
        return {"reward": board_value(tuple(self.board), mark) - board_value(before, mark)}

    def step_rewards(self) -> dict[int, float]:
        """The mover's reward V(s') - V(s) (docs/GAMES.md), as LLMArena's Figure 2 reads it (none for an illegal move,
        which ends the game unplayed)."""
        move = self.last_move or {}
        return {move["seat"]: float(move["reward"])} if "reward" in move else {}


def _negamax(board: Board, mark: str, depth: int, alpha: float, beta: float) -> float:
    """Search value for the side to move: the board value at the horizon, +-WIN (sooner is better) at a win."""
    legal = [c for c in (3, 2, 4, 1, 5, 0, 6) if board[c] is None]
    if depth == 0 or not legal:
        return board_value(board, mark)
    best = -float("inf")
    for column in legal:
        cell = drop_cell(board, column)
        child = board[:cell] + (mark,) + board[cell + 1:]
        if winner_on(child, ROWS, COLS, CONNECT) == mark:
            value = WIN + depth
        else:
            value = -_negamax(child, other(mark), depth - 1, -beta, -alpha)
        best = max(best, value)
        alpha = max(alpha, value)
        if alpha >= beta:
            break
    return best


def search_plies(arg: str | None) -> int:
    """`bot:minimax`'s search depth: 2 by default, at most MAX_PLIES (each ply multiplies a move's time by up to 7)."""
    if arg is None:
        return 2
    if not (arg.isascii() and arg.isdigit()) or not 1 <= int(arg) <= MAX_PLIES:
        raise ValueError(f"bot:minimax:<plies> takes a search depth from 1 to {MAX_PLIES}, got {arg!r}")
    return int(arg)


@policy("connect_four", "minimax", argument=search_plies)
def _minimax(obs: Observation, rng, arg: str | None) -> int:
    """Depth-limited minimax on V (`bot:minimax:<plies>`, 2 by default; 1 is the greedy one-ply player)."""
    depth = search_plies(arg)
    board, mark = tuple(obs.view["board"]), obs.view["mark"]
    scored = {}
    for column in obs.space.options:
        cell = drop_cell(board, column)
        child = board[:cell] + (mark,) + board[cell + 1:]
        won = winner_on(child, ROWS, COLS, CONNECT) == mark
        scored[column] = WIN + depth if won else -_negamax(child, other(mark), depth - 1, -float("inf"), float("inf"))
    best = max(scored.values())
    tied = [c for c, v in scored.items() if v == best]
    central = min(abs(c - COLS // 2) for c in tied)  # V is flat early on: prefer the centre, then chance
    return rng.choice([c for c in tied if abs(c - COLS // 2) == central])
