"""ConnectFour's rules, the board value V (docs/GAMES.md), the stored per-move reward, and the minimax bot."""

from __future__ import annotations

import random
from functools import partial

import pytest

from engine.agents.bots import find_policy
from engine.games.base import IllegalAction, ParseError
from engine.games.connect_four import board_value, counts
from tests.game_play import new_game

new = partial(new_game, "connect_four")


def play(game, columns):
    for column in columns:
        (seat,) = game.to_act()
        game.step({seat: game.parse(seat, f"{'XO'[seat]}: {column}")})


def test_markers_fall_to_the_lowest_empty_cell_and_four_in_a_column_wins():
    game = new()
    play(game, [4, 4])
    assert game.board[5 * 7 + 3] == "X" and game.board[4 * 7 + 3] == "O"
    play(game, [1, 2, 1, 2, 1, 2])
    assert not game.done()
    play(game, [1])
    assert game.done() and game.public_state()["winner"] == "X"
    assert game.result()[0].won and game.result()[1].score == 0.0


def test_a_diagonal_wins():
    game = new()
    play(game, [1, 2, 2, 3, 3, 4, 3, 4, 4, 7, 4])
    assert game.winner() == "X"


def test_off_board_columns_and_answers_without_one_are_unparseable_with_reasons():
    game = new(reading="lenient")
    play(game, [5] * 6)
    with pytest.raises(IllegalAction, match="column 5 is full"):  # a full column: the illegal move, which loses
        game.parse(0, "X: 5")
    with pytest.raises(ParseError, match="off the board"):
        game.parse(0, "X: 8")
    with pytest.raises(ParseError, match="no column"):
        game.parse(0, "the middle one")
    assert game.parse(0, "I pick column 5... no, X: 3.") == 2
    assert game.parse(0, '{"column": 7}') == 6
    assert 4 not in game.observe(0).space.options


def test_hint_toggles_the_legal_columns_in_the_prompt_view():
    game = new()
    play(game, [2] * 6)
    assert game.observe(0).view["available_line"] == "You can only choose one of these columns: [1, 3, 4, 5, 6, 7]."
    assert new(hint=False).observe(0).view["available_line"] == ""


def test_board_value_counts_open_windows_by_hand():
    board = [None] * 42
    board[5 * 7 + 0] = board[5 * 7 + 1] = "X"  # two X side by side on the bottom row
    # only the bottom-row window of columns 1-4 holds both; windows with a single X do not count
    assert counts(tuple(board), "X") == {4: 0, 3: 0, 2: 1}
    assert board_value(tuple(board), "X") == 2 and board_value(tuple(board), "O") == -2
    board[5 * 7 + 2] = "X"
    # X X X on the bottom: one window with three (cols 1-4), one with two (cols 2-5)
    assert counts(tuple(board), "X") == {4: 0, 3: 1, 2: 1}
    board[5 * 7 + 3] = "O"  # blocked: no window of X stays open
    assert counts(tuple(board), "X") == {4: 0, 3: 0, 2: 0}


def test_each_move_stores_its_reward_and_rewards_add_up_to_the_final_value():
    game = new(seed=3)
    rng = random.Random(3)
    rewards = {"X": 0, "O": 0}
    while not game.done():
        (seat,) = game.to_act()
        before = tuple(game.board)
        game.step({seat: game.observe(seat).space.sample(rng)})
        last = game.public_state()["last_move"]
        mark = "XO"[seat]
        assert last["seat"] == seat
        assert last["reward"] == board_value(tuple(game.board), mark) - board_value(before, mark)
        rewards[mark] += last["reward"]
    assert rewards["X"] - rewards["O"] == board_value(tuple(game.board), "X")


def test_minimax_beats_random_and_blocks_an_open_three():
    bot = find_policy("connect_four", "minimax")
    for seed in range(6):
        game = new(seed)
        rng = random.Random(seed)
        minimax_seat = seed % 2
        while not game.done():
            (seat,) = game.to_act()
            obs = game.observe(seat)
            game.step({seat: bot(obs, rng, None) if seat == minimax_seat else obs.space.sample(rng)})
        assert game.result()[minimax_seat].won
    game = new()
    play(game, [1, 7, 2, 7, 3])  # X threatens 4 on the bottom row
    assert bot(game.observe(1), random.Random(0), None) == 3


def test_a_full_column_played_ends_the_game_as_a_loss_for_its_player():
    game = new()
    play(game, [5] * 6)
    game.step({0: 4})  # X drops into the full column 5 (its answer is an IllegalAction: the move, which loses)
    assert game.done() and game.winner() == "O" and game.outcome()["illegal_move_by"] == 0
    assert "column 5 is full" in game.log[-1].text
    assert [game.result()[s].won for s in (0, 1)] == [False, True]
