"""LLMArena's analyses over a database: hand-built matches with known answers, then bot matches played
and stored by the runner, to check that what the games store is what the queries read."""

from __future__ import annotations

import asyncio
import json

import pytest

from engine import store
from engine.papers.llmarena import analyses
from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.store.selection import Selection


def write(db, match_id, game, params, seats, turns=(), metrics=()):
    """seats: [(agent, won, score)]; turns: [(seat, retries, fallback, state)]; metrics: [(seat, name, value)]."""
    store.init_db(db)
    match = {"match_id": match_id, "run_id": "r", "game": game, "preset": "default", "params": json.dumps(params),
             "seed": 0, "repeat": 0, "status": "ok", "error": None, "started_at": store.now(),
             "finished_at": store.now(), "outcome": "{}"}
    seat_rows = [{"match_id": match_id, "seat": i, "player": f"P{i}", "agent": agent, "label": agent, "won": won,
                  "score": score, "rank": 1} for i, (agent, won, score) in enumerate(seats)]
    turn_rows = [{"match_id": match_id, "turn": i, "seat": seat, "phase": "move", "retries": retries,
                  "fallback": fallback, "legal": not fallback, "state": json.dumps(state),
                  "reward": (state.get("last_move") or {}).get("reward")}
                 for i, (seat, retries, fallback, state) in enumerate(turns)]
    metric_rows = [{"match_id": match_id, "seat": s, "name": n, "value": v} for s, n, v in metrics]
    store.write_match(db, match, seat_rows, turn_rows, metric_rows)


def test_hint_ablation_splits_win_rate_and_illegal_moves_by_hint(db_path):
    write(db_path, "a", "tictactoe", {"hint": True}, [("m1", True, 1.0), ("m2", False, 0.0)],
          [(0, 0, False, {}), (1, 0, True, {}), (0, 1, False, {}), (1, 0, False, {}), (0, 0, False, {})])
    write(db_path, "b", "tictactoe", {"hint": False}, [("m2", True, 1.0), ("m1", False, 0.0)],
          [(0, 0, False, {}), (1, 2, False, {}), (0, 0, False, {}), (1, 0, True, {})])
    write(db_path, "c", "prisoners_dilemma", {}, [("m1", True, 1.0)], [(0, 3, False, {})])
    df = analyses.hint_ablation(db_path).set_index(["agent", "hint"])
    assert set(df.index) == {("m1", True), ("m1", False), ("m2", True), ("m2", False)}
    m1_hint, m1_blind = df.loc[("m1", True)], df.loc[("m1", False)]
    assert (m1_hint["win_rate"], m1_hint["moves"], m1_hint["illegal_moves"]) == (1.0, 3, 1)
    assert m1_hint["illegal_move_rate"] == pytest.approx(1 / 3)
    assert (m1_blind["win_rate"], m1_blind["illegal_move_rate"]) == (0.0, 1.0)
    assert df.loc[("m2", True)]["illegal_move_rate"] == pytest.approx(1 / 2)


def test_connect_four_rewards_per_move_and_per_game(db_path):
    def move(seat, reward):
        return (seat, 0, False, {"last_move": {"seat": seat, "reward": reward}})

    write(db_path, "a", "connect_four", {"hint": True}, [("m1", True, 1.0), ("m2", False, 0.0)],
          [move(0, 2), move(1, -2), move(0, 5), move(1, 4)])
    write(db_path, "b", "connect_four", {"hint": True}, [("m1", False, 0.0), ("m2", True, 1.0)],
          [move(0, 0), move(1, 7)])
    df = analyses.connect_four_rewards(db_path).set_index("agent")
    assert df.loc["m1", "moves"] == 3 and df.loc["m1", "mean_reward_per_move"] == pytest.approx(7 / 3)
    assert df.loc["m1", "mean_reward_per_game"] == pytest.approx(3.5)
    assert df.loc["m2", "mean_reward_per_game"] == pytest.approx(4.5) and df.loc["m2", "games"] == 2


def test_poker_actions_against_win_probability(db_path):
    write(db_path, "a", "texas_holdem", {"hint": True}, [("m1", True, 4.0), ("m2", False, -4.0)],
          metrics=[(0, "win_prob:raise_pot", 0.9), (1, "win_prob:call", 0.3), (0, "win_prob:raise_pot", 0.7),
                   (1, "win_prob:fold", 0.1), (0, "decisions", 2.0)])
    df = analyses.poker_action_win_prob(db_path).set_index(["agent", "action"])
    assert df.loc[("m1", "raise_pot"), "decisions"] == 2 and df.loc[("m1", "raise_pot"), "share"] == 1.0
    assert df.loc[("m1", "raise_pot"), "mean_win_prob"] == pytest.approx(0.8)
    assert df.loc[("m2", "fold"), "share"] == 0.5 and len(df) == 3
    bins = analyses.poker_actions_by_win_prob(db_path)
    low = bins[(bins["agent"] == "m2") & (bins["win_prob_bin"] == "(-0.001, 0.2]")]
    assert low[["action", "share"]].values.tolist() == [["fold", 1.0]]


def test_hanabi_shares_of_play_reveal_and_discard(db_path):
    counts = {0: (2, 5, 3), 1: (1, 1, 2)}
    write(db_path, "a", "hanabi", {"hint": True}, [("m1", False, 6.0), ("m2", False, 6.0)],
          metrics=[(s, f"hanabi_{k}", float(n)) for s, c in counts.items()
                   for k, n in zip(("play", "reveal", "discard"), c, strict=True)])
    df = analyses.hanabi_action_shares(db_path).set_index("agent")
    assert df.loc["m1", "actions"] == 10 and df.loc["m1", "play_share"] == pytest.approx(0.2)
    assert df.loc["m1", "reveal_share"] == pytest.approx(0.5) and df.loc["m2", "discard_share"] == pytest.approx(0.5)
    assert df.loc["m2", "mean_score"] == 6.0


def test_empty_database_gives_empty_tables(db_path):
    for fn in (analyses.hint_ablation, analyses.connect_four_rewards, analyses.poker_action_win_prob,
               analyses.poker_actions_by_win_prob, analyses.hanabi_action_shares):
        assert fn(db_path).empty


def test_bot_matches_stored_by_the_runner_feed_every_analysis(db_path):
    spec = parse_spec({"name": "t", "seed": 1, "repeats": 2, "games": [
        {"game": "connect_four", "presets": ["default", "no_hint"], "lineups": [["bot:minimax", "bot:random"]]},
        {"game": "texas_holdem", "lineups": [["bot:hand_strength", "bot:random"]]},
        {"game": "hanabi", "lineups": [{"all": "bot:hint_follower"}]}]})
    summary = asyncio.run(run_spec(spec, db_path, progress=False))
    assert summary.errors == 0
    ablation = analyses.hint_ablation(db_path, ("connect_four",))
    assert len(ablation) == 4 and ablation["illegal_move_rate"].eq(0).all()
    assert ablation.groupby("hint")["matches"].sum().to_dict() == {False: 4, True: 4}
    rewards = analyses.connect_four_rewards(db_path).set_index("agent")
    assert rewards.loc["bot:minimax", "mean_reward_per_move"] > rewards.loc["bot:random", "mean_reward_per_move"]
    decisions = store.query(db_path, "SELECT count(*) AS n FROM turns t JOIN matches m USING (match_id) "
                                     "WHERE m.game = 'texas_holdem' AND t.seat IS NOT NULL")["n"][0]
    assert analyses.poker_action_win_prob(db_path)["decisions"].sum() == decisions
    shares = analyses.hanabi_action_shares(db_path)
    assert shares.loc[0, ["play_share", "reveal_share", "discard_share"]].sum() == pytest.approx(1.0)
    assert shares.loc[0, "mean_score"] > 0


def test_every_analysis_reads_only_the_selected_runs(db_path):
    def play(name, repeats, preset):
        spec = parse_spec({"name": name, "seed": 2, "repeats": repeats, "games": [
            {"game": "connect_four", "preset": preset, "lineups": [["bot:minimax", "bot:random"]]},
            {"game": "texas_holdem", "lineups": [["bot:hand_strength", "bot:random"]]},
            {"game": "hanabi", "lineups": [{"all": "bot:hint_follower"}]}]})
        assert asyncio.run(run_spec(spec, db_path, progress=False)).errors == 0
        return Selection(run_ids=(spec.run_id,))

    first, second = play("first", 2, "default"), play("second", 1, "no_hint")
    assert analyses.hint_ablation(db_path, ("connect_four",), selection=first)["hint"].tolist() == [True, True]
    assert analyses.hint_ablation(db_path, ("connect_four",), selection=second)["hint"].tolist() == [False, False]
    assert analyses.hint_ablation(db_path, ("connect_four",))["matches"].sum() == 2 * (2 + 1)
    nobody = Selection(run_ids=("no-such-run",))
    for per_game in (analyses.connect_four_rewards, analyses.hanabi_action_shares):
        assert per_game(db_path)["games"].max() == 3 and per_game(db_path, selection=second)["games"].max() == 1
        assert per_game(db_path, selection=nobody).empty
    assert analyses.poker_action_win_prob(db_path, selection=nobody).empty
    decisions = store.query(db_path, "SELECT count(*) AS n FROM turns t JOIN matches m USING (match_id) WHERE "
                                     "m.game = 'texas_holdem' AND t.seat IS NOT NULL AND m.run_id = ?",
                            [second.run_ids[0]])["n"][0]
    assert analyses.poker_action_win_prob(db_path, selection=second)["decisions"].sum() == decisions
    assert analyses.poker_actions_by_win_prob(db_path, selection=second)["decisions"].sum() == decisions
