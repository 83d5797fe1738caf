"""Grid boards drawn as SVG shapes and as text: X and O told apart without any emoji or font."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET

import pytest

from engine.games import get_game
from engine.present.boards import GridBoard, board_svg, board_text

NS = "{http://www.w3.org/2000/svg}"


def played(game: str, moves: int, seed: int = 1) -> dict:
    instance = get_game(game)({})
    instance.reset(seed)
    rng = random.Random(seed)
    for _ in range(moves):
        seat = instance.to_act()[0]
        instance.step({seat: instance.observe(seat).space.sample(rng)})
    return instance.public_state()


@pytest.mark.parametrize("game", ["tictactoe", "connect_four"])
def test_every_mark_is_a_shape_and_the_last_move_is_outlined(game):
    state = played(game, 5)
    board = GridBoard.from_state(state, game)
    svg = board_svg(board)
    assert svg.isascii()  # no emoji, nothing a font must supply
    root = ET.fromstring(svg)
    shapes = [e for e in root.iter() if e.tag in (f"{NS}path", f"{NS}circle")]
    marks = [e for e in shapes if e.get("fill") not in ("#ffffff",)]  # ConnectFour's empty holes are white
    n_x, n_o = state["board"].count("X"), state["board"].count("O")
    assert n_x == 3 and n_o == 2
    if game == "tictactoe":  # X a red cross (path), O a blue ring (circle): different shapes
        assert len([e for e in marks if e.tag == f"{NS}path"]) == n_x
        assert len([e for e in marks if e.tag == f"{NS}circle"]) == n_o
    else:  # discs of two colours, O also ringed in a dark outline
        fills = [e.get("fill") for e in marks]
        assert fills.count("#c62828") == n_x and fills.count("#fbc02d") == n_o
    last = [e for e in root.iter(f"{NS}rect") if e.get("stroke-dasharray")]
    assert len(last) == 1 and state["board"][board.last] == state["last_move"]["mark"]


def test_the_text_board_has_letters_and_dots_under_column_numbers():
    state = played("tictactoe", 3)
    text = board_text(GridBoard.from_state(state, "tictactoe")).splitlines()
    assert text[0] == "1 2 3"
    assert " ".join(text[1:]).split() == [c or "." for c in state["board"]]


def test_a_board_of_the_wrong_size_is_refused():
    with pytest.raises(ValueError, match="3x3 board needs 9 cells"):
        GridBoard.from_state({"rows": 3, "cols": 3, "board": ["X"] * 8}, "tictactoe")
