"""The LLM agent end to end through litellm against a local OpenAI-compatible stub server:
canned, malformed and slow replies, and a failing provider whose match is replayed on resume."""

from __future__ import annotations

import asyncio
import json

import pytest

from engine import store
from engine.agents.llm import LLMAgent
from engine.games.gamabench_common import MAX_TRIES
from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.testing import StubReply

pytestmark = pytest.mark.slow


def llm_spec(url: str, **game) -> dict:
    seat = {"agent": "openai/stub-model", "api_base": url, "temperature": 0.0, "max_tokens": 32}
    entry = {"game": "guessing_game", "params": {"players": 3, "rounds": 2}, "lineups": [{"all": seat}]} | game
    return {"name": "stub", "seed": 1, "repeats": 2, "games": [entry]}


def fast_agent(spec, limits=None, **_):
    return LLMAgent(spec, limits, timeout=1.0, transport_retries=2, backoff_base=0.01)


def decisions(db):
    return store.query(db, "SELECT * FROM turns WHERE seat IS NOT NULL ORDER BY match_id, turn")


def test_canned_replies_are_recorded_raw_with_tokens_latency_and_null_cost(stub, db_path):
    stub.responder = lambda req: StubReply('{"chosen_number": 20}', prompt_tokens=50, completion_tokens=7)
    summary = asyncio.run(run_spec(parse_spec(llm_spec(stub.url)), db_path, progress=False))
    assert summary.errors == 0
    turns = decisions(db_path)
    assert len(turns) == 2 * 2 * 3 == len(stub.requests)
    assert (turns["response"] == '{"chosen_number": 20}').all()
    assert json.loads(turns["action"][0]) == {"action": 20}
    assert (turns["tokens_in"] == 50).all() and (turns["tokens_out"] == 7).all()
    assert turns["cost_usd"].isna().all()  # no price known for the stub model: NULL, not a crash
    assert (turns["latency_ms"] > 0).all() and turns["legal"].all() and (turns["retries"] == 0).all()
    sent = [r["messages"] for r in stub.requests]
    assert all(json.loads(p) in sent for p in turns["prompt"])  # exactly what the model was sent
    assert stub.requests[0]["temperature"] == 0.0 and stub.requests[0]["max_tokens"] == 32
    seats = store.query(db_path, "SELECT DISTINCT agent, prompt_version, strategy, temperature FROM seats")
    assert seats.to_dict("records") == [{"agent": "openai/stub-model", "prompt_version": "v1",
                                         "strategy": "vanilla", "temperature": 0.0}]


def test_malformed_reply_is_reasked_once_then_accepted(stub, db_path):
    asked: dict[str, int] = {}

    def responder(req):  # γ-Bench's authors ask the same question again: the second ask of a question answers
        question = json.dumps(req["messages"])
        asked[question] = asked.get(question, 0) + 1
        return StubReply('{"chosen_number": 42}' if asked[question] == 2 else "I would rather not say.")

    stub.responder = responder
    asyncio.run(run_spec(parse_spec(llm_spec(stub.url) | {"repeats": 1}), db_path, progress=False))
    turns = decisions(db_path)
    assert (turns["retries"] == 1).all() and turns["legal"].all() and not turns["fallback"].any()
    assert (turns["response"] == '{"chosen_number": 42}').all()
    assert 'no JSON object with "chosen_number"' in turns["error"][0]
    assert len(stub.requests) == 2 * len(turns) and set(asked.values()) == {2}
    invalid = store.query(db_path, "SELECT sum(value) AS n FROM metrics WHERE name = 'invalid_answers'")["n"][0]
    assert invalid == len(turns)


def test_always_malformed_ends_the_match_as_an_error_after_the_cap(stub, db_path):
    """γ-Bench's authors ask until the answer parses and never play a random move: past the cap, an error."""
    stub.responder = lambda req: StubReply('{"chosen_number": "lots"}')
    summary = asyncio.run(run_spec(parse_spec(llm_spec(stub.url)), db_path, progress=False))
    assert summary.errors == 2
    errors = store.query(db_path, "SELECT error FROM matches")["error"]
    assert all(f"no usable answer in {MAX_TRIES} tries" in e for e in errors)
    assert len(stub.requests) == 2 * 3 * MAX_TRIES  # each match: its three players asked at once, then the end


def test_slow_then_failing_provider_errors_the_match_and_resume_replays_it(stub, db_path):
    stub.responder = lambda req: StubReply('{"chosen_number": 5}', delay=3.0)  # beyond the 1 s timeout
    spec = parse_spec(llm_spec(stub.url, params={"players": 2, "rounds": 1}) | {"repeats": 1})
    first = asyncio.run(run_spec(spec, db_path, progress=False, agent_factory=fast_agent))
    assert first.errors == 1
    match = store.query(db_path, "SELECT status, error FROM matches").iloc[0]
    assert match["status"] == "error" and "Timeout" in match["error"] and "3 attempt" in match["error"]
    assert store.query(db_path, "SELECT status FROM runs")["status"][0] == "error"

    stub.responder = lambda req: StubReply('{"chosen_number": 5}')
    second = asyncio.run(run_spec(spec, db_path, progress=False, agent_factory=fast_agent))
    assert (second.skipped, second.played, second.errors) == (0, 1, 0)
    final = store.query(db_path, "SELECT count(*) AS n, min(status) AS s FROM matches").iloc[0]
    assert (final["n"], final["s"]) == (1, "ok")
    assert store.query(db_path, "SELECT count(*) AS n FROM turns WHERE seat IS NOT NULL")["n"][0] == 2


def test_server_errors_are_retried_until_the_provider_recovers(stub, db_path):
    calls = {"n": 0}

    def flaky(req):
        calls["n"] += 1
        return StubReply("", status=503) if calls["n"] % 2 else StubReply('{"chosen_number": 7}')

    stub.responder = flaky
    spec = parse_spec(llm_spec(stub.url, params={"players": 2, "rounds": 2}) | {"repeats": 1})
    summary = asyncio.run(run_spec(spec, db_path, progress=False, agent_factory=fast_agent))
    assert summary.errors == 0
    assert len(decisions(db_path)) == 4 and len(stub.requests) == 8


def test_tictactoe_three_tries_then_a_random_legal_move_and_a_taken_cell_loses(stub, db_path):
    def responder(req):
        if "You play X" in "".join(m["content"] for m in req["messages"]):
            return StubReply("I will not say.")  # never parseable: 3 tries, then a random legal move
        return StubReply("O: (1,1)")  # always the corner: taken by X's random move or by O's own first one

    stub.responder = responder
    spec = llm_spec(stub.url, game="tictactoe", params={})
    spec["repeats"] = 1
    asyncio.run(run_spec(parse_spec(spec), db_path, progress=False))
    turns = decisions(db_path)
    x, o = turns[turns["seat"] == 0], turns[turns["seat"] == 1]
    assert len(x) >= 1 and x["fallback"].all() and (x["retries"] == 2).all()
    # O's taken corner is played, not re-asked, and ends the game as O's loss
    assert (o["retries"] == 0).all() and not o["fallback"].any()
    assert json.loads(o["state"].iloc[-1])["last_move"]["illegal"] is True
    assert json.loads(store.query(db_path, "SELECT outcome FROM matches")["outcome"][0])["illegal_move_by"] == 1
    assert list(store.query(db_path, "SELECT won FROM seats ORDER BY seat")["won"]) == [True, False]


def test_turn_progress_hears_every_decision_and_counts_an_unbelievable_token_count_as_none(stub, db_path):
    """What `--progress-file` counts comes from the runner: every decision, bots' too; a provider's impossible
    token count is unknown in the turn log (NULL) and adds nothing to the live figures, instead of a crash."""
    from engine.serve.launch.live import TurnTally

    stub.responder = lambda req: StubReply('{"chosen_number": 20}', prompt_tokens=-5, completion_tokens=7)
    seat = {"agent": "openai/stub-model", "api_base": stub.url, "max_tokens": 32}
    spec = llm_spec(stub.url, lineups=[[seat, seat, "bot:random"]])
    tally = TurnTally(db_path.parent / "progress.json")
    summary = asyncio.run(run_spec(parse_spec(spec), db_path, progress=False, on_turn=tally.record))
    assert summary.errors == 0
    turns = decisions(db_path)
    assert turns["tokens_in"].isna().sum() == len(stub.requests) == 2 * 2 * 2
    assert (tally.turns, tally.llm_turns, tally.matches_started) == (len(turns), 8, 2) == (12, 8, 2)
    assert (tally.tokens_in, tally.tokens_out, tally.unpriced_calls) == (0, 8 * 7, 8)
