"""Faults and limits through litellm against the stub: 30% of calls failing with 429, 5xx or a
timeout still end with every match ok and every turn exactly once; Retry-After is honoured, and one that
is neither seconds nor a date is the usual backoff; a provider that never recovers errors the match, which
resume plays again; calls in flight are bounded per model; a reply is cut at its cap while it is read, so a
run stays within 1 GB and its deadline whatever an endpoint sends."""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from engine import store
from engine.agents import AgentSpec
from engine.agents.llm import LLMAgent, retry_after
from engine.play import playing
from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.testing import StubReply

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parent.parent

TIMEOUT = 0.4
FAULTS = {
    "429": lambda: StubReply("slow down", status=429, headers={"Retry-After": "0"}),
    "5xx": lambda: StubReply("", status=random.choice([500, 502, 503, 504])),
    "timeout": lambda: StubReply('{"chosen_number": 1}', delay=TIMEOUT * 2.5),
}


def quick_agent(spec, limits=None, **_):
    """The production agent with test-sized waits: the stub's silence is cut at TIMEOUT (the first-byte timeout);
    the whole-call deadline stays loose, so a good answer slowed by a busy machine is not thrown away."""
    return LLMAgent(spec, limits, timeout=10 * TIMEOUT, first_byte_timeout=TIMEOUT, transport_retries=10,
                    backoff_base=0.005, backoff_cap=0.05)


def spec_for(url: str, players: int = 3, rounds: int = 3, repeats: int = 4) -> dict:
    seat = {"agent": "openai/stub-model", "api_base": url, "temperature": 1.0}
    return {"name": "faults", "seed": 11, "repeats": repeats, "games": [{
        "game": "guessing_game", "params": {"players": players, "rounds": rounds}, "lineups": [{"all": seat}]}]}


@pytest.mark.parametrize("kind", sorted(FAULTS))
def test_thirty_percent_faults_of_each_kind_end_with_every_match_ok(stub, db_path, kind):
    rng, lock, served = random.Random(kind), threading.Lock(), {"ok": 0, "fault": 0}

    def faulty(req):
        with lock:
            fault = rng.random() < 0.3
            served["fault" if fault else "ok"] += 1
        return FAULTS[kind]() if fault else StubReply('{"chosen_number": 21}')

    stub.responder = faulty
    summary = asyncio.run(run_spec(parse_spec(spec_for(stub.url)), db_path, progress=False,
                                   agent_factory=quick_agent))
    assert summary.errors == 0, summary.error_messages
    assert served["fault"] >= 5  # faults really happened
    assert store.query(db_path, "SELECT count(*) AS n FROM matches WHERE status = 'ok'")["n"][0] == 4
    turns = store.query(db_path, "SELECT match_id, round, seat, turn, response FROM turns WHERE seat IS NOT NULL")
    assert len(turns) == 4 * 3 * 3  # no turn lost...
    assert not turns.duplicated(["match_id", "round", "seat"]).any()  # ...or doubled
    assert not turns.duplicated(["match_id", "turn"]).any() and (turns["response"] == '{"chosen_number": 21}').all()
    if kind != "timeout":  # a timed-out call may still be answered after the client gave up
        assert served["ok"] == len(turns)  # exactly one good answer per turn was asked for


def test_retry_after_is_honoured(stub, db_path):
    seen: list[float] = []

    def limited_once(req):
        seen.append(time.monotonic())
        return StubReply("", status=429, headers={"Retry-After": "1"}) if len(seen) == 1 else \
            StubReply('{"chosen_number": 4}')

    stub.responder = limited_once
    summary = asyncio.run(run_spec(parse_spec(spec_for(stub.url, players=2, rounds=1, repeats=1)),
                                   db_path, progress=False, concurrency=1, agent_factory=quick_agent))
    assert summary.errors == 0
    assert seen[-1] - seen[0] >= 1.0  # the 5 ms backoff alone would not wait a second


def test_retry_after_headers_in_all_their_forms():
    class Failed(Exception):
        def __init__(self, headers):
            self.litellm_response_headers = headers

    future = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() + 30))
    assert retry_after(Failed({"retry-after": "7"})) == 7.0
    assert retry_after(Failed({"retry-after-ms": "250"})) == 0.25
    assert 25 < retry_after(Failed({"retry-after": future})) <= 30
    assert retry_after(Failed({"x-other": "1"})) is None and retry_after(ValueError("no headers")) is None
    assert retry_after(Failed({"retry-after": "Wed, 21 Oct 2015 07:28:00"})) == 0.0  # a date past, no zone


@pytest.mark.parametrize("value", ["soon", "", "Mon, 99 Foo 2026", "1e999x", "-", "\u00e9t\u00e9"])
def test_a_malformed_retry_after_is_no_ask_and_the_call_is_made_again(stub, value):
    """It raised inside the retry handler (`parsedate_to_datetime`): the match errored at once, and its error
    was the whole traceback, with the provider's text in it."""
    class Failed(Exception):
        def __init__(self, headers):
            self.litellm_response_headers = headers

    assert retry_after(Failed({"retry-after": value})) is None
    stub.responder = lambda req: StubReply("slow down", status=429, headers={"Retry-After": value}) if len(
        stub.requests) == 1 else StubReply('{"chosen_number": 4}')
    agent = quick_agent(AgentSpec("openai/stub-model", api_base=stub.url))
    reply = asyncio.run(agent.call([{"role": "user", "content": "a number?"}], {}))
    assert (reply.text, reply.failed_calls, len(stub.requests)) == ('{"chosen_number": 4}', 1, 2)


def test_a_provider_that_never_recovers_errors_the_match_and_resume_plays_it_again(stub, db_path):
    stub.responder = lambda req: StubReply("overloaded", status=429)
    raw = spec_for(stub.url, players=2, rounds=2, repeats=1)
    first = asyncio.run(run_spec(parse_spec(raw), db_path, progress=False, agent_factory=quick_agent))
    assert first.errors == 1
    match = store.query(db_path, "SELECT status, error FROM matches").iloc[0]
    assert match["status"] == "error" and "RateLimitError" in match["error"] and "11 attempt(s)" in match["error"]
    stub.responder = lambda req: StubReply('{"chosen_number": 8}')
    second = asyncio.run(run_spec(parse_spec(raw), db_path, progress=False, agent_factory=quick_agent))
    assert (second.played, second.errors) == (1, 0)
    assert store.query(db_path, "SELECT status FROM matches")["status"].tolist() == ["ok"]
    assert store.query(db_path, "SELECT count(*) AS n FROM turns WHERE seat IS NOT NULL")["n"][0] == 4


def test_calls_in_flight_are_bounded_per_model_with_overrides(stub, db_path, monkeypatch):
    monkeypatch.setattr(playing, "RAMP_S", 0.0)  # every match at once, so the bounds are reached
    lock, in_flight, peak = threading.Lock(), {}, {}

    def slow(req):
        model = req["model"]
        with lock:
            in_flight[model] = in_flight.get(model, 0) + 1
            peak[model] = max(peak.get(model, 0), in_flight[model])
        time.sleep(0.15)
        with lock:
            in_flight[model] -= 1
        return StubReply('{"chosen_number": 5}')

    stub.responder = slow
    a = {"agent": "openai/model-a", "api_base": stub.url}
    b = {"agent": "openai/model-b", "api_base": stub.url}
    raw = {"name": "limits", "seed": 1, "repeats": 3, "concurrency": 6, "model_concurrency": 3,
           "model_limits": {"openai/model-a": 1},
           "games": [{"game": "guessing_game", "params": {"players": 4, "rounds": 1}, "lineups": [[a, a, b, b]]}]}
    assert asyncio.run(run_spec(parse_spec(raw), db_path, progress=False)).errors == 0
    assert peak == {"model-a": 1, "model-b": 3}  # the stub sees the name without the provider prefix


FLOODED = {
    "an answer": lambda size: StubReply("x", flood=size),
    "a body without the usual fields": lambda size: StubReply("x", flood=size, bare=True),
    "a 5xx body": lambda size: StubReply("overloaded", status=503, flood=size),
}
BOUNDED_RUN = """
import resource, runpy, sys
resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
sys.argv = ["engine", "run", *sys.argv[1:]]
runpy.run_module("engine", run_name="__main__")
"""


@pytest.mark.parametrize("kind", sorted(FLOODED))
def test_a_reply_of_gigabytes_is_cut_at_the_cap_within_1_gb_and_the_deadline(stub, tmp_path, kind):
    """1.5 GB streamed: a call read it whole before its size was checked (20 GB of memory), and a body without the
    usual fields kept litellm's parsing busy past every deadline. `engine run` plays a match against it in a
    process of its own whose peak memory is measured; its address space is bounded (4 GB) so that a broken cap
    fails the test, not the machine."""
    stub.responder = lambda req: FLOODED[kind](1_500_000_000)
    spec = tmp_path / "flood.yaml"
    spec.write_text(json.dumps({"name": "flood", "seed": 1, "match_deadline_s": 100, "games": [
        {"game": "guessing_game", "params": {"players": 2, "rounds": 1},
         "lineups": [{"all": {"agent": "openai/flood", "api_base": stub.url}}]}]}), encoding="utf-8")
    db, log = tmp_path / "results.duckdb", tmp_path / "log.txt"
    env = os.environ | {"ARENA_CACHE": "off", "OPENAI_API_KEY": "sk-test-flood-0123456789"}
    start = time.monotonic()
    with log.open("w") as output:
        child = subprocess.Popen([sys.executable, "-c", BOUNDED_RUN, str(spec), "--db", str(db), "--workers", "1",
                                  "--quiet"], cwd=ROOT, stdout=output, stderr=subprocess.STDOUT, env=env)
        overdue = threading.Timer(150, child.kill)  # a run that outlives its match's deadline fails, not hangs
        overdue.start()
        _, status, usage = os.wait4(child.pid, 0)  # the peak memory of this child alone
        overdue.cancel()
    elapsed = time.monotonic() - start
    assert os.waitstatus_to_exitcode(status) == 1, log.read_text()[-2000:]  # the match errored, nothing else
    assert usage.ru_maxrss < 1 << 20, f"peak RSS {usage.ru_maxrss // 1024} MB"  # kB: under 1 GB
    (error,) = [e for (e,) in store.rows(db, "SELECT error FROM matches")]
    assert "the cap on an answer" in error and "6 attempt(s)" in error, error  # every attempt cut at the cap
    assert elapsed < 100  # within the match's deadline, let alone the calls' (120 s each)
