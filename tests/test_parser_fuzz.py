"""10,000 hostile answers per game: the parser either returns an action the game accepts or raises
ParseError, nothing else; and whole matches played by LLM agents answering garbage end with an
outcome, every bad answer counted."""

from __future__ import annotations

import asyncio
import copy
import random

import pytest

from engine import store
from engine.agents import AgentSpec
from engine.agents.llm import LLMAgent, Reply
from engine.games import all_games
from engine.games.base import ERROR, Choice, ParseError
from engine.play.playing import play_match
from engine.play.spec import MatchPlan
from tests.fuzz_answers import hostile_answer

pytestmark = pytest.mark.slow

GAMES = sorted(all_games())
ANSWERS_PER_GAME = 10_000
# MAgIC's Prisoner's Dilemma reading takes every non-empty answer (without "cooperate": a defect): it has
# nothing to reject, so its strict reading is fuzzed here (test_magic_games tests the authors' one).
FUZZED_PARAMS = {"prisoners_dilemma": {"decision_reading": "strict"}}


def _states(cls, seed: int, n: int):
    """Up to n (game, seat) decision points along a random playthrough."""
    game = cls(cls.resolve_params(FUZZED_PARAMS.get(cls.name, {})))
    game.reset(seed)
    rng = random.Random(seed)
    points = []
    while not game.done() and len(points) < n:
        seats = game.to_act()
        points.extend((copy.deepcopy(game), s) for s in seats)
        game.step({s: game.observe(s).space.sample(rng) for s in seats})
    return points


def _legal_hint(obs, rng) -> str:
    if getattr(obs.space, "json_answer", False) or getattr(obs.space, "form", "{}") != "{}":
        return obs.space.written(obs.space.sample(rng))  # the form a paper's reading takes ('{"bid": 3}', "X: 4")
    if isinstance(obs.space, Choice):
        labels = obs.space.labels or tuple(str(o) for o in obs.space.options)
        mark = obs.view.get("mark")  # a grid game reads only a stated move ("X: (1,3)"), not a cell met in prose
        return f"{mark}: {rng.choice(labels)}" if mark else rng.choice(labels)
    return str(obs.space.sample(rng))


@pytest.mark.parametrize("name", GAMES)
def test_ten_thousand_hostile_answers_never_crash_the_parser(name):
    cls = all_games()[name]
    rng = random.Random(name)
    points = _states(cls, 11, 40)
    parsed = rejected = 0
    for i in range(ANSWERS_PER_GAME):
        game, seat = points[i % len(points)]
        obs = game.observe(seat)
        text = hostile_answer(rng, _legal_hint(obs, rng))
        try:
            action = game.parse(seat, text)
        except ParseError as exc:
            assert str(exc), "a parse error must say why"
            rejected += 1
            continue
        parsed += 1
        if i % 25 == 0:  # the parsed action must be one the game accepts
            trial = copy.deepcopy(game)
            others = {s: trial.observe(s).space.sample(rng) for s in trial.to_act() if s != seat}
            trial.step({seat: action} | others)
    assert parsed + rejected == ANSWERS_PER_GAME
    assert rejected > ANSWERS_PER_GAME // 4 and parsed > 0


class GarbageLLM(LLMAgent):
    """The real LLM agent (render, parse, re-ask, fallback) with the provider swapped for hostile text."""

    def __init__(self, spec: AgentSpec, rng: random.Random):
        super().__init__(spec)
        self.rng = rng

    async def complete(self, messages, ctx) -> Reply:
        return Reply(hostile_answer(self.rng, ""), 7, 3, None, 1.0)


@pytest.mark.parametrize("name", GAMES)
def test_matches_of_garbage_answering_llms_end_with_an_outcome(name, db_path):
    cls = all_games()[name]
    params = cls.resolve_params(FUZZED_PARAMS.get(name, {}))
    n = cls.n_seats(params)
    seats = [AgentSpec(agent="openai/garbage")] * n
    plan = MatchPlan(match_id=f"fuzz-{name}", run_id="fuzz", game=name, preset="default", params=params,
                     seed=1, repeat=0, lineup=0, seats=seats)
    rng = random.Random(name)
    record = asyncio.run(play_match(plan, agent_factory=lambda spec, **_: GarbageLLM(spec, rng)))
    if cls(params).retry_policy().exhausted == ERROR:  # γ-Bench: asked until it parses, never a random move
        assert record.match["status"] == "error" and "gave no usable answer in" in record.match["error"]
        return
    assert record.match["status"] == "ok", record.match["error"]
    assert record.match["outcome"] is not None
    decisions = [t for t in record.turns if t["seat"] is not None]
    assert decisions and all(t["fallback"] or t["legal"] for t in decisions)
    assert sum(t["fallback"] for t in decisions) > 0
    invalid = sum(m["value"] for m in record.metrics if m["name"] == "invalid_answers")
    assert invalid == sum(t["retries"] + t["fallback"] for t in decisions)
    store.init_db(db_path)  # and the hostile text (lone surrogates included) is storable
    store.write_match(db_path, record.match, record.seats, record.turns, record.metrics)
    assert store.query(db_path, "SELECT count(*) AS n FROM turns")["n"][0] == len(record.turns)
