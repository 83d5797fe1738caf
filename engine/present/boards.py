"""Grid boards (TicTacToe, ConnectFour) drawn from a turn's public state as SVG made of lines and circles,
and as plain text: no emoji and no font is needed, so X and O look different in every browser (emoji
marks render as the same empty box on a machine without an emoji font)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

CELL = 48  # pixels per cell
PAD = 4


@dataclass(frozen=True)
class GridBoard:
    """The marks of a grid state, row-major ('X', 'O' or None), and where the last move landed."""

    rows: int
    cols: int
    cells: tuple[str | None, ...]
    discs: bool  # ConnectFour's falling discs (circles in columns) rather than TicTacToe's pen marks
    last: int | None = None

    @classmethod
    def from_state(cls, state: dict[str, Any], game: str) -> GridBoard:
        rows, cols = int(state["rows"]), int(state["cols"])
        cells = tuple(c or None for c in state["board"])
        if len(cells) != rows * cols:
            raise ValueError(f"a {rows}x{cols} board needs {rows * cols} cells, the state has {len(cells)}")
        discs = game == "connect_four"
        return cls(rows, cols, cells, discs, _last_cell(state, cells, cols, discs))


def _last_cell(state: dict[str, Any], cells: tuple[str | None, ...], cols: int, discs: bool) -> int | None:
    """The cell the last move filled. TicTacToe names it "(row,col)"; ConnectFour names a column (1-based),
    and its disc stopped at the highest filled cell of that column."""
    numbers = [int(n) for n in re.findall(r"\d+", str((state.get("last_move") or {}).get("move", "")))]
    if discs and len(numbers) == 1 and 1 <= numbers[0] <= cols:
        filled = [i for i in range(numbers[0] - 1, len(cells), cols) if cells[i]]
        return filled[0] if filled else None
    if not discs and len(numbers) == 2 and 1 <= numbers[1] <= cols:
        cell = (numbers[0] - 1) * cols + numbers[1] - 1
        return cell if 0 <= cell < len(cells) else None
    return None


def board_text(board: GridBoard) -> str:
    """Rows of `X O .` with column numbers on top: the board as a monospace text block."""
    header = " ".join(str(c + 1) for c in range(board.cols))
    lines = [" ".join(board.cells[r * board.cols + c] or "." for c in range(board.cols)) for r in range(board.rows)]
    return "\n".join([header, *lines])


def _mark(kind: str, x: float, y: float, discs: bool) -> str:
    r = CELL / 2 - 8
    if discs:  # X: a filled red disc; O: a yellow disc with a dark ring: told apart by colour and by outline
        fill, ring = ("#c62828", "#c62828") if kind == "X" else ("#fbc02d", "#5d4037")
        return f'<circle cx="{x}" cy="{y}" r="{r}" fill="{fill}" stroke="{ring}" stroke-width="3"/>'
    if kind == "X":
        return (f'<path d="M{x - r} {y - r}L{x + r} {y + r}M{x + r} {y - r}L{x - r} {y + r}" '
                'stroke="#c62828" stroke-width="5" stroke-linecap="round"/>')
    return f'<circle cx="{x}" cy="{y}" r="{r}" fill="none" stroke="#1565c0" stroke-width="5"/>'


def board_svg(board: GridBoard) -> str:
    """The board as a self-contained SVG: grid lines, X as a red cross and O as a blue ring (ConnectFour: red
    and yellow discs), the last move's cell outlined; its <title> is the text board for screen readers."""
    width, height = board.cols * CELL + 2 * PAD, board.rows * CELL + 2 * PAD
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" role="img"><title>{board_text(board)}</title>',
             f'<rect x="{PAD}" y="{PAD}" width="{width - 2 * PAD}" height="{height - 2 * PAD}" '
             f'fill="{"#1e3a5f" if board.discs else "#ffffff"}" stroke="#444" stroke-width="2"/>']
    for i, mark in enumerate(board.cells):
        r, c = divmod(i, board.cols)
        x, y = PAD + c * CELL + CELL / 2, PAD + r * CELL + CELL / 2
        if board.discs:
            parts.append(f'<circle cx="{x}" cy="{y}" r="{CELL / 2 - 6}" fill="#ffffff"/>')
        else:
            parts.append(f'<rect x="{x - CELL / 2}" y="{y - CELL / 2}" width="{CELL}" height="{CELL}" '
                         'fill="none" stroke="#999" stroke-width="1"/>')
        if mark in ("X", "O"):
            parts.append(_mark(mark, x, y, board.discs))
        if i == board.last:
            parts.append(f'<rect x="{x - CELL / 2 + 2}" y="{y - CELL / 2 + 2}" width="{CELL - 4}" '
                         f'height="{CELL - 4}" fill="none" stroke="#2e7d32" stroke-width="3" stroke-dasharray="6 3"/>')
    parts.append("</svg>")
    return "".join(parts)
