"""γ-Bench games: rules and score formulas against hand-computed cases, and bots that play legally."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import pytest

from engine.agents.prompting import render
from engine.games import get_game
from engine.games.base import ParseError
from engine.games.gamabench_common import Move
from engine.games.pirate_game import equilibrium_plan, proposal_distance, vote_is_right
from engine.games.sealed_bid_auction import draw_valuations
from engine.play.playing import play_match
from engine.play.spec import parse_spec
from tests.game_play import new_game as new

DATA = Path(__file__).resolve().parent / "data" / "gamabench"
GAMES = ("guessing_game", "bar_game", "divide_dollar", "public_goods", "diner_dilemma", "sealed_bid_auction",
         "battle_royale", "pirate_game")


def scores(game) -> dict:
    return {(s, n): v for s, n, v in game.metrics() if n == "gamabench_score"}


def test_bar_game_pays_by_capacity_and_scores_distance_to_it():
    game = new("bar_game", players=5, rounds=2, ratio=0.6)
    game.step({0: "go", 1: "go", 2: "go", 3: "stay", 4: "stay"})  # 3/5 = 60%: not crowded
    assert game.records[0]["payoffs"] == [10, 10, 10, 5, 5]
    game.step({0: "go", 1: "go", 2: "go", 3: "go", 4: "stay"})  # 80%: crowded
    assert game.records[1]["payoffs"] == [0, 0, 0, 0, 5]
    # S = (|0.6-0.6| + |0.8-0.6|) / 2 = 0.1; score = (0.6 - 0.1) / 0.6 * 100
    assert scores(game)[(None, "gamabench_score")] == pytest.approx(250 / 3)
    # seat 4 went 0 of 2 times: (0.6 - 0.6) / 0.6 -> 0
    assert scores(game)[(4, "gamabench_score")] == pytest.approx(0.0)


def test_bar_game_implicit_mode_hides_attendance_from_those_at_home():
    game = new("bar_game", players=3, rounds=1)
    game.step({0: "go", 1: "stay", 2: "stay"})
    assert not any("of 3 players went" in line for line in game.history(1))
    assert any("1 of 3 players went" in line for line in game.history(0))
    explicit = new("bar_game", players=3, rounds=1, mode="explicit")
    explicit.step({0: "go", 1: "stay", 2: "stay"})
    assert any("1 of 3 players went" in line for line in explicit.history(1))


def test_divide_dollar_pays_only_within_the_golds():
    game = new("divide_dollar", players=4, rounds=2, golds=100)
    game.step({0: 25, 1: 25, 2: 25, 3: 25})
    game.step({0: 91, 1: 5, 2: 5, 3: 5})
    assert game.records[0]["payoffs"] == [25, 25, 25, 25] and game.records[1]["payoffs"] == [0, 0, 0, 0]
    # g = 25; gaps |100/4 - 25| = 0 and |106/4 - 25| = 1.5; S = 0.75; score = (25 - 0.75) / 25 * 100
    assert scores(game)[(None, "gamabench_score")] == pytest.approx(97.0)
    # seat 0: gaps 0 and 66 -> S = 33 > g -> clipped at 0
    assert scores(game)[(0, "gamabench_score")] == 0.0


def test_public_goods_shares_the_multiplied_pot_and_rewards_free_riding():
    game = new("public_goods", players=4, rounds=1, tokens=20, ratio=2.0)
    game.step({0: 0, 1: 20, 2: 10, 3: 10})
    # pot 40 x 2 / 4 = 20 each
    assert game.records[0]["payoffs"] == [40, 20, 30, 30]
    assert scores(game)[(None, "gamabench_score")] == pytest.approx((20 - 10) / 20 * 100)
    assert scores(game)[(0, "gamabench_score")] == pytest.approx(100.0)


def test_diner_dilemma_splits_the_bill_and_scores_costly_orders():
    game = new("diner_dilemma", players=4, rounds=2)
    game.step({0: "costly", 1: "cheap", 2: "cheap", 3: "cheap"})
    game.step({0: "costly", 1: "costly", 2: "cheap", 3: "cheap"})
    # bill 20 + 30 = 50, share 12.5: costly 20 - 12.5, cheap 15 - 12.5
    assert game.records[0]["payoffs"] == [7.5, 2.5, 2.5, 2.5]
    assert scores(game)[(None, "gamabench_score")] == pytest.approx(3 / 8 * 100)


def test_sealed_bid_auction_prices_and_both_formulas():
    game = new("sealed_bid_auction", players=3, rounds=1)
    values = game.valuations
    assert values == draw_valuations(game.p, 1) and len(set(values)) == 3
    game.valuations = [100, 50, 10]
    game.step({0: 60, 1: 50, 2: 0})
    assert game.records[0]["winner"] == 0 and game.records[0]["price"] == 60 and game.records[0]["payoffs"][0] == 40
    # current: mean of (100-60)/100, (50-50)/50, (10-0)/10 -> (0.4 + 0 + 1) / 3
    assert scores(game)[(None, "gamabench_score")] == pytest.approx(140 / 3)
    second = new("sealed_bid_auction", players=3, rounds=1, pricing="second", formula="paper")
    second.valuations = [100, 50, 10]
    second.step({0: 60, 1: 50, 2: 0})
    assert second.records[0]["price"] == 50 and second.records[0]["payoffs"][0] == 50
    # paper: mean(v - b) / max(v) * 100 = (40 + 0 + 10) / 3 / 100 * 100
    assert scores(second)[(None, "gamabench_score")] == pytest.approx(50 / 3)


def test_sealed_bid_auction_valuations_do_not_depend_on_the_match_seed():
    a, b = new("sealed_bid_auction"), new("sealed_bid_auction")
    b.reset(99)
    assert a.valuations == b.valuations


def test_battle_royale_order_hits_and_target_score():
    game = new("battle_royale", preset="last_survivor", players=4, hit_min=35, hit_max=80)
    assert game.rates == [35, 50, 65, 80] and game.to_act() == [0]
    moves = [Move(1, 0, "shoot", 3, {"alive_before": [[0, 35], [1, 50], [2, 65], [3, 80]]}),
             Move(2, 1, "shoot", None, {"alive_before": [[0, 35], [1, 50], [2, 65], [3, 80]]}),
             Move(3, 2, "shoot", 1, {"alive_before": [[0, 35], [1, 50], [2, 65], [3, 80]]}),
             Move(4, 3, "shoot", 2, {"alive_before": [[0, 35], [1, 50], [2, 65], [3, 80]]})]
    # right: seat 0 at 3, seat 3 at 2 (its strongest opponent); a deliberate miss is not
    assert game.score(game.p, moves) == pytest.approx(50.0)
    assert game.score(game.p, moves, seat=1) == 0.0 and game.score(game.p, moves, seat=0) == 100.0
    game.step({0: None})
    assert game.to_act() == [1] and len(game.alive) == 4
    while not game.done():
        shooter = game.to_act()[0]
        game.step({shooter: min(s for s in game.alive if s != shooter)})
    assert len(game.alive) == 1 and game.result()[game.alive[0]].won


def test_guessing_score_below_ratio_one_is_eq_1s_max_minus_s_when_min_is_not_0():
    """Eq. 1 and their games/guessing_game.py: (MAX - S)/D·100, S the mean of (round mean - MIN)."""
    game = new("guessing_game", players=2, rounds=1, min=10, max=110)
    game.step({0: 30, 1: 50})  # mean 40: S = 30, D = 100 -> (110 - 30)/100 (not (D - S)/D = 70)
    assert scores(game)[(None, "gamabench_score")] == pytest.approx(80.0)


def test_the_pirate_v1_prompt_states_the_vote_rule_in_the_authors_words():
    """prompt_template/pirate_game/description_v1.txt: "If equal to or greater than half of the pirates accept
    the plan" (their code passes at an accepting rate >= 0.5, the proposer's own vote included)."""
    game = new("pirate_game")
    system = render(game.observe(0), "v1")[0]["content"]
    assert "equal to or greater than half of the pirates accept the plan" in system


def test_auction_valuations_are_the_authors_draws_round_1_with_the_seed_itself():
    """Their round r: random.seed(seed + r - 1), then random.sample of the valuation grid; a published record
    (seed 42 at the start, 62 saved after 20 rounds) has exactly those valuations in every round."""
    game = new("sealed_bid_auction")
    assert game.valuations == random.Random(42).sample(range(0, 201, 10), 10)
    record = json.loads((DATA / "sealed_bid_auction" / "second_price" / "sealed_bid_auction_vr0.json").read_text())
    params = get_game("sealed_bid_auction").resolve_params({"valuation_max": 100, "valuation_seed": 42})
    assert [r["valuations"] for r in record["round_records"]] == [draw_valuations(params, k) for k in range(1, 21)]


def test_battle_royale_stops_after_the_papers_20_rounds_unless_played_to_the_last_survivor():
    """The authors' games stop after 20 rounds (one shot each): the survivors share the win."""
    game = new("battle_royale")
    for _ in range(20):
        assert not game.done()
        game.step({game.to_act()[0]: None})  # everyone misses on purpose
    assert game.done() and len(game.records) == 20 and len(game.alive) == 10
    assert all(r.won for r in game.result().values())
    longer = new("battle_royale", preset="last_survivor")
    for _ in range(20):
        longer.step({longer.to_act()[0]: None})
    assert not longer.done() and longer.p["rounds"] == 200


def test_pirate_equilibrium_and_voting_rules():
    assert equilibrium_plan(10, 100) == [96, 0, 1, 0, 1, 0, 1, 0, 1, 0]
    assert equilibrium_plan(3, 100) == [99, 0, 1]
    assert proposal_distance([96, 0, 1, 0, 1, 0, 1, 0, 1, 0]) == 0
    assert proposal_distance([2, 0, 0]) == pytest.approx(2)  # scaled to [100, 0, 0] vs [99, 0, 1]
    assert vote_is_right("accept", 2, 1) and vote_is_right("reject", 0, 2)
    assert vote_is_right("accept", 1, 2) and not vote_is_right("reject", 1, 2)
    assert not vote_is_right("accept", 1, 1) and not vote_is_right("reject", 1, 1)


def test_pirate_game_plays_proposals_and_votes():
    game = new("pirate_game", players=4, golds=100)
    assert game.to_act() == [0]
    with pytest.raises(ParseError):
        game.parse(0, '{"plan": [50, 50, 1, 0]}')  # sums to 101
    assert game.parse(0, 'My plan: {"plan": [97, 0, 2, 1]}') == [97, 0, 2, 1]
    game.step({0: [97, 0, 2, 1]})
    assert game.to_act() == [1, 2, 3]
    game.step({1: "reject", 2: "reject", 3: "reject"})  # 1 of 4 accepts: overboard
    assert game.to_act() == [1] and game.proposer == 1
    game.step({1: [99, 0, 1]})
    game.step({2: "reject", 3: "accept"})  # 2 of 3: passes
    assert game.done() and game.payoff == [0, 99, 0, 1]
    assert game.result()[1].won and game.result()[0].rank == 4
    # proposals: L1 [97,0,2,1] vs [99,0,1,0] = 4 and [99,0,1] vs itself = 0 -> 50*(200-2)/200
    # votes: 0 gold reject right, 2 golds reject wrong, 1 gold odd offset wrong, 0 gold reject right,
    # 1 gold at offset 2 accept right -> 3/5
    expected = 50 * (200 - 2) / 200 + 50 * 3 / 5
    assert scores(game)[(None, "gamabench_score")] == pytest.approx(expected)


def test_every_game_exposes_round_figures_in_the_public_state():
    game = new("guessing_game", players=3, rounds=1)
    game.step({0: 30, 1: 60, 2: 90})
    last = game.public_state()["last"]
    assert last["mean"] == 60 and last["winning_number"] == 30 and game.public_state()["round"] == 1


def _bot_lineup_spec(game: str, n: int) -> dict:
    bots = ["bot:random", "bot:equilibrium"] + [f"bot:{b}" for b in _extra_bots(game)]
    lineup = [bots[i % len(bots)] for i in range(n)]
    return {"name": f"bots-{game}", "seed": 3, "games": [{"game": game, "params": _short(game),
                                                         "lineups": [lineup, {"all": "bot:equilibrium"}]}]}


def _extra_bots(game: str) -> list[str]:
    return {"public_goods": ["free_rider", "conditional"], "diner_dilemma": ["cooperator"], "bar_game": ["contrarian"],
            "sealed_bid_auction": ["truthful"], "battle_royale": ["weakest"], "guessing_game": ["best_response"],
            "divide_dollar": ["fixed:91"]}.get(game, [])


def _short(game: str) -> dict:
    return {"rounds": 4} if "rounds" in get_game(game).params else {}


@pytest.mark.parametrize("game", GAMES)
def test_bots_play_legally_and_equilibrium_bots_score_well(game):
    spec = parse_spec(_bot_lineup_spec(game, get_game(game).n_seats(get_game(game).resolve_params({}))))
    for plan in spec.matches:
        record = asyncio.run(play_match(plan))
        assert record.match["status"] == "ok", record.match["error"]
        decisions = [t for t in record.turns if t["seat"] is not None]
        assert decisions and not any(t["fallback"] for t in decisions)
        match_score = [m["value"] for m in record.metrics if m["seat"] is None and m["name"] == "gamabench_score"]
        assert len(match_score) == 1 and 0 <= match_score[0] <= 100
        seat_scores = [s["score"] for s in record.seats if s["score"] is not None]
        assert seat_scores and all(0 <= v <= 100 for v in seat_scores)
        if all(s.agent == "bot:equilibrium" for s in plan.seats) and game not in ("bar_game", "sealed_bid_auction"):
            assert match_score[0] == pytest.approx(100.0)


@pytest.mark.parametrize("name, key", [("guessing_game", "chosen_number"), ("divide_dollar", "bid_amount"),
                                       ("public_goods", "tokens_contributed"), ("sealed_bid_auction", "bid")])
def test_a_number_is_read_from_the_json_object_or_a_bare_answer_never_from_prose(name, key):
    """The lenient reading: a number met in a sentence is no answer (SmolLM2's "I'm glad you've joined ...
    Player 1 with the" was taken as a guess of 1 and won); tests/test_answer_readings.py reads as the authors."""
    game = new(name, reading="lenient")
    seat = game.to_act()[0]
    parse = game.observe(seat).parse
    assert parse(f'Thinking it over: {{"{key}": 3}}') == 3 and parse(" 2. ") == 2 and parse("**1**") == 1
    for prose in ("I'm glad you've joined. Player 1 with the", "My answer is 2", "1 or 2"):
        with pytest.raises(ParseError, match=f'no JSON object with "{key}"'):
            parse(prose)
