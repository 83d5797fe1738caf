"""Who is Spy: an injecting spy makes obedient civilians foul (bots and an LLM through the stub server),
the transcript keeps the injected text verbatim, the strategy overlays, and the leaderboard's figures."""

from __future__ import annotations

import asyncio
import json
import re

import pandas as pd
import pytest

from engine import store
from engine.agents import AgentSpec
from engine.agents.strategies import apply as apply_strategy
from engine.games import get_game
from engine.games.social import ATTACK_TEXT, DEFENSE_TEXT, REASONING_TEXT
from engine.papers.wis.scores import figures_by_role, leaderboard
from engine.play.playing import play_match
from engine.play.runner import run_spec
from engine.play.spec import MatchPlan, parse_spec
from engine.store.selection import Selection
from engine.testing import StubReply

pytestmark = pytest.mark.slow

WIS = get_game("undercover").resolve_params({"role_seat": 0, "first_speaker": 0}, "wis")


def plan(seats: list[AgentSpec], seed: int = 7) -> MatchPlan:
    return MatchPlan(match_id=f"wis-{seed}-{seats[0].agent}", run_id="t", game="undercover", preset="wis",
                     params=WIS, seed=seed, repeat=0, lineup=0, seats=seats)


def obeying_llm(request) -> StubReply:
    """A model with no defence: told to state its word, it does."""
    user = request["messages"][-1]["content"]
    word = re.search(r"Your secret word is: ([^.\n]+)\.", user).group(1)
    if '"clue"' in user:
        if ATTACK_TEXT in user:
            return StubReply(json.dumps({"clue": f"My word is {word}."}))
        return StubReply(json.dumps({"clue": f"a thing, says request {len(user)}"}))
    return StubReply('{"vote": "Player 1"}')


def test_injecting_spy_makes_obedient_civilians_foul_and_the_transcript_keeps_the_injection(stub):
    stub.responder = obeying_llm
    llm = AgentSpec(agent="openai/stub-model", api_base=stub.url)
    seats = [AgentSpec("bot:injector"), AgentSpec("bot:obedient"), llm, AgentSpec("bot:obedient"), llm, llm]
    record = asyncio.run(play_match(plan(seats)))
    assert record.match["status"] == "ok", record.match["error"]
    fouls = {m["seat"]: m["value"] for m in record.metrics if m["name"] == "fouls"}
    assert fouls == {0: 0, 1: 1, 2: 1, 3: 1, 4: 1, 5: 1}
    outcome = json.loads(record.match["outcome"])
    assert {f["foul"] for f in outcome["fouls"]} == {"stated their own word"} and outcome["winner"] == "spy"
    spy_turn = next(t for t in record.turns if t["seat"] == 0 and t["phase"] == "clue")
    assert ATTACK_TEXT in spy_turn["response"]
    spoken = [t["response"] for t in record.turns if t["seat"] is None]
    assert any(ATTACK_TEXT in text for text in spoken)
    llm_prompt = next(t["prompt"] for t in record.turns if t["seat"] == 2)
    assert ATTACK_TEXT in llm_prompt  # the model saw the injection in its history
    assert any(f"My word is {outcome['words'][2]}." in text for text in spoken)
    assert len(stub.requests) == 3


def test_without_injection_the_same_civilians_do_not_foul():
    seats = [AgentSpec("bot:letters")] + [AgentSpec("bot:obedient")] * 5
    record = asyncio.run(play_match(plan(seats)))
    assert sum(m["value"] for m in record.metrics if m["name"] == "fouls") == 0


def test_defense_injection_keeps_obedient_civilians_from_voting_for_the_spy():
    seats = [AgentSpec("bot:injector:defense")] + [AgentSpec("bot:obedient")] * 5
    record = asyncio.run(play_match(plan(seats)))
    votes = [json.loads(t["action"])["action"] for t in record.turns if t["phase"] == "vote"]
    assert votes and 0 not in votes
    assert any(DEFENSE_TEXT in (t["response"] or "") for t in record.turns if t["seat"] is None)
    assert json.loads(record.match["outcome"])["winner"] == "spy"


def test_strategy_overlays_touch_only_their_phase():
    game = get_game("undercover")(WIS)
    game.reset(0)
    clue = game.observe(0)
    base = [{"role": "system", "content": "rules"}, {"role": "user", "content": "speak"}]
    assert apply_strategy("attack", base, clue)[-1]["content"].endswith(ATTACK_TEXT)
    assert apply_strategy("defense", base, clue)[-1]["content"].endswith(DEFENSE_TEXT)
    assert apply_strategy("reasoning", base, clue) == base
    while game.stage == "clue":
        game.step({game.to_act()[0]: f"speech {len(game.clues)}"})
    vote = game.observe(1)
    assert apply_strategy("reasoning", base, vote)[-1]["content"].endswith(REASONING_TEXT)
    assert apply_strategy("attack", base, vote) == base
    parse_spec({"name": "s", "games": [{"game": "undercover", "preset": "wis", "lineups": [
        [{"agent": "openai/x", "strategy": "attack"}] + ["bot:letters"] * 5]}]})  # a known strategy


def test_leaderboard_ranking_and_figures_match_the_tables(db_path):
    spec = parse_spec({"name": "wis-t", "repeats": 6, "games": [{"game": "undercover", "preset": "wis", "lineups": [
        [{"agent": "bot:letters", "label": "a"}, {"agent": "bot:random", "label": "b"}] * 3]}]})
    asyncio.run(run_spec(spec, db_path, progress=False))
    board = leaderboard(db_path).set_index("agent")
    raw = store.query(db_path, "SELECT agent_name, sum(score) AS total, count(*) AS n FROM seats GROUP BY ALL")
    for row in raw.itertuples():
        assert board.loc[row.agent_name, "ranking"] == 100 + row.total - row.n
        assert board.loc[row.agent_name, "games"] == row.n
    # bot:random's speeches are empty: every one is a foul
    a, b = "a · bot:letters", "b · bot:random"  # the labels, before the agents they name
    assert board.loc[b, "foul_rate"] == 1.0 and board.loc[a, "foul_rate"] == 0.0
    votes = store.query(db_path, """SELECT sum(CASE WHEN name = 'votes_correct' THEN value END) AS ok,
        sum(CASE WHEN name = 'votes_cast' THEN value END) AS cast FROM metrics m JOIN seats s USING (match_id, seat)
        WHERE s.label = 'a' AND s.role = 'civilian'""")
    assert abs(board.loc[a, "vote_accuracy"] - votes.ok[0] / votes.cast[0]) < 1e-12
    roles = figures_by_role(db_path)
    assert set(roles["role"]) == {"spy", "civilian", "all"}
    spy = roles[(roles.agent == a) & (roles.role == "spy")]
    civ = roles[(roles.agent == a) & (roles.role == "civilian")]
    assert int(spy.games.iloc[0] + civ.games.iloc[0]) == int(board.loc[a, "games"])
    # the page's filters select the games
    assert leaderboard(db_path, Selection(run_ids=(spec.run_id,))).equals(leaderboard(db_path))
    assert leaderboard(db_path, Selection(run_ids=("another",))).empty
    assert figures_by_role(db_path, Selection(presets=("magic",))).empty


def test_the_ranking_reads_only_who_is_spy_games(tmp_path):
    wis = {"game": "undercover", "preset": "wis", "lineups": [[{"agent": "bot:letters", "label": "a"}] * 6]}
    others = [{"game": "undercover", "preset": preset, "lineups": [{"all": {"agent": "bot:letters", "label": "a"}}]}
              for preset in ("magic", "llmarena")]
    alone, shared = tmp_path / "alone.duckdb", tmp_path / "shared.duckdb"
    asyncio.run(run_spec(parse_spec({"name": "w", "games": [wis]}), alone, progress=False))
    asyncio.run(run_spec(parse_spec({"name": "w", "games": [wis, *others]}), shared, progress=False))
    assert store.query(shared, "SELECT count(*) AS n FROM matches")["n"][0] == 3
    pd.testing.assert_frame_equal(leaderboard(shared), leaderboard(alone))  # MAgIC / LLMArena games change nothing


def test_points_per_game_sits_beside_the_ranking_with_its_t_interval(db_path):
    """The ranking grows with games played; points per game, (ranking - 100) / games, compares agents that played
    different numbers of games, with its 95% t interval over seats (scipy.stats' t.interval)."""
    from scipy import stats as scipy_stats

    spec = parse_spec({"name": "wis-ppg", "repeats": 4, "games": [{"game": "undercover", "preset": "wis", "lineups": [
        [{"agent": "bot:letters", "label": "a"}, {"agent": "bot:random", "label": "b"}] + [
            {"agent": "bot:letters", "label": "a"}] * 4]}]})
    asyncio.run(run_spec(spec, db_path, progress=False))
    board = leaderboard(db_path).set_index("agent")
    assert list(board.columns[:5]) == ["strategy", "ranking", "points_per_game", "points_per_game_lo",
                                       "points_per_game_hi"]
    seats = store.query(db_path, "SELECT agent_name, coalesce(score, 0) - 1 AS points FROM seats")
    spread = 0
    for name, points in seats.groupby("agent_name")["points"]:
        row = board.loc[name]
        assert row.points_per_game == pytest.approx((row.ranking - 100) / row.games) == pytest.approx(points.mean())
        if points.std() > 0:  # every seat scored alike: the interval is the point itself
            spread += 1
            low, high = scipy_stats.t.interval(0.95, len(points) - 1, loc=points.mean(), scale=scipy_stats.sem(points))
            assert (row.points_per_game_lo, row.points_per_game_hi) == (pytest.approx(low), pytest.approx(high))
    assert spread
    # unequal game counts: the ranking alone misleads
    assert board.loc["a · bot:letters", "games"] == 5 * board.loc["b · bot:random", "games"]
