"""Each game's retry policy, as the match loop applies it to the real LLM agent (its provider swapped for a script):
how often a seat is asked, what a re-ask says, what happens when the tries run out or an action is illegal, and
what the turn records. LLMArena's policies follow the authors' code; `retry: feedback` is the arena's own."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from functools import partial

from engine import store
from engine.agents import AgentSpec, make_agent
from engine.agents.llm import LLMAgent, Reply
from engine.games import get_game
from engine.papers import headline
from engine.play.playing import play_match
from engine.play.spec import MatchPlan, seat_name
from engine.present import transcripts
from engine.store import MatchRecord

Script = Callable[[int, list[dict[str, str]]], str]  # (seat, messages) -> the answer


class ScriptedLLM(LLMAgent):
    """The real LLM agent (render, parse, re-ask, fallback) answering from a script; every call is kept."""

    def __init__(self, spec: AgentSpec, script: Script, calls: list):
        super().__init__(spec, use_cache=False)
        self.script, self.calls = script, calls

    async def complete(self, messages, ctx) -> Reply:
        self.calls.append((ctx.seat, ctx.turn, messages))
        return Reply(self.script(ctx.seat, messages), 7, 3, None, 1.0)


def play(game: str, script: Script, seed: int = 1, **params) -> tuple[MatchRecord, list]:
    cls = get_game(game)
    resolved = cls.resolve_params(params)
    seats = [AgentSpec(agent="openai/scripted")] * cls.n_seats(resolved)
    plan = MatchPlan(match_id=f"retry-{game}", run_id="retry", game=game, preset="default", params=resolved,
                     seed=seed, repeat=0, lineup=0, seats=seats)
    calls: list = []
    record = asyncio.run(play_match(plan, agent_factory=lambda spec, **_: ScriptedLLM(spec, script, calls)))
    assert record.match["status"] == "ok", record.match["error"]
    return record, calls


def decisions(record: MatchRecord) -> list[dict]:
    return [t for t in record.turns if t["seat"] is not None]


def retry_note(turn: dict) -> dict | None:
    return (json.loads(turn["action"]).get("extra") or {}).get("retry")


def asks_per_turn(calls: list) -> list[int]:
    counts: dict[tuple[int, int], int] = {}
    for seat, turn, _ in calls:
        counts[seat, turn] = counts.get((seat, turn), 0) + 1
    return list(counts.values())


def test_tictactoe_asks_the_same_question_three_times_then_moves_at_random():
    record, calls = play("tictactoe", lambda seat, messages: "I am not sure.")
    assert set(asks_per_turn(calls)) == {3}
    first_turn = [m for seat, turn, m in calls if turn == calls[0][1]]
    assert first_turn[0] == first_turn[1] == first_turn[2]  # the model is not told its error
    for turn in decisions(record):
        assert turn["fallback"] and turn["retries"] == 2
        assert retry_note(turn) == {"policy": "authors", "tries": 3, "outcome": "random action"}


def test_the_feedback_policy_tells_the_model_its_error():
    record, calls = play("tictactoe", lambda seat, messages: "I am not sure.", retry="feedback")
    reask = calls[1][2]
    assert "could not be used" in reask[-1]["content"] and len(reask) == len(calls[0][2]) + 2
    assert retry_note(decisions(record)[0])["policy"] == "feedback"


def test_grid_prompts_carry_no_history_unless_asked():
    moves = iter(["X: (1,1)", "O: (2,2)", "X: (1,2)", "O: (3,3)", "X: (1,3)"])
    _, calls = play("tictactoe", lambda seat, messages: next(moves))
    assert not any("What has happened so far" in m[-1]["content"] for _, _, m in calls)
    moves = iter(["X: (1,1)", "O: (2,2)", "X: (1,2)", "O: (3,3)", "X: (1,3)"])
    _, calls = play("tictactoe", lambda seat, messages: next(moves), history=True)
    assert "What has happened so far" in calls[1][2][-1]["content"]


def test_holdem_an_illegal_action_loses_the_hand_at_once():
    script = {0: "Action: All in", 1: "Action: Raise Full Pot"}  # no raise is legal against an all-in
    record, calls = play("texas_holdem", lambda seat, messages: script[seat])
    assert len(calls) == 2  # not asked again
    illegal = decisions(record)[-1]
    assert illegal["seat"] == 1 and not illegal["legal"] and not illegal["fallback"]
    assert json.loads(illegal["action"])["action"] == "raise_pot"
    assert retry_note(illegal)["outcome"] == "forfeit (illegal action)"
    won = {s["seat"]: s["won"] for s in record.seats}
    assert won == {0: True, 1: False} and json.loads(record.match["outcome"])["illegal_action_by"] == 1


def test_holdem_with_feedback_asks_again_after_an_illegal_action():
    answers = {0: iter(["Action: All in"]), 1: iter(["Action: Raise Full Pot", "Action: Check and Call"])}
    record, calls = play("texas_holdem", lambda seat, messages: next(answers[seat]), retry="feedback")
    assert len(calls) == 3 and "not allowed now" in calls[-1][2][-1]["content"]
    assert json.loads(record.match["outcome"])["illegal_action_by"] is None


def test_tictactoe_a_taken_cell_loses_at_once_and_is_no_valid_answer():
    moves = {0: iter(["X: (2,2)"]), 1: iter(["O: (2,2)"])}
    record, calls = play("tictactoe", lambda seat, messages: next(moves[seat]))
    assert len(calls) == 2
    illegal = decisions(record)[-1]
    assert not illegal["legal"] and retry_note(illegal)["outcome"] == "forfeit (illegal action)"
    assert json.loads(illegal["state"])["last_move"]["illegal"] is True
    assert json.loads(record.match["outcome"]) == {"winner": "X", "moves": 1, "illegal_move_by": 1}


def test_bid_asks_once_and_an_answer_without_a_bid_is_zero():
    record, calls = play("bid", lambda seat, messages: "I would rather wait.")
    assert asks_per_turn(calls) == [1, 1]
    for turn in decisions(record):
        assert json.loads(turn["action"])["action"] == 0.0 and turn["fallback"]
        assert retry_note(turn) == {"policy": "authors", "tries": 1, "outcome": "fixed action"}


def test_bid_above_the_valuation_loses_the_auction():
    script = {0: "player_0: $0.50", 1: '{"bid": 999}'}
    record, calls = play("bid", lambda seat, messages: script[seat])
    assert len(calls) == 2
    outcome = json.loads(record.match["outcome"])
    assert outcome["illegal_bid_by"] == [1] and outcome["bids"] is None and outcome["winner"] == 0
    assert {s["seat"]: (s["won"], s["score"]) for s in record.seats} == {0: (True, 0.0), 1: (False, 0.0)}


def test_hanabi_bargain_and_llmarena_undercover_ask_once_then_act_at_random():
    for game, params in (("hanabi", {}), ("bargain", {}), ("undercover", {"rules": "llmarena", "players": 5,
                                                                         "words": "llmarena", "probes": False})):
        record, calls = play(game, lambda seat, messages: "", **params)
        assert set(asks_per_turn(calls)) == {1}, game
        assert all(t["fallback"] and retry_note(t)["tries"] == 1 for t in decisions(record)), game


def test_magic_undercover_keeps_three_tries_told_the_error():
    record, calls = play("undercover", lambda seat, messages: "")
    assert set(asks_per_turn(calls)) == {3}
    assert retry_note(decisions(record)[0]) == {"policy": "feedback", "tries": 3, "outcome": "random action"}


def test_a_first_try_answer_carries_no_retry_note():
    moves = iter(["X: (1,1)", "O: (2,2)", "X: (1,2)", "O: (3,3)", "X: (1,3)"])
    record, _ = play("tictactoe", lambda seat, messages: next(moves))
    assert all(retry_note(t) is None for t in decisions(record))


def test_a_valid_answer_is_parsed_and_legal_on_the_first_try_on_the_headline_and_in_transcripts(db_path):
    """One definition (engine.store.valid_answers): a decision answered right only when asked again, or replaced by a
    fallback move, is no valid answer (the headline counted a re-asked one as valid)."""
    answers = iter(["first legal", "dunno", "first legal", "dunno", "dunno", "dunno"])

    def script(seat, messages):
        answer = next(answers, "first legal")
        if answer != "first legal":
            return answer
        free = re.search(r"\[(\(\d,\d\))", messages[-1]["content"]).group(1)  # the hint lists the free cells
        return f"X: {free}"

    cls = get_game("tictactoe")
    params = cls.resolve_params({})
    # the seat at LLMArena's protocol, as a spec seats it: its name is the bare model's
    protocol = {"temperature": cls.protocol_settings(params).temperature,
                "max_tokens": cls.protocol_settings(params).max_tokens}
    plan = MatchPlan(match_id="valid", run_id="valid", game="tictactoe", preset="default", params=params, seed=2,
                     repeat=0, lineup=0,
                     seats=[AgentSpec(agent="openai/scripted", **protocol), AgentSpec(agent="bot:random")])
    calls: list = []
    factory = partial(make_agent_or_script, script=script, calls=calls)
    record = asyncio.run(play_match(plan, agent_factory=factory))
    mine = [t for t in decisions(record) if t["seat"] == 0]
    assert [(t["retries"], t["fallback"]) for t in mine[:3]] == [(0, False), (1, False), (2, True)]
    store.init_db(db_path)
    store.write_match(db_path, record.match, record.seats, record.turns, record.metrics)
    figures = headline.agent_figures(db_path).set_index("agent")
    first_try = sum(1 for t in mine if not t["retries"] and not t["fallback"] and t["legal"])
    model = seat_name(plan.seats[0], plan)
    assert figures.loc[model, "valid_rate"] == first_try / len(mine) < (len(mine) - 1) / len(mine)
    assert figures.loc["bot:random", "valid_rate"] == 1.0
    found = transcripts.find_matches(db_path, transcripts.MatchSearch(parse_failures=True))
    assert found["parse_failures"].tolist() == [len(mine) - first_try]


def make_agent_or_script(spec: AgentSpec, script: Script, calls: list, **kwargs):
    return make_agent(spec, **kwargs) if spec.is_bot else ScriptedLLM(spec, script, calls)


def test_gamabench_asks_until_parsed_and_keeps_the_arenas_policy_as_a_parameter():
    cls = get_game("guessing_game")
    assert cls(cls.resolve_params({})).retry_policy().exhausted == "error"  # the authors' (test_agent_stub plays it)
    record, calls = play("guessing_game", lambda seat, messages: "about half", players=2, rounds=1, retry="feedback")
    assert set(asks_per_turn(calls)) == {3} and all(t["fallback"] for t in decisions(record))
    assert "could not be used" in calls[-1][2][-1]["content"]

