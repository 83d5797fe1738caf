"""The grid games' parser reads a move only where the answer states one: a corpus of answers as a small model
(SmolLM2) writes them, which must and must not parse. Reading the last position met in the text gave such a model
wins from cells it only described (issue 29)."""

from __future__ import annotations

import pytest

from engine.games.base import ParseError
from tests.game_play import new_game

TICTACTOE_MOVES = {  # answer -> the (row, column) it states as its move
    "X: (1, 3)": (1, 3),
    "X: (2,2)": (2, 2),
    "(2, 2)": (2, 2),
    "O (3,1).": (3, 1),
    "I place my mark at (1, 2).": (1, 2),
    "I will put my X in (3, 3) to block the diagonal.": (3, 3),
    "The center is free. I choose (2,2)": (2, 2),
    "Let me think. The top row has X at (1,1) and (1,2). My move: (1, 3)": (1, 3),
    "I think the best is the center. X: (2,2)": (2, 2),
    '{"position": "(1,1)"}': (1, 1),
    "Position: (2, 1)": (2, 1),
    "I'll go with (3,2).": (3, 2),
    "Answer: X: (1, 3)\nX: (1, 3)": (1, 3),  # the same move twice is one move
}
TICTACTOE_NOT_MOVES = [
    "(1,2) is the top left corner of the empty cell (1,1), so the board is symmetric.",
    "(1,2) is the top left corner of the empty cell",
    "The empty cells are (1,1), (2,3) and (3,2).",
    "O has marks at (2,2) and (3,3), which threatens the diagonal.",
    "I'll place X at (1,1). Then O may place at (2,2).",  # two moves: which one?
    "X: (1,1) or X: (3,3) would both work.",
    "Row 2, column 3 looks good but I am not sure.",
    "I don't know where to play.",
    "The board is\n| X | _ | _ |\n| _ | O | _ |\n| _ | _ | _ |",
]
CONNECT_FOUR_MOVES = {  # answer -> the column (1-7) it states as its move
    "X: 4": 4,
    "4": 4,
    "I pick column 5... no, X: 3.": 3,
    "Column 4 is full, so I choose column 5.": 5,
    "I will drop my piece in column 3.": 3,
    '{"column": 7}': 7,
    "O: 2\n\nThis blocks the row.": 2,
}
CONNECT_FOUR_NOT_MOVES = [
    "There are 7 columns and 6 rows.",
    "Column 3 has two of my pieces and column 4 has one.",
    "3 in a row is close to 4 in a row.",
    "the middle one",
    "Maybe column 2, maybe column 6.",
]


@pytest.mark.parametrize("answer, move", TICTACTOE_MOVES.items())
def test_tictactoe_reads_the_one_position_an_answer_states(answer, move):
    row, col = move
    assert new_game("tictactoe", reading="lenient").parse(0, answer) == (row - 1) * 3 + col - 1


@pytest.mark.parametrize("answer", TICTACTOE_NOT_MOVES)
def test_tictactoe_refuses_a_position_met_in_prose_or_several_moves(answer):
    with pytest.raises(ParseError):
        new_game("tictactoe", reading="lenient").parse(0, answer)


@pytest.mark.parametrize("answer, column", CONNECT_FOUR_MOVES.items())
def test_connect_four_reads_the_one_column_an_answer_states(answer, column):
    assert new_game("connect_four", reading="lenient").parse(0, answer) == column - 1


@pytest.mark.parametrize("answer", CONNECT_FOUR_NOT_MOVES)
def test_connect_four_refuses_a_number_met_in_prose_or_several_moves(answer):
    with pytest.raises(ParseError):
        new_game("connect_four", reading="lenient").parse(0, answer)


def test_the_reason_says_what_to_write():
    with pytest.raises(ParseError, match="several moves"):
        new_game("tictactoe", reading="lenient").parse(0, "X: (1,1) or X: (3,3)")
    with pytest.raises(ParseError, match='no position stated as the move .* answer like "X: \\(1,3\\)"'):
        new_game("tictactoe", reading="lenient").parse(0, "(1,2) is the top left corner")
