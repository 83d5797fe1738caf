"""Our response cache: a re-run replays for free with cached=true, a changed prompt or temperature
misses, and a run that died half-way re-asks nothing already answered when resumed."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from engine import store
from engine.agents.cache import ResponseCache, cache_from_env, cache_key
from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.testing import StubReply


@pytest.fixture
def cache_file(tmp_path, monkeypatch):
    path = tmp_path / "cache" / "responses.sqlite"
    monkeypatch.setenv("ARENA_CACHE", str(path))
    return path


def guessing(url: str, **seat) -> dict:
    llm = {"agent": "openai/gpt-4o-mini", "api_base": url, "temperature": 1.0} | seat
    return {"name": "cached", "seed": 2, "repeats": 2, "games": [{
        "game": "guessing_game", "params": {"players": 2, "rounds": 2}, "lineups": [{"all": llm}]}]}


def numbered(req) -> StubReply:
    """A different answer on every call, so a replay can be told from a new answer."""
    numbered.n += 1
    return StubReply(f'{{"chosen_number": {numbered.n % 90}}}', prompt_tokens=100, completion_tokens=10)


def run(raw: dict, db) -> None:
    summary = asyncio.run(run_spec(parse_spec(raw), db, progress=False))
    assert summary.errors == 0, summary.error_messages


def decisions(db):
    return store.query(db, "SELECT * FROM turns WHERE seat IS NOT NULL ORDER BY match_id, turn")


def test_rerunning_a_spec_replays_every_answer_at_zero_cost(stub, tmp_path, cache_file):
    numbered.n = 0
    stub.responder = numbered
    run(guessing(stub.url), tmp_path / "first.duckdb")
    asked = len(stub.requests)
    assert asked == 2 * 2 * 2
    run(guessing(stub.url), tmp_path / "second.duckdb")
    assert len(stub.requests) == asked  # nothing asked again
    first, second = decisions(tmp_path / "first.duckdb"), decisions(tmp_path / "second.duckdb")
    assert list(first["response"]) == list(second["response"]) and list(first["action"]) == list(second["action"])
    assert not first["cached"].any() and (first["cost_usd"] > 0).all()
    assert second["cached"].all() and (second["cost_usd"] == 0).all()
    assert (second["tokens_in"] == 100).all() and (second["tokens_out"] == 10).all()
    assert cache_file.exists() and len(ResponseCache(cache_file)) == asked


@pytest.mark.parametrize("change", [{"temperature": 0.7}, {"prompt_version": "v3"}, {"max_tokens": 64}])
def test_a_changed_prompt_or_sampling_parameter_misses(stub, tmp_path, cache_file, change):
    numbered.n = 0
    stub.responder = numbered
    run(guessing(stub.url), tmp_path / "first.duckdb")
    asked = len(stub.requests)
    run(guessing(stub.url, **change), tmp_path / "changed.duckdb")
    assert len(stub.requests) == 2 * asked
    assert not decisions(tmp_path / "changed.duckdb")["cached"].any()


def first_free_cell(req) -> StubReply:
    """A TicTacToe player that takes the first free cell the prompt lists."""
    text = req["messages"][-1]["content"]
    mark = re.search(r"You play (\w)", text).group(1)
    cell = re.search(r"place your mark on: \[(\(\d,\d\))", text).group(1)
    return StubReply(f"{mark}: {cell}")


def test_resuming_a_run_that_died_mid_match_reasks_nothing_already_answered(stub, db_path, cache_file):
    seat = {"agent": "openai/stub-model", "api_base": stub.url, "temperature": 1.0}
    raw = {"name": "resume", "seed": 4, "games": [{"game": "tictactoe", "lineups": [{"all": seat}]}]}

    def dies_after_three(req):
        return first_free_cell(req) if len(stub.requests) <= 3 else StubReply("gone", status=400)

    stub.responder = dies_after_three
    first = asyncio.run(run_spec(parse_spec(raw), db_path, progress=False))
    assert first.errors == 1 and len(stub.requests) == 4  # three answers, then the provider broke

    stub.responder = first_free_cell
    run(raw, db_path)
    turns = decisions(db_path)
    moves = len(turns)
    assert moves == 7  # X takes the diagonal (1,3), (2,2), (3,1) on the 7th move
    assert len(stub.requests) == 4 + (moves - 3)  # only the unanswered moves were asked
    assert list(turns["cached"]) == [True] * 3 + [False] * (moves - 3)
    assert store.query(db_path, "SELECT status FROM matches")["status"].tolist() == ["ok"]


def test_the_cache_can_be_turned_off(stub, tmp_path, monkeypatch):
    monkeypatch.setenv("ARENA_CACHE", "off")
    assert cache_from_env() is None
    stub.responder = lambda req: StubReply('{"chosen_number": 3}')
    run(guessing(stub.url), tmp_path / "a.duckdb")
    run(guessing(stub.url), tmp_path / "b.duckdb")
    assert len(stub.requests) == 2 * 8 and not decisions(tmp_path / "b.duckdb")["cached"].any()


def test_the_key_covers_model_endpoint_messages_parameters_and_sample():
    base = ("openai/m", None, [{"role": "user", "content": "hi"}], {"temperature": 1.0}, (1, 0, 3))
    variants = [
        ("openai/other",) + base[1:],
        base[:1] + ("http://elsewhere/v1",) + base[2:],
        base[:2] + ([{"role": "user", "content": "hi!"}],) + base[3:],
        base[:3] + ({"temperature": 0.9},) + base[4:],
        base[:4] + ((2, 0, 3),), base[:4] + ((1, 1, 3),), base[:4] + ((1, 0, 4),),
    ]
    keys = {cache_key(*v) for v in variants}
    assert len(keys) == len(variants) and cache_key(*base) not in keys
    assert cache_key(*base) == cache_key(*base)


def test_concurrent_use_from_many_tasks_keeps_every_answer(tmp_path):
    from engine.agents.cache import CachedReply

    cache = ResponseCache(tmp_path / "c.sqlite")

    async def one(i: int) -> CachedReply | None:
        await cache.aput(f"k{i}", "m", CachedReply(json.dumps(i), i, i + 1, None))
        return await cache.aget(f"k{i}")

    async def many():
        return await asyncio.gather(*(one(i) for i in range(300)))

    got = asyncio.run(many())
    assert [g.text for g in got] == [json.dumps(i) for i in range(300)] and len(cache) == 300
    assert ResponseCache(tmp_path / "c.sqlite").get("k7") == CachedReply("7", 7, 8, None)  # a second connection
