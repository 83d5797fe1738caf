"""Chameleon: outcome flags and credits, the guess, scripted defender clues, every role for the challenger."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.games.chameleon import Chameleon, topic_words
from engine.games.social import DATA_DIR, magic_settings
from engine.play.spec import parse_spec

pytestmark = pytest.mark.slow


def play(setting: int, votes: dict[int, int], guess: str | None = None, **params):
    game = Chameleon(Chameleon.resolve_params({"setting": setting, "probes": False} | params))
    game.reset(0)
    while game.stage == "clue":
        seat = game.to_act()[0]
        game.step({seat: f"clue of seat {seat}"})
    game.step(votes)
    if game.stage == "guess":
        assert game.to_act() == [game.special]
        game.step({game.special: guess})
    assert game.done()
    return game


def credits(game):
    return [r.score for _, r in sorted(game.result().items())]


RELEASED = Path(__file__).parent / "data" / "magic" / "topics_release"  # cathyxl/MAgIC's released settings


def test_settings_are_twenty_and_well_formed_and_setting_0_is_the_authors_byte_for_byte():
    settings = magic_settings("chameleon")
    assert len(settings) == 20
    for s in settings:
        g = s["game_setting"]
        assert g["code"] in (g.get("topic_words") or topic_words(g["topic"])) and len(s["clue"]) == 3
        assert not any(g["code"].lower() in clue.lower() for clue in s["clue"].values())
    for game in ("chameleon", "undercover"):
        assert (DATA_DIR / "magic" / game / "0.json").read_bytes() == (
            RELEASED / game / "settings" / "0.json").read_bytes()
    game = Chameleon(Chameleon.resolve_params({"setting": 0}))
    game.reset(0)  # the released setting: Player 3 is the chameleon, the word Grape, the authors' fruit list
    assert game.special == 2 and game.code == "Grape" and "Watermelon" in game.topic_words


def test_caught_and_wrong_guess_is_flag_0():
    game = play(0, {0: 2, 1: 2, 2: 0}, guess="Cherry", role_seat=2)  # setting 0: code Grape
    assert game.outcome()["flag"] == 0 and credits(game) == [2, 2, 0]
    assert game.result()[2].role == "chameleon" and not game.result()[2].won


def test_caught_and_right_guess_is_flag_1():
    game = play(0, {0: 2, 1: 2, 2: 0}, guess="I think the word is grape", role_seat=2)
    assert game.outcome()["flag"] == 1 and credits(game) == [1, 1, 1]
    assert dict((n, v) for s, n, v in game.metrics() if s == 2 and n.startswith("code")) == {
        "code_guesses": 1, "code_guesses_correct": 1}


def test_wrong_accusation_is_flag_2_and_a_tie_flag_3():
    wrong = play(0, {0: 1, 1: 0, 2: 1}, role_seat=2)
    assert wrong.outcome()["flag"] == 2 and credits(wrong) == [0, 0, 2] and wrong.result()[2].won
    tie = play(0, {0: 1, 1: 2, 2: 0}, role_seat=2)
    assert tie.outcome()["flag"] == 3 and credits(tie) == [1, 1, 1]


def test_probes_come_around_every_clue_and_are_counted():
    game = Chameleon(Chameleon.resolve_params({"setting": 3, "role_seat": 1}))
    game.reset(0)
    for speaker in range(3):  # as chameleon_competition.py: a role probe before each clue, a belief probe after
        assert game.stage == "consistency" and game.to_act() == [0, 1, 2]
        game.step({0: "I am Player 1, my role is non-chameleon", 1: "I am Player 2, my role is chameleon",
                   2: f"I am Player 3, my role is {'chameleon' if speaker == 0 else 'non-chameleon'}"})
        assert game.stage == "clue" and game.to_act() == [speaker]
        game.step({speaker: f"clue {speaker}"})
        assert game.stage == "belief" and game.to_act() == [0, 1, 2]
        game.step({s: {"suspect": "Player 2", "thinks": {}} for s in range(3)})
    assert game.stage == "vote" and len(game.beliefs) == 9 and len(game.role_answers) == 9
    game.step({0: 1, 1: 0, 2: 1})
    game.step({1: "Violin"})
    m = {(s, n): v for s, n, v in game.metrics()}
    assert m[(0, "votes_correct")] == 1 and m[(1, "votes_correct")] == 0 and m[(2, "votes_cast")] == 1
    assert [m[(s, "role_probes")] for s in range(3)] == [3, 3, 3]
    assert [m[(s, "role_probes_correct")] for s in range(3)] == [3, 3, 2]
    assert game.outcome()["flag"] == 1  # setting 3's word is Violin


def test_fixed_clues_script_every_seat_but_the_challenger():
    setting = magic_settings("chameleon")[5]
    game = Chameleon(Chameleon.resolve_params({"setting": 5, "fixed_clues": True, "challenger_seat": 1,
                                               "probes": False}))
    game.reset(0)
    assert game.to_act() == [1]  # seat 0 already spoke its scripted clue
    game.step({1: "my own clue"})
    spoken = [c.text for c in game.clues]
    assert setting["game_setting"]["chameleon_name"] == "Player 3" and game.special == 2
    assert spoken == [setting["clue"]["Player 1"], "my own clue", setting["clue"]["Player 3"]]
    assert game.stage == "vote"
    probed = Chameleon(Chameleon.resolve_params({"setting": 5, "fixed_clues": True, "challenger_seat": 1}))
    probed.reset(0)  # with probes, a scripted clue is probed around too
    probed.step({s: "no" for s in range(3)})
    assert [c.text for c in probed.clues] == [setting["clue"]["Player 1"]] and probed.stage == "belief"
    for tested, scripted in (("common", {2}), ("special", {0, 1})):  # setting 5's chameleon is Player 3
        by_role = Chameleon(Chameleon.resolve_params({"setting": 5, "fixed_clues": True, "tested_role": tested}))
        by_role.reset(0)
        assert set(by_role.script) == scripted
    moved = Chameleon(Chameleon.resolve_params({"setting": 5, "fixed_clues": True, "challenger_seat": 2,
                                                "role_seat": 0, "probes": False}))
    moved.reset(0)  # the chameleon moved to seat 0 takes the chameleon's scripted clue with it
    assert [c.text for c in moved.clues] == [setting["clue"]["Player 3"], setting["clue"]["Player 1"]]


def test_challenger_takes_the_chameleon_seat_then_both_other_seats_of_each_setting():
    spec = parse_spec({"name": "t", "repeats": 20, "games": [
        {"game": "chameleon", "lineups": [{"challenger": "bot:letters", "others": "bot:random"}]}]})
    lineups = {}
    for plan in spec.matches:
        game = Chameleon(plan.params)
        game.reset(plan.seed)
        roles = tuple(sorted(game.role_of(s) for s, a in enumerate(plan.seats) if a.agent == "bot:letters"))
        lineups.setdefault(game.setting_index(20), []).append((plan.params["tested_role"], roles))
    assert len(lineups) == 20 and len(spec.matches) == 40
    # as run_competition_chameleon.py: the model under test is the chameleon, or every non-chameleon
    assert all(sorted(v) == [("common", ("non-chameleon", "non-chameleon")), ("special", ("chameleon",))]
               for v in lineups.values())
    rotated = parse_spec({"name": "t", "games": [{"game": "chameleon", "lineups": [
        {"challenger": "bot:letters", "others": "bot:random", "rotate": True}]}]})
    assert [[a.agent for a in plan.seats].count("bot:letters") for plan in rotated.matches] == [1, 1, 1]


def test_outcome_is_json_and_bad_setting_is_an_error():
    json.dumps(play(0, {0: 1, 1: 0, 2: 1}).outcome())
    with pytest.raises(ValueError, match="setting"):
        Chameleon(Chameleon.resolve_params({"setting": 20})).reset(0)


def test_llm_seats_play_every_phase_through_the_stub(stub):
    import asyncio

    from engine.agents import AgentSpec
    from engine.play.playing import play_match
    from engine.play.spec import MatchPlan
    from engine.testing import StubReply

    def answer(request):
        ask = request["messages"][-1]["content"].rsplit("\n\n", 1)[-1]
        if '"clue"' in ask:
            return StubReply('{"clue": "It is a kind of thing, ' + str(len(request["messages"][-1]["content"])) + '"}')
        if "I am Player N" in ask:
            me = request["messages"][0]["content"].split("You are ", 1)[1].split(" in a game", 1)[0]
            return StubReply(f"I am {me}, my role is non-chameleon")
        if "suspects" in ask:  # keys about oneself are simply not read
            return StubReply('{"suspect": "Player 2", "Player 1 suspects": "Player 2", '
                             '"Player 2 suspects": "Player 1", "Player 3 suspects": "Player 2"}')
        if '"vote"' in ask:
            me_two = "You are Player 2" in request["messages"][0]["content"]
            return StubReply('{"vote": "Player 1"}' if me_two else '{"vote": "Player 2"}')
        return StubReply('{"guess": "Grape"}')

    stub.responder = answer
    llm = AgentSpec(agent="openai/stub-model", api_base=stub.url)
    params = Chameleon.resolve_params({"setting": 0, "role_seat": 1})
    plan = MatchPlan(match_id="cham-llm", run_id="t", game="chameleon", preset="default", params=params, seed=0,
                     repeat=0, lineup=0, seats=[llm, llm, llm])
    record = asyncio.run(play_match(plan))
    assert record.match["status"] == "ok", record.match["error"]
    phases = [t["phase"] for t in record.turns if t["seat"] is not None]
    assert phases == (["consistency"] * 3 + ["clue"] + ["belief"] * 3) * 3 + ["vote"] * 3 + ["guess"]
    assert not any(t["fallback"] for t in record.turns if t["seat"] is not None)
    assert json.loads(record.match["outcome"])["flag"] == 1  # caught, guessed Grape right
    probes = {(m["seat"], m["name"]): m["value"] for m in record.metrics}
    assert [probes[(s, "role_probes_correct")] for s in range(3)] == [3, 0, 3]  # seat 1 is the chameleon
