"""Heads-up no-limit Hold'em: blinds and bet sizes, folds and showdowns (ranked by treys), chip
conservation, illegal actions with reasons, the Monte-Carlo win probability and the hand-strength bot."""

from __future__ import annotations

import random
from functools import partial

import pytest

from engine.agents.bots import find_policy
from engine.games.base import ParseError
from engine.games.texas_holdem import hand_rank, win_probability
from tests.game_play import act, new_game

new = partial(new_game, "texas_holdem", reading="lenient")  # the authors' reading: tests/test_answer_readings.py


def test_treys_ranks_hands_in_the_usual_order():
    board = ["2h", "7h", "9h", "Ts", "Jd"]
    flush, straight, pair = ["Ah", "3h"], ["8c", "Qc"], ["Jc", "4s"]
    assert hand_rank(flush, board) < hand_rank(straight, board) < hand_rank(pair, board)


def test_blinds_bet_sizes_and_a_fold():
    game = new()
    s = game.public_state()
    assert s["stacks"] == [99, 98] and s["pot"] == 3 and game.to_act() == [0]
    act(game, "Action: Raise Half Pot")  # call 1, then raise half of the pot after calling (4 // 2 = 2)
    assert game.public_state()["committed"] == [4, 2]
    act(game, "Action: Raise Pot")  # call 2, then raise the pot after calling (8)
    assert game.public_state()["committed"] == [4, 12]
    act(game, "I fold.")
    assert game.done() and game.chips_won() == {0: -4, 1: 4}
    assert game.result()[1].won and game.result()[1].score == 4.0 and game.result()[0].rank == 2


def test_checks_through_to_a_showdown_that_treys_decides():
    game = new(seed=7)
    act(game, "Action: Check and Call")
    act(game, "check")
    for street in ("flop", "turn", "river"):
        assert game.public_state()["street"] == street and game.to_act() == [1]  # big blind acts first after the flop
        act(game, "check")
        act(game, "check")
    assert game.done() and game.public_state()["shown"] == game.holes
    ranks = [hand_rank(h, game.full_board) for h in game.holes]
    expected = {0: 0, 1: 0} if ranks[0] == ranks[1] else {0: 2, 1: -2} if ranks[0] < ranks[1] else {0: -2, 1: 2}
    assert game.chips_won() == expected


def test_all_in_and_call_run_the_board_out_and_chips_are_conserved():
    game = new(seed=1)
    act(game, "All-in")
    assert game.observe(1).space.options == ("fold", "call")
    with pytest.raises(ParseError, match="opponent is all-in"):
        game.parse(1, "Raise Pot")
    act(game, "call")
    assert game.done() and game.public_state()["board"] == game.full_board
    assert sorted(game.chips_won().values()) in ([-100, 100], [0, 0])
    for seed in range(40):
        game, rng = new(seed), random.Random(seed)
        while not game.done():
            (seat,) = game.to_act()
            game.step({seat: game.observe(seat).space.sample(rng)})
        assert sum(game.stacks) == 200 and min(game.stacks) >= 0


def test_unknown_and_empty_answers_are_parse_errors_and_aliases_work():
    game = new()
    with pytest.raises(ParseError):
        game.parse(0, "I think I will wait")
    assert game.parse(0, "Action: Raise Full Pot") == "raise_pot"
    assert game.parse(0, '{"action": "all in"}') == "all_in"
    assert "Raise Half Pot" in game.observe(0).view["available_line"]
    assert new(hint=False).observe(0).view["available_line"] == ""


def test_win_probability_matches_known_equities():
    rng = random.Random(0)
    assert win_probability(["As", "Ad"], [], rng, 2000) == pytest.approx(0.85, abs=0.03)
    assert win_probability(["7c", "2d"], [], rng, 2000) == pytest.approx(0.35, abs=0.03)
    assert win_probability(["Ah", "Kh"], ["Qh", "Jh", "Th"], rng, 50) == 1.0  # a royal flush


def test_every_decision_stores_its_win_probability():
    game = new(seed=4)
    act(game, "call")
    act(game, "check")
    act(game, "fold")
    names = [(seat, name) for seat, name, _ in game.metrics()]
    assert names == [(0, "win_prob:call"), (1, "win_prob:call"), (1, "win_prob:fold")]
    assert all(0.0 <= p <= 1.0 for *_, p in game.metrics())


def test_hand_strength_bot_raises_aces_calls_a_shove_with_them_and_folds_trash():
    bot = find_policy("texas_holdem", "hand_strength")
    game = new()
    game.holes = [["As", "Ah"], ["7c", "2d"]]
    assert bot(game.observe(0), random.Random(0), None) in ("raise_pot", "all_in")
    act(game, "All-in")
    assert bot(game.observe(1), random.Random(0), None) == "fold"
    game = new()
    game.holes = [["7c", "2d"], ["As", "Ah"]]
    act(game, "All-in")
    assert bot(game.observe(1), random.Random(0), None) == "call"
