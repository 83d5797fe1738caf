"""Rules and scores of the three foundation games, against hand-computed cases."""

from __future__ import annotations

import random

import pytest

from engine.games.base import IllegalAction, ParseError
from engine.games.guessing_game import guessing_score
from engine.games.prisoners_dilemma import round_payoffs
from engine.games.tictactoe import winner_of
from tests.game_play import new_game as new


def test_guessing_score_follows_gamabench_formulas():
    # R < 1: (D - S)/D * 100 with S the mean of (round mean - MIN)
    assert guessing_score([50, 30], 0, 100, 2 / 3) == pytest.approx(60.0)
    assert guessing_score([0, 0], 0, 100, 2 / 3) == pytest.approx(100.0)
    # R = 1: (1 - |2S - D|/D) * 100
    assert guessing_score([50], 0, 100, 1.0) == pytest.approx(100.0)
    assert guessing_score([25], 0, 100, 1.0) == pytest.approx(50.0)
    # R > 1: S/D * 100
    assert guessing_score([80], 0, 100, 4 / 3) == pytest.approx(80.0)


def test_guessing_round_winner_is_closest_to_two_thirds_of_the_mean():
    game = new("guessing_game", players=3, rounds=2)
    game.step({0: 30, 1: 60, 2: 90})  # mean 60, target 40: 30 is 10 away, 60 is 20 away
    assert game.records[0]["target"] == pytest.approx(40.0)
    assert game.records[0]["winners"] == [0]
    game.step({0: 20, 1: 20, 2: 50})  # mean 30, target 20: a shared win
    assert game.records[1]["winners"] == [0, 1]
    assert game.done()
    result = game.result()
    assert result[0].won and result[0].rank == 1 and not result[2].won
    metrics = {(s, n): v for s, n, v in game.metrics()}
    assert metrics[(None, "gamabench_score")] == pytest.approx(100 - (60 + 30) / 2)
    assert metrics[(0, "rounds_won")] == 2 and metrics[(1, "rounds_won")] == 1


def test_guessing_private_feedback_is_only_seen_by_its_player():
    game = new("guessing_game", players=3, rounds=2)
    game.step({0: 10, 1: 20, 2: 30})
    assert any("You chose 10" in line for line in game.observe(0).history)
    assert not any("You chose 10" in line for line in game.observe(1).history)


def test_guessing_parser_reads_json_or_a_bare_number_and_checks_the_range():
    game = new("guessing_game", reading="lenient")
    assert game.parse(0, '{"chosen_number": "17"}') == 17
    assert game.parse(0, 'I reason 2/3 of 50 is 33, so: {"chosen_number": 22}') == 22 and game.parse(0, "22") == 22
    with pytest.raises(ParseError, match="no JSON object"):
        game.parse(0, "I reason 2/3 of 50 is 33, so: 22")  # γ-Bench reads the JSON object (test_gamabench_games)
    with pytest.raises(ParseError, match="outside"):
        game.parse(0, "101")
    with pytest.raises(ParseError, match="whole number"):
        game.parse(0, '{"chosen_number": 33.5}')


def test_tictactoe_win_draw_and_illegal_moves():
    assert winner_of(("X", "X", "X", None, "O", "O", None, None, None)) == "X"
    assert winner_of(("O", "X", "X", None, "O", "X", None, None, "O")) == "O"
    game = new("tictactoe")
    assert game.to_act() == [0]
    game.step({0: game.parse(0, "X: (1,1)")})
    assert game.to_act() == [1]
    with pytest.raises(ParseError, match="off the board"):
        game.parse(1, "O: (4,1)")
    for seat, move in [(1, "(2,2)"), (0, "(1,2)"), (1, "(3,3)"), (0, "(1,3)")]:
        game.step({seat: game.parse(seat, move)})
    assert game.done() and game.public_state()["winner"] == "X"
    result = game.result()
    assert result[0].won and result[0].score == 1.0 and result[1].score == 0.0 and result[0].role == "X"


def test_a_parsed_move_on_a_taken_cell_loses_the_game_as_llmarenas_wrapper_plays_it():
    game = new("tictactoe")
    game.step({0: game.parse(0, "X: (2,2)")})
    with pytest.raises(IllegalAction) as illegal:  # parsed, but the cell is taken: the illegal move, which loses
        game.parse(1, "O: (2,2)")
    game.step({1: illegal.value.action})
    assert game.done() and game.winner() == "X" and game.outcome()["illegal_move_by"] == 1
    result = game.result()
    assert result[0].won and result[0].rank == 1 and not result[1].won and result[1].score == 0.0
    assert game.public_state()["last_move"]["illegal"] is True
    assert "(2,2) is already taken" in game.log[-1].text


def test_tictactoe_hint_toggles_the_legal_positions_in_the_prompt_view():
    assert "(1,1)" in new("tictactoe").observe(0).view["available_line"]
    assert new("tictactoe", hint=False).observe(0).view["available_line"] == ""


@pytest.mark.asyncio
async def test_minimax_never_loses_to_random():
    from engine.agents import AgentSpec, TurnContext, make_agent

    for seed in range(20):
        game = new("tictactoe", seed)
        agents = [make_agent(AgentSpec("bot:equilibrium")), make_agent(AgentSpec("bot:random"))]
        if seed % 2:
            agents.reverse()
        while not game.done():
            (seat,) = game.to_act()
            d = await agents[seat].act(game.observe(seat), TurnContext("m", seed, seat, 0, random.Random(seed)))
            game.step({seat: d.action})
        minimax_seat = 0 if seed % 2 == 0 else 1
        assert game.result()[minimax_seat].score >= 0.5


def test_prisoners_dilemma_payoffs_of_the_authors_setting():
    p = {"cooperate": 2, "defect": 1, "one_defect": 4, "two_defect": 2}
    assert round_payoffs(["cooperate"] * 3, p) == [2, 2, 2]
    assert round_payoffs(["defect"] * 3, p) == [1, 1, 1]
    assert round_payoffs(["defect", "cooperate", "cooperate"], p) == [4, 0, 0]
    assert round_payoffs(["defect", "defect", "cooperate"], p) == [2, 2, 0]


def test_prisoners_dilemma_five_rounds_totals_and_defection_counts():
    game = new("prisoners_dilemma")
    plays = [("defect", "cooperate", "cooperate")] * 2 + [("defect", "defect", "defect")] * 3
    for choices in plays:
        game.step(dict(enumerate(choices)))
    assert game.done()
    assert game.totals == [4 * 2 + 3, 3, 3]
    result = game.result()
    assert result[0].won and result[0].rank == 1 and result[1].rank == 2
    metrics = {(s, n): v for s, n, v in game.metrics()}
    assert metrics[(0, "defections")] == 5 and metrics[(1, "defections")] == 3 and metrics[(0, "rational_chances")] == 5
