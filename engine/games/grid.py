"""Two-player mark-placing games on a grid (LLMArena's TicTacToe and ConnectFour): X moves first,
k marks in a row, column or diagonal win, a full grid is a draw. The board is drawn as text and the
`hint` parameter puts the legal moves in the prompt. An answer naming no move on the board is
unparseable (asked again, then a random legal move: the agent's 3 tries). A parsed move on a taken
cell or a full column is illegal: it ends the game as a loss for its player, as LLMArena's code plays
it (PettingZoo's TerminateIllegalWrapper). Subclasses say how a move is written and where it lands.

As LLMArena's code plays them (examples/selfplay/opponent_templates/tictactoe_v3/opponent.py,
connect_four_v3/opponent.py, their info.json): 3 tries, each the same question again (the model is not
told what was wrong), then a random legal move (`retry: authors`; `retry: feedback` tells the model its
error); each prompt is the board alone, without the match so far (`need_history: false`; `history: true`
adds it). An answer is read as their code reads it (`reading: authors`, the default; each game's `authors_move`):
TicTacToe the first "(r, c)" of single digits anywhere in the answer, ConnectFour the first "X: n" (either mark,
a digit 1-7); `reading: lenient` is the arena's reading of a stated move (below)."""

from __future__ import annotations

import re
from abc import abstractmethod
from functools import cache
from typing import Any, ClassVar

from engine.games.base import (
    FORFEIT,
    RANDOM,
    Choice,
    Game,
    Observation,
    Param,
    RetryPolicy,
    SeatResult,
    history_param,
    reading_param,
    retry_param,
)
from engine.games.legal_actions import hint_line
from engine.games.parsing import IllegalAction, ParseError, json_field, require_text

MARKS = ("X", "O")
Board = tuple[str | None, ...]


@cache
def lines(rows: int, cols: int, k: int) -> tuple[tuple[int, ...], ...]:
    """Every window of k cells in a row, column or diagonal, as flat indices (row-major)."""
    found = []
    for r in range(rows):
        for c in range(cols):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                end_r, end_c = r + dr * (k - 1), c + dc * (k - 1)
                if 0 <= end_r < rows and 0 <= end_c < cols:
                    found.append(tuple((r + dr * i) * cols + c + dc * i for i in range(k)))
    return tuple(found)


def winner_on(board: Board, rows: int, cols: int, k: int) -> str | None:
    for line in lines(rows, cols, k):
        first = board[line[0]]
        if first is not None and all(board[i] == first for i in line):
            return first
    return None


def grid_text(board: Board | list[str | None], rows: int, cols: int) -> str:
    """Rows of `X | . | O`, separated by dashes; "." is an empty cell."""
    texts = [" | ".join(board[r * cols + c] or "." for c in range(cols)) for r in range(rows)]
    return ("\n" + "-" * len(texts[0]) + "\n").join(texts)


def other(mark: str) -> str:
    return MARKS[1 - MARKS.index(mark)]


class GridGame(Game):
    """The shared mechanics; a move is an int the subclass defines (a cell, a column)."""

    score_meaning = "1 a win, 0.5 a draw, 0 a loss"
    rows: ClassVar[int]
    cols: ClassVar[int]
    connect: ClassVar[int]
    hint_template: ClassVar[str]  # with {moves}
    answer_key: ClassVar[str]  # the JSON key a structured answer may use
    retry_policies = {
        "authors": RetryPolicy("authors", tries=3, feedback=False, exhausted=RANDOM, illegal=FORFEIT),
        "feedback": RetryPolicy("feedback", tries=3, feedback=True, exhausted=RANDOM, illegal=FORFEIT),
    }
    params = {"hint": Param(True, "list the legal moves in the prompt", kind=bool),
              "retry": retry_param(retry_policies), "history": history_param(), "reading": reading_param()}
    presets = {"default": {}, "no_hint": {"hint": False}}
    rules_version = 3  # 2: LLMArena's re-asks and prompts without the match so far; 3: their reading of a move

    @classmethod
    def n_seats(cls, params: dict[str, Any]) -> int:
        return 2

    # ---- what subclasses define
    @abstractmethod
    def legal_moves(self) -> list[int]: ...

    @abstractmethod
    def move_label(self, move: int) -> str: ...

    @abstractmethod
    def landing_cell(self, move: int) -> int: ...

    @abstractmethod
    def read_move(self, text: str) -> int:
        """The move an answer names (ParseError if none or off the board; legality is checked after)."""

    @abstractmethod
    def authors_move(self, text: str) -> int:
        """The move LLMArena's opponent.py reads in the answer (ParseError where their code raises)."""

    @abstractmethod
    def why_illegal(self, move: int) -> str: ...

    def move_notes(self, mark: str, before: Board) -> dict[str, Any]:
        """Extra public facts about the move just made (stored with the state)."""
        return {}

    # ---- the protocol
    def setup(self) -> None:
        self.board: list[str | None] = [None] * (self.rows * self.cols)
        self.to_move = 0
        self.moves: list[int] = []
        self.last_move: dict[str, Any] | None = None
        self.forfeited_by: int | None = None  # the seat whose illegal move ended the game
        self.round = 1

    def winner(self) -> str | None:
        if self.forfeited_by is not None:
            return MARKS[1 - self.forfeited_by]
        return winner_on(tuple(self.board), self.rows, self.cols, self.connect)

    def to_act(self) -> list[int]:
        return [] if self.done() else [self.to_move]

    def observe(self, seat: int) -> Observation:
        legal = self.legal_moves()
        labels = tuple(self.move_label(m) for m in legal)
        view = {
            "mark": MARKS[seat], "board": list(self.board), "board_text": grid_text(self.board, self.rows, self.cols),
            "available_line": hint_line(self.p["hint"], self.hint_template, labels),
        }
        space = Choice(tuple(legal), labels, key=self.answer_key, form=f"{MARKS[seat]}: {{}}")
        return self.make_observation(seat, "move", view, space)

    def parse(self, seat: int, text: str) -> int:
        """The move the answer states; a move on a taken cell or a full column is an IllegalAction, which loses."""
        require_text(text)
        if self.p["reading"] == "authors":
            move = self.authors_move(text)
        else:
            value = json_field(text, self.answer_key)
            move = self.read_move(str(value) if value is not None else text)
        if move not in self.legal_moves():
            raise IllegalAction(f"{self.why_illegal(move)} (an illegal move loses the game)", move)
        return move

    def step(self, actions: dict[int, Any]) -> None:
        seat = self.to_move
        move = int(actions[seat])
        if move not in self.legal_moves():
            self.forfeit(seat, f"{self.why_illegal(move)} (an illegal move loses the game)", move)
            return
        before = tuple(self.board)
        self.board[self.landing_cell(move)] = MARKS[seat]
        self.moves.append(move)
        self.last_move = {"seat": seat, "mark": MARKS[seat], "move": self.move_label(move)} | self.move_notes(
            MARKS[seat], before)
        self.announce(f"{self.player_name(seat)} ({MARKS[seat]}) played {self.move_label(move)}.\n"
                      f"{grid_text(self.board, self.rows, self.cols)}")
        self.to_move = 1 - seat
        self.round += 1

    def forfeit(self, seat: int, reason: str, action: Any = None) -> None:
        self.forfeited_by = seat
        played = ""
        if action is not None:
            self.last_move = {"seat": seat, "mark": MARKS[seat], "move": self.move_label(action), "illegal": True}
            played = f" played {self.move_label(action)}:"
        self.announce(f"{self.player_name(seat)} ({MARKS[seat]}){played} {reason}. {self.player_name(seat)} loses.")

    def done(self) -> bool:
        return self.winner() is not None or not self.legal_moves()

    def outcome(self) -> dict[str, Any]:
        return {"winner": self.winner(), "moves": len(self.moves), "illegal_move_by": self.forfeited_by}

    def public_state(self) -> dict[str, Any]:
        return {"board": list(self.board), "rows": self.rows, "cols": self.cols,
                "moves": [self.move_label(m) for m in self.moves], "to_move": MARKS[self.to_move],
                "winner": self.winner(), "last_move": self.last_move}

    def result(self) -> dict[int, SeatResult]:
        w = self.winner()
        if w is None:
            return {s: SeatResult(0.5, False, 1, MARKS[s]) for s in (0, 1)}
        return {s: SeatResult(float(MARKS[s] == w), MARKS[s] == w, 1 if MARKS[s] == w else 2, MARKS[s])
                for s in (0, 1)}


# Reading the move an answer states. A position met in prose is not a move: "(1,2) is the top left corner of the
# empty cell" describes a cell, and reading the last number of such an answer earned a small model wins it never
# played (issue 29). A move is stated (1) in the asked format, a mark or a label and a colon ("X: (1,3)",
# "Position: 4"), else (2) as the whole answer ("(2,2)", "O 4."), else (3) after a verb of moving ("I place my
# mark at (1, 2)"). The first of these that states any position decides; one distinct position there is the
# move, several are unparseable (asked again). Patterns are bounded: linear on huge answers.
_PAIR = r"\(?\s*(-?\d{1,3})\s*,\s*(-?\d{1,3})\s*\)?"
_SINGLE = r"(-?\d{1,3})(?!\s*,\s*-?\d)(?!\d)(?!\.\d)"
_LABELLED = r"(?:(?<![A-Za-z])[XO]|\b(?:position|column|move|answer|action|final answer))\s*[:=]\s*"
_MARK = r"(?:[XO]\s*[:\-]?\s*)?"
_VERBED = (r"\b(?:place|placing|put|putting|mark|play|playing|move|choose|choosing|select|pick|take|go|drop|dropping)"
           r"\b[^\n.;!?()\d]{0,40}?")


def _readers(position: str) -> tuple[re.Pattern[str], ...]:
    return (re.compile(rf"(?i){_LABELLED}(?:column\s*)?{position}"),
            re.compile(rf"(?i)^[\s\"'`*]*{_MARK}(?:column\s*)?{position}[\s\"'`*.!]*$"),
            re.compile(rf"(?i){_VERBED}(?:column\s*)?{position}"))


_PAIR_READERS, _SINGLE_READERS = _readers(_PAIR), _readers(_SINGLE)


def _stated(text: str, readers: tuple[re.Pattern[str], ...], what: str, example: str) -> tuple[int, ...]:
    for reader in readers:
        moves = {tuple(int(n) for n in m.groups()) for m in reader.finditer(text)}
        if len(moves) == 1:
            return moves.pop()
        if moves:
            listed = ", ".join(str(m if len(m) > 1 else m[0]) for m in sorted(moves))
            raise ParseError(f"the answer states several moves ({listed}); state one, like {example}")
    raise ParseError(f"no {what} stated as the move (a {what} met in the text is not one); answer like {example}")


def stated_pair(text: str, example: str) -> tuple[int, int]:
    """The one (row, column) the answer states as its move (see above), else ParseError."""
    row, col = _stated(text, _PAIR_READERS, "position", example)
    return row, col


def stated_int(text: str, example: str) -> int:
    """The one number (a column) the answer states as its move (see above), else ParseError."""
    return _stated(text, _SINGLE_READERS, "column", example)[0]
