"""LLMArena's Bargain and Bid: instances, the parsers, deals and no deals, the auction's winner and
reward, the deviation from the v/2 equilibrium, and the tables over a bot run."""

from __future__ import annotations

import asyncio
import random

import pytest

from engine.agents.bots import find_policy
from engine.games.bargain import BargainSpace, instances
from engine.games.base import ParseError
from engine.games.bid import MoneySpace, deviation
from engine.papers.llmarena.negotiation import bargain_table, bid_table
from engine.play.runner import run_spec
from engine.play.spec import load_spec, parse_spec
from tests.game_play import new_game as new


def test_the_authors_instances_are_read_and_each_pool_is_worth_ten_to_both():
    rows = instances()
    assert len(rows) == 1000  # `wc -l` says 999: the last line has no newline, wc -l misses it
    assert rows[0] == ((1, 2, 3), (8, 1, 0), (4, 0, 2))
    assert all(sum(c * v for c, v in zip(counts, values, strict=True)) == 10
               for counts, a, b in rows for values in (a, b))


def test_bargain_parser_reads_json_written_plans_and_deal_whichever_comes_last():
    space = BargainSpace((1, 2, 3), can_deal=True)
    assert space.parse('{"message": "fair?", "plan": [1, 0, 2]}') == {"plan": [1, 0, 2], "message": "fair?"}
    assert space.parse('{"action": "deal"}') == {"deal": True}
    assert space.parse("I'd like 1 hat, 2 balls, and 0 apples. Player A: 1 hat 2 balls 0 apples")["plan"] == [1, 2, 0]
    assert space.parse("That plan is poor, no deal. Player B: 0 hats 1 ball 3 apples")["plan"] == [0, 1, 3]
    assert space.parse("Your plan of 1 hats 1 balls 1 apples works. Player B: Deal.") == {"deal": True}
    assert space.parse("No deal. [1, 1, 1]")["plan"] == [1, 1, 1]
    with pytest.raises(ParseError, match="apples"):
        space.parse('{"plan": [1, 0, 4]}')
    with pytest.raises(ParseError):
        space.parse("no deal")
    with pytest.raises(ParseError, match="no plan to accept"):
        BargainSpace((1, 2, 3), can_deal=False).parse("Deal!")


def test_a_deal_gives_the_accepted_plan_and_its_rest_valued_privately():
    game = new("bargain", instance=0)  # counts 1,2,3; A values 8,1,0; B values 4,0,2
    assert game.to_act() == [0]
    game.step({0: {"plan": [1, 2, 0], "message": "I need the hat."}})
    assert game.to_act() == [1] and game.observe(1).view["offer_to_me"] == [0, 0, 3]
    game.step({1: {"deal": True}})
    assert game.done() and game.allocation() == [[1, 2, 0], [0, 0, 3]]
    assert game.rewards() == [10, 6]
    result = game.result()
    assert result[0].won and not result[1].won and result[1].rank == 2
    rows = {(s, k): v for s, k, v in game.metrics()}
    assert rows[(None, "agreement")] == 1 and rows[(1, "reward")] == 6 and rows[(1, "max_reward")] == 10


def test_no_deal_within_the_rounds_pays_nothing_and_nobody_wins():
    game = new("bargain", instance=3, rounds=4)
    while not game.done():
        s = game.to_act()[0]
        game.step({s: find_policy("bargain", "greedy")(game.observe(s), random.Random(0), None)})
    assert game.messages == 8 and game.rewards() == [0, 0]  # 4 rounds of two messages
    assert not any(r.won for r in game.result().values())
    assert {(s, k): v for s, k, v in game.metrics()}[(None, "agreement")] == 0


def test_bargain_values_are_private_to_their_seat():
    game = new("bargain", instance=0)
    a, b = game.history(0), game.history(1)
    assert any("hat 8" in line for line in a) and not any("hat 8" in line for line in b)
    assert any("hat 4" in line for line in b) and not any("hat 4" in line for line in a)


def test_bid_winner_pays_its_bid_ties_follow_the_seed_and_bids_cannot_exceed_the_valuation():
    game = new("bid", seed=7)
    v = game.valuations
    assert all(0 <= x <= 10 for x in v)
    low, high = sorted(range(2), key=lambda s: v[s])
    game.step({low: round(v[low] / 2, 2), high: round(v[low] / 2 + 0.01, 2)})
    assert game.winner() == high
    assert game.rewards()[high] == pytest.approx(v[high] - v[low] / 2 - 0.01, abs=0.011)
    assert game.rewards()[low] == 0 and game.result()[high].won
    assert MoneySpace(3.75).parse("I bid. Player 1: $1.08") == 1.08
    assert MoneySpace(3.75).parse('{"bid": 2}') == 2.0
    for bad in ("Player 1: $4.00", '{"bid": -1}', "nothing", '{"bid": "NaN"}'):
        with pytest.raises(ParseError):
            MoneySpace(3.75).parse(bad)
    tied = [new("bid", seed=s) for s in range(12)]
    for g in tied:
        g.step({0: 0.0, 1: 0.0})
    assert {g.winner() for g in tied} == {0, 1}


def test_bid_deviation_is_zero_at_v_over_two_and_one_at_v():
    assert deviation(2.5, 5.0) == 0 and deviation(5.0, 5.0) == 1 and deviation(1.25, 5.0) == -0.5
    assert deviation(1.0, 0.0) is None


def test_tables_over_a_bot_run(db_path):
    spec = parse_spec({"name": "nego", "repeats": 12, "games": [
        {"game": "bid", "lineups": [["bot:equilibrium", "bot:truthful"]]},
        {"game": "bargain", "lineups": [["bot:fair", "bot:always_accept"], ["bot:greedy", "bot:greedy"]]}]})
    asyncio.run(run_spec(spec, db_path, progress=False))
    bid = bid_table(db_path).set_index("agent")
    assert bid.loc["bot:truthful", "bid_deviation"] == pytest.approx(1.0)
    assert bid.loc["bot:truthful", "reward"] == 0  # bidding the valuation earns nothing, win or lose
    assert abs(bid.loc["bot:equilibrium", "bid_deviation"]) < 0.01
    assert bid.loc["bot:equilibrium", "win_rate"] + bid.loc["bot:truthful", "win_rate"] == pytest.approx(1.0)
    bargain = bargain_table(db_path).set_index("agent")
    assert bargain.loc["bot:always_accept", "agreement_rate"] == 1.0  # fair opens, always_accept says Deal
    assert bargain.loc["bot:greedy", "agreement_rate"] == 0.0 and bargain.loc["bot:greedy", "reward"] == 0
    assert bargain.loc["bot:greedy", "games"] == 24  # both seats of its self-play matches count
    assert 0 < bargain.loc["bot:fair", "reward_share"] <= 1


def test_llmarena_specs_parse_into_bot_tournaments():
    bargain, bid = load_spec("runs/llmarena_bargain.yaml"), load_spec("runs/llmarena_bid.yaml")
    assert {m.game for m in bargain.matches} == {"bargain"} and len(bargain.matches) == 8 * 25
    assert {m.game for m in bid.matches} == {"bid"} and len(bid.matches) == 3 * 100


def test_bargain_runs_ten_rounds_of_two_messages_and_bs_last_message_is_not_read():
    game = new("bargain", instance=3)
    for _ in range(19):  # A and B trade plans for nine and a half rounds
        s = game.to_act()[0]
        game.step({s: {"plan": list(game.counts), "message": ""}})
    assert not game.done() and game.to_act() == [1] and game.round == 10
    game.step({1: {"deal": True}})  # as LLMArena's env: round 10 closes before B's last message is read
    assert game.done() and game.messages == 20 and game.deal_by is None and game.rewards() == [0, 0]
