"""Prompt versions v1..v5 (same facts and answer format, other words; a new file is a new version)
and the strategy overlays vanilla, cot, persona:<name> and pgm (belief first, stored on the turn)."""

from __future__ import annotations

import asyncio
import json
import shutil

import pytest

from engine import store
from engine.agents import prompting, strategies
from engine.agents.prompting import load_template, render, versions
from engine.games import get_game
from engine.play.runner import run_spec
from engine.play.spec import SpecError, parse_spec
from engine.testing import StubReply

GAMES = {  # game -> (distinctive params, the facts every wording states, the answer format it asks for)
    "guessing_game": ({"players": 7, "rounds": 13, "min": 3, "max": 77}, ["3", "77", "2/3", "13"],
                      '"chosen_number"'),
    "prisoners_dilemma": ({"rounds": 9, "cooperate": 2.5, "defect": 1.5, "one_defect": 6.5, "two_defect": 3.5},
                          ["9", "2.5", "1.5", "6.5", "3.5", '"cooperate"', '"defect"'], '{"action": "<your choice>"}'),
    "tictactoe": ({}, ["(1,1)", "(3,3)", ". | . | .", "place your mark on: [(1,1)"], 'X: (<row>,<column>)"'),
}


def first_observation(game: str):
    g = get_game(game)(GAMES[game][0])
    g.reset(0)
    return g.observe(g.to_act()[0])


@pytest.mark.parametrize("game", sorted(GAMES))
def test_five_wordings_with_the_same_facts_and_answer_format(game):
    _, facts, answer = GAMES[game]
    assert versions(game)[:5] == ["v1", "v2", "v3", "v4", "v5"]
    obs = first_observation(game)
    phases = set(load_template(game, "v1"))
    systems = set()
    for version in versions(game):
        assert set(load_template(game, version)) == phases, version  # the same decisions are asked
        system, user = render(obs, version)
        text = system["content"] + "\n" + user["content"]
        assert all(fact in text for fact in facts), (version, [f for f in facts if f not in text])
        assert answer in user["content"], version
        systems.add(system["content"])
    assert len(systems) == len(versions(game))  # really reworded


def test_a_new_version_is_a_new_file(tmp_path, monkeypatch):
    shutil.copytree(prompting.PROMPTS_DIR, tmp_path / "prompts")
    (tmp_path / "prompts" / "guessing_game" / "v6.yaml").write_text(
        "system: 'Player {player}: guess a whole number in [{min}, {max}] close to {ratio_text} of the mean.'\n"
        "choose: 'Round {round}. Last line: {{\"chosen_number\": N}}'\n", encoding="utf-8")
    monkeypatch.setattr(prompting, "PROMPTS_DIR", tmp_path / "prompts")
    load_template.cache_clear()
    try:
        assert "v6" in versions("guessing_game")
        assert render(first_observation("guessing_game"), "v6")[0]["content"].startswith("Player Player 1: guess")
        parse_spec({"name": "v6", "games": [{"game": "guessing_game", "lineups": [
            {"all": {"agent": "openai/m", "prompt_version": "v6"}}]}]})
    finally:
        load_template.cache_clear()


def test_cot_and_personas_change_the_prompt_around_the_games_wording():
    obs = first_observation("prisoners_dilemma")
    base = render(obs, "v1")
    assert strategies.apply("vanilla", base, obs) == base
    cot = strategies.apply("cot", base, obs)
    assert cot[1]["content"] == base[1]["content"] + "\n\n" + strategies.COT and cot[0] == base[0]
    for name in ("cooperative", "selfish", "mathematician"):
        persona = strategies.apply(f"persona:{name}", base, obs)
        assert persona[0]["content"] == strategies.PERSONAS[name] + "\n\n" + base[0]["content"]
        assert persona[1] == base[1]
    free = strategies.apply("persona:a retired chess champion", base, obs)
    assert "Your character: a retired chess champion." in free[0]["content"]
    assert base == render(obs, "v1")  # the overlays never change the messages they were given


@pytest.mark.parametrize("strategy, message", [("persona", "needs a value"), ("telepathy", "unknown strategy"),
                                               ("persona:", "needs a value")])
def test_a_bad_strategy_is_a_spec_error_naming_the_known_ones(strategy, message):
    raw = {"name": "bad", "games": [{"game": "tictactoe", "lineups": [
        {"all": {"agent": "openai/m", "strategy": strategy}}]}]}
    with pytest.raises(SpecError, match=message) as err:
        parse_spec(raw)
    if message == "unknown strategy":
        assert all(name in str(err.value) for name in ("vanilla", "cot", "persona:<name>", "pgm"))


def test_pgm_asks_the_two_hop_belief_first_and_stores_it_on_the_turn(stub, db_path):
    belief = "As Player 1, I think Player 2 will defect, because ... I think Player 2 thinks Player 1 cooperates."

    def responder(req):
        asked = req["messages"][-1]["content"]
        if "Do not decide yet" in asked:
            return StubReply(belief, prompt_tokens=30, completion_tokens=20)
        return StubReply('{"action": "defect"}', prompt_tokens=60, completion_tokens=5)

    stub.responder = responder
    seat = {"agent": "openai/stub-model", "api_base": stub.url, "strategy": "pgm"}
    raw = {"name": "pgm", "seed": 1, "games": [{"game": "prisoners_dilemma", "params": {"rounds": 2},
                                                "lineups": [[seat, "bot:tit_for_tat", "bot:random"]]}]}
    assert asyncio.run(run_spec(parse_spec(raw), db_path, progress=False)).errors == 0
    assert len(stub.requests) == 2 * 2  # a belief and a decision per round
    belief_ask, decision_ask = stub.requests[0]["messages"], stub.requests[1]["messages"]
    assert "what do you believe that player thinks about you" in belief_ask[-1]["content"]
    assert decision_ask[:-2] == belief_ask  # the decision is asked in the same conversation...
    assert decision_ask[-2] == {"role": "assistant", "content": belief}  # ...with the belief in context
    assert decision_ask[-1]["content"].startswith("Now make your decision")
    turns = store.query(db_path, "SELECT * FROM turns WHERE seat = 0 ORDER BY turn")
    assert len(turns) == 2
    for _, turn in turns.iterrows():
        assert json.loads(turn["action"]) == {"action": "defect", "extra": {"belief": belief}}
        assert (turn["tokens_in"], turn["tokens_out"]) == (90, 25)
        assert json.loads(turn["prompt"])[-2]["content"] == belief
    assert store.query(db_path, "SELECT strategy FROM seats WHERE seat = 0")["strategy"][0] == "pgm"


def test_a_game_can_word_its_own_probe(monkeypatch):
    own = strategies.Probe(key="belief", question=lambda obs, arg: "Who holds the odd word?", decide="Now vote.")
    monkeypatch.setitem(strategies.PROBES, ("pgm", "tictactoe"), own)
    assert strategies.find_probe("pgm", "tictactoe") == (own, None)
    assert strategies.find_probe("pgm", "guessing_game")[0].question(first_observation("guessing_game"), None) \
        .startswith("Do not decide yet")
    assert strategies.find_probe("cot", "tictactoe") is None
