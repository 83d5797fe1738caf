"""Hanabi with LLMArena's small setting: deck, legal actions and their reasons, reveals, plays and
the lost life, the end after the deck runs out, the cooperative score, and the hint-following bot."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from functools import partial

import pytest

from engine.agents import AgentSpec
from engine.agents.bots import find_policy
from engine.games import get_game
from engine.games.base import ParseError
from engine.play.playing import play_match
from engine.play.spec import MatchPlan
from tests.game_play import act, new_game

new = partial(new_game, "hanabi")


def test_the_deck_has_two_colours_and_hands_of_two():
    game = new()
    cards = game.deck + game.hands[0] + game.hands[1]
    assert Counter(cards) == Counter({(c, r): n for c in ("red", "yellow") for r, n in
                                      {1: 3, 2: 2, 3: 2, 4: 2, 5: 1}.items()})
    assert [len(h) for h in game.hands] == [2, 2] and (game.info, game.lives) == (3, 1)


def test_discarding_needs_a_spent_token_and_reveals_must_match():
    game = new()
    game.hands = [[("red", 1), ("yellow", 2)], [("red", 3), ("red", 4)]]
    with pytest.raises(ParseError, match="cannot discard"):
        game.parse(0, "Action: Discard card 1")
    with pytest.raises(ParseError, match="no yellow card"):
        game.parse(0, "Action: Reveal yellow cards for another player")
    with pytest.raises(ParseError):
        game.parse(0, "I pass")
    act(game, "Action: Reveal red cards")
    assert game.info == 2 and game.knowledge[1] == [{"colour": "red", "rank": None}] * 2
    assert game.observe(1).view["my_cards"] == "card 1: red, rank unknown; card 2: red, rank unknown"
    assert game.observe(1).view["opponent_action"] == "Reveal red cards"
    assert game.parse(1, "Action: Discard card 2") == "discard:1"


def test_a_good_play_builds_a_firework_and_a_bad_one_ends_the_game_at_zero():
    game = new()
    game.hands = [[("red", 1), ("yellow", 2)], [("red", 3), ("yellow", 1)]]
    act(game, "Play card 1")
    assert game.fireworks == {"red": 1, "yellow": 0} and len(game.hands[0]) == 2 and game.score() == 1
    assert game.public_state()["last_action"] == {"seat": 0, "action": "play:0", "kind": "play", "card": ["red", 1]}
    act(game, "Play card 1")  # red 3 on red 1: the only life token is lost
    assert game.done() and game.lives == 0 and game.score() == 0
    assert {s: r.score for s, r in game.result().items()} == {0: 0.0, 1: 0.0}


def test_the_game_ends_one_turn_per_player_after_the_deck_runs_out():
    game = new()
    game.deck = game.deck[:1]
    game.info = 2
    act(game, "Discard card 1")  # draws the last card
    assert not game.deck and not game.done()
    for _ in range(2):
        assert not game.done()
        (seat,) = game.to_act()
        game.step({seat: next(a for a in game.observe(seat).space.options if a.startswith("reveal"))})
    assert game.done() and game.lives == 1


def test_hint_toggles_the_legal_actions_in_the_prompt_view():
    assert "Play card 1" in new().observe(0).view["available_line"]
    assert new(hint=False).observe(0).view["available_line"] == ""


def test_hint_follower_never_loses_the_life_and_scores_well_above_random():
    bot = find_policy("hanabi", "hint_follower")
    scores = {"bot": [], "random": []}
    for seed in range(30):
        for who in scores:
            game, rng = new(seed), random.Random(seed)
            while not game.done():
                (seat,) = game.to_act()
                obs = game.observe(seat)
                game.step({seat: bot(obs, rng, None) if who == "bot" else obs.space.sample(rng)})
            if who == "bot":
                assert game.lives == 1
            scores[who].append(game.score())
    assert sum(scores["bot"]) / 30 >= 4 > sum(scores["random"]) / 30 + 2


def test_the_cooperative_score_and_action_counts_are_stored_per_seat():
    params = get_game("hanabi").resolve_params({})
    plan = MatchPlan(match_id="h", run_id="r", game="hanabi", preset="default", params=params, seed=2, repeat=0,
                     lineup=0, seats=[AgentSpec("bot:hint_follower")] * 2)
    record = asyncio.run(play_match(plan))
    assert record.match["status"] == "ok"
    scores = {s["score"] for s in record.seats}
    assert len(scores) == 1 and scores.pop() > 0
    counted = sum(m["value"] for m in record.metrics if m["name"].startswith("hanabi_"))
    assert counted == sum(1 for t in record.turns if t["seat"] is not None)
