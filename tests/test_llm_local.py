"""The embedded real model (local/smollm2, llama-cpp-python) plays a short match through the same
agent path as any provider: no network, no key, its real answers in the turn log, free."""

from __future__ import annotations

import asyncio
import json

import pytest

from engine import store
from engine.agents import local_model
from engine.play.runner import run_spec
from engine.play.spec import parse_spec

pytestmark = pytest.mark.model


def test_smollm2_is_installed_where_make_installs_it():
    assert local_model.is_available("smollm2"), local_model.INSTALL_HINT
    assert local_model.model_file("smollm2").stat().st_size > 50_000_000


def test_smollm2_plays_a_short_match_and_its_answers_are_recorded(db_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # no key needed
    seat = {"agent": "local/smollm2", "temperature": 0.0, "max_tokens": 12}
    raw = {"name": "local", "seed": 3, "games": [{
        "game": "guessing_game", "params": {"players": 2, "rounds": 1}, "lineups": [[seat, "bot:random"]]}]}
    summary = asyncio.run(run_spec(parse_spec(raw), db_path, progress=False))
    assert summary.errors == 0
    turn = store.query(db_path, "SELECT * FROM turns WHERE seat = 0").iloc[0]
    assert turn["response"].strip()  # the model's own words
    messages = json.loads(turn["prompt"])
    assert messages[0]["role"] == "system" and "2/3" in messages[0]["content"]
    assert turn["tokens_in"] > 50 and 0 < turn["tokens_out"] <= 12 * (turn["retries"] + 1)
    assert turn["cost_usd"] == 0.0 and not turn["cached"]
    assert 0 <= json.loads(turn["action"])["action"] <= 100
    seat_row = store.query(db_path, "SELECT agent, prompt_version, strategy FROM seats WHERE seat = 0").iloc[0]
    assert seat_row.to_dict() == {"agent": "local/smollm2", "prompt_version": "v1", "strategy": "vanilla"}


def test_an_unknown_local_model_is_refused_by_the_spec_and_errors_a_match_given_it():
    """A spec names the known local models before anything plays; a match handed such a seat anyway (a plan built
    in code) errors with the same reason, after one attempt."""
    from dataclasses import replace

    from engine.play.playing import play_match
    from engine.play.spec import SpecError

    def raw(model: str) -> dict:
        return {"name": "local-missing", "games": [{"game": "guessing_game", "params": {"players": 2, "rounds": 1},
                                                    "lineups": [[{"agent": model}, "bot:random"]]}]}

    with pytest.raises(SpecError, match=r"unknown local model 'local/no-such-model' \(known: local/smollm2\)"):
        parse_spec(raw("local/no-such-model"))
    plan = parse_spec(raw("local/smollm2")).matches[0]
    plan = replace(plan, seats=[replace(plan.seats[0], agent="local/no-such-model"), plan.seats[1]])
    record = asyncio.run(play_match(plan))
    assert record.match["status"] == "error"
    assert "unknown local model 'local/no-such-model'" in record.match["error"] and "1 attempt" in record.match["error"]


