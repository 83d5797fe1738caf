"""The Games page's figures from the summaries the writer keeps (issue 28): LLMArena's hint ablation sums
`agent_summary`'s moves and illegal moves, γ-Bench's per-round curves sum `step_summary`'s step records. Over
selections and with one agent chosen, they are the figures the log gives and, for the curves, those worked out here
from the records written; after a resumed run (an errored match played again) and a re-imported match (other turns),
no match is counted twice; a rebuild from the log gives the writer's rows, and the upgrade from version 13 builds
them."""

from __future__ import annotations

import asyncio
import json
import random
from collections import defaultdict
from dataclasses import replace
from datetime import datetime, timedelta

import pandas as pd
import pytest

from engine import store
from engine.agents.agent_names import match_protocol
from engine.games.settings import setting_label
from engine.papers.gamabench import scores as gamabench
from engine.papers.llmarena import analyses as llmarena_analyses
from engine.papers.llmarena import negotiation
from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.present import queries
from engine.store import MatchRecord
from engine.store.selection import ALL, Selection
from engine.store.step_fields import seat_fields
from tests.summary_rows import (
    assert_rebuild_gives_the_writers_rows,
    assert_upgrade_builds_them,
    same_rows,
)

RUNS = ("first", "second")
HINT_GAMES = ("tictactoe", "connect_four")
STEP_GAMES = {"guessing_game": ({"players": 3}, {"players": 4}), "battle_royale": ({},), "pirate_game": ({},)}
# one label at two temperatures (two agents: None, the game's protocol's, and 0), two at one
LINEUP = (("A", 0.0), ("A", None), ("B", 0.5), ("C", 0.5))


def _seat(match_id: str, seat: int, who: tuple[str, float | None], rank: int, won: bool, game: str) -> dict:
    label, temperature = who
    protocol = match_protocol(game, {})
    return {"match_id": match_id, "seat": seat, "player": f"Player {seat + 1}", "agent": label, "label": label,
            "temperature": protocol.temperature if temperature is None else temperature, "prompt_version": "v1",
            "max_tokens": protocol.max_tokens, "score": float(rank == 1), "won": won, "rank": rank}


def at_protocol(record: MatchRecord, seat: dict) -> bool:
    """Whether the seat is A at its game's protocol temperature (the agent named "A")."""
    return seat["label"] == "A" and seat["temperature"] == match_protocol(record.match["game"], {}).temperature


def _match(match_id: str, run_id: str, game: str, params: dict, i: int, status: str) -> dict:
    finished = datetime(2025, 1, 1) + timedelta(days=i % 5)
    return {"match_id": match_id, "run_id": run_id, "game": game, "preset": ["default", "other"][i % 2],
            "params": json.dumps(params), "seed": i, "repeat": 0, "status": status,
            "error": "provider down" if status == "error" else None, "started_at": finished, "finished_at": finished,
            "outcome": "{}", "worker": "test", "rules_version": 1}


def hint_match(rng: random.Random, run_id: str, i: int, status: str = "ok") -> MatchRecord:
    """A board game between two agents (or one in self-play), won, lost or drawn, whose moves were re-asked,
    replaced by a fallback or played on a taken cell at random, the hint on, off or unsaid (on)."""
    match_id = f"{run_id}-hint-{i:03d}"
    params = rng.choice([{}, {"hint": True}, {"hint": False}])
    players = [rng.choice(LINEUP)] * 2 if rng.random() < 0.25 else rng.sample(LINEUP, 2)
    outcome = rng.choice(["first", "second", "draw"])
    game = rng.choice(HINT_GAMES)
    seats = [_seat(match_id, s, who, 1 if outcome in ("draw", ("first", "second")[s]) else 2,
                   outcome == ("first", "second")[s], game) for s, who in enumerate(players)]
    turns = []
    for turn in range(rng.randint(2, 9)):
        illegal = rng.random() < 0.15
        turns.append({"match_id": match_id, "turn": turn, "round": turn // 2 + 1, "phase": "act", "seat": turn % 2,
                      "retries": rng.choice([0, 0, 0, 1, None]), "fallback": rng.random() < 0.1,
                      "legal": not illegal,
                      "state": json.dumps({"last_move": {"cell": turn, "illegal": True}} if illegal
                                          else {"last_move": {"cell": turn}} if rng.random() < 0.7 else {}),
                      "tokens_in": 10, "tokens_out": 2, "cost_usd": 1e-5})
    return MatchRecord(_match(match_id, run_id, game, params, i, status), seats, turns)


def _record(rng: random.Random, game: str, step: int) -> dict | None:
    """A step's public record: numbers, a yes/no, the round and seats (never averaged), a list, a field some
    records lack; the Pirate Game's proposal holds no number but its proposer's seat (it is no step)."""
    if game == "pirate_game" and step % 2 == 0:
        return {"proposer": rng.randint(0, 3), "plan": [rng.randint(0, 50) for _ in range(3)]}
    record = {"round": step + 1, "mean": rng.uniform(0, 100), "passed": rng.random() < 0.5,
              "winner": rng.randint(0, 3), "choices": [rng.randint(0, 9)], "target": rng.randint(0, 3)}
    if rng.random() < 0.6:
        record["pot"] = rng.randint(0, 1000)
    return record


def step_match(rng: random.Random, run_id: str, i: int, status: str = "ok") -> MatchRecord:
    """A γ-Bench game among three or four seats, each round's record in the state of every seat's decision that
    round (one step, however many seats saw it), none before the first; matches end at different rounds; a
    fallback move in some."""
    game = rng.choice(sorted(STEP_GAMES))
    params = rng.choice(STEP_GAMES[game])
    match_id = f"{run_id}-step-{i:03d}"
    n = params.get("players", 3)
    players = [rng.choice(LINEUP)] * n if rng.random() < 0.3 else [rng.choice(LINEUP) for _ in range(n)]
    seats = [_seat(match_id, s, who, 1 + (s > 0), s == 0, game) for s, who in enumerate(players)]
    turns, turn, last = [], 0, None
    for step in range(rng.randint(1, 5)):
        for seat in range(n):
            turns.append({"match_id": match_id, "turn": turn, "round": step + 1, "phase": "act", "seat": seat,
                          "retries": 0, "fallback": rng.random() < 0.03, "legal": True,
                          "state": json.dumps({"round": step + 1, "last": last})})
            turn += 1
        last = _record(rng, game, step)
    turns.append({"match_id": match_id, "turn": turn, "round": None, "phase": "end", "seat": None,
                  "state": json.dumps({"last": last})})  # the moderator's: no step of its own
    return MatchRecord(_match(match_id, run_id, game, params, i, status), seats, turns)


def write_run(db, run_id: str, seed: int) -> list[MatchRecord]:
    """A run's matches through the writer as a resumed run writes them: one errored, then the batch sent again
    (the errored one played again, the others left alone), then an `ok` match re-imported with other turns."""
    rng = random.Random(seed)
    store.upsert_run(db, run_id, run_id, {}, "engine", 0)
    records = [make(rng, run_id, i) for i in range(40) for make in (hint_match, step_match)]
    errored = [replace(records[0], match=records[0].match | {"status": "error", "error": "provider down"}),
               replace(records[1], match=records[1].match | {"status": "error", "error": "provider down"})]
    assert store.write_matches(db, [*errored, *records[2:]]) == len(records)
    assert store.write_matches(db, records) == 2
    for maker, old in ((hint_match, records[2]), (step_match, records[3])):
        again = maker(random.Random(seed + 100), run_id, int(old.match["seed"]))
        assert again.match["match_id"] == old.match["match_id"] and again.turns != old.turns
        store.write_match(db, again.match, again.seats, again.turns, again.metrics)
        records[records.index(old)] = again
    return records


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    db = tmp_path_factory.mktemp("games_summaries") / "results.duckdb"
    store.init_db(db)
    stored = [record for n, run_id in enumerate(RUNS) for record in write_run(db, run_id, n)]
    assert store.summaries_in_step(db)
    return db, stored


def logged(monkeypatch, compute):
    """`compute()` with the summaries out of the way: read from the log."""
    with monkeypatch.context() as patched:
        patched.setattr(store, "summaries_in_step", lambda db: False)
        return compute()


def chosen_agent(db) -> str:
    """An agent as the Games page's picker names it: a label played at two temperatures names both."""
    agents = list(queries.agents(db, settings=True)["agent"])
    assert {"A", "A (t=0.0)", "B (t=0.5)"} <= set(agents)  # settings shown where not the defaults
    return "A"


def selections(db) -> dict[str, Selection]:
    return {"every match": ALL, "one run": Selection(run_ids=(RUNS[1],)), "one preset": Selection(presets=("other",)),
            "no fallback move": Selection(without_fallbacks=True), "one agent": Selection(agents=(chosen_agent(db),)),
            "one agent, one run": Selection(agents=("B (t=0.5)",), run_ids=(RUNS[0],))}


def test_the_hint_ablation_of_one_agent_is_its_rows_only(written):
    db, stored = written
    agent = chosen_agent(db)
    mine = llmarena_analyses.hint_ablation(db, selection=Selection(agents=(agent,)))
    every = llmarena_analyses.hint_ablation(db)
    assert set(mine["agent"]) == {agent}
    same_rows(mine, every[every["agent"] == agent].reset_index(drop=True))
    # its moves counted from the records written: every turn of its seats, self-play included
    moves = sum(1 for r in stored if r.match["status"] == "ok" and r.match["game"] in HINT_GAMES
                for t in r.turns if at_protocol(r, r.seats[t["seat"]]))
    assert mine["moves"].sum() == moves


def expected_curves(stored: list[MatchRecord], game: str, keep) -> pd.DataFrame:
    """The curves worked out from the records written (the last attempt of each match), as γ-Bench's figure
    defines them: per match its distinct records in play order, their numbers that are no seat and no round (a
    yes/no as 0/1), the steps holding one numbered from 1; per setting and step the matches reaching it and each
    number's mean over the matches whose record holds it."""
    sums: dict = defaultdict(lambda: [0, 0.0])
    reached: dict = defaultdict(int)
    for record in stored:
        match = record.match
        if match["status"] != "ok" or match["game"] != game or not keep(record):
            continue
        setting = setting_label(game, match["preset"], match["params"])
        seen = []
        for turn in record.turns:
            last = json.loads(turn["state"]).get("last")
            if turn["seat"] is not None and last is not None and last not in seen:
                seen.append(last)
        numbered = [{k: float(v) for k, v in last.items() if isinstance(v, int | float) and k not in
                     seat_fields(game) | {"round"}} for last in seen]
        for step, numbers in enumerate((n for n in numbered if n), start=1):
            reached[setting, step] += 1
            for name, value in numbers.items():
                sums[setting, step, name][0] += 1
                sums[setting, step, name][1] += value
    rows = [{"setting": setting, "step": step, "matches": n} | {
        name: total / count for (s, t, name), (count, total) in sums.items() if (s, t) == (setting, step)}
        for (setting, step), n in sorted(reached.items())]
    frame = pd.DataFrame(rows)
    return frame[["setting", "step", "matches", *sorted(frame.columns[3:])]]


def test_the_round_curves_are_the_records_from_the_summary_and_from_the_log(written, monkeypatch):
    db, stored = written
    agent = chosen_agent(db)
    keeps = {"every match": lambda r: True, "one run": lambda r: r.match["run_id"] == RUNS[1],
             "one preset": lambda r: r.match["preset"] == "other",
             "no fallback move": lambda r: not any(t.get("fallback") for t in r.turns),
             "one agent": lambda r: any(at_protocol(r, s) for s in r.seats),
             "one agent, one run": lambda r: r.match["run_id"] == RUNS[0] and any(s["label"] == "B"
                                                                                 for s in r.seats)}
    assert selections(db)["one agent"].agents == (agent,)
    for name, selection in selections(db).items():
        for game in STEP_GAMES:
            chosen = selection.of_game(game)
            summed = gamabench.round_curves(db, chosen)
            from_log = logged(monkeypatch, lambda s=chosen: gamabench.round_curves(db, s))
            want = expected_curves(stored, game, keeps[name])
            assert not want.empty, (name, game)
            for curves in (summed, from_log):
                same_rows(curves.astype({"matches": "int64", "step": "int64"}), want)


def test_a_rebuild_from_the_log_gives_the_writers_rows(written, tmp_path):
    db, _ = written
    kept = assert_rebuild_gives_the_writers_rows(db, tmp_path, ("agent_summary", "step_summary"))
    assert kept["agent_summary"]["illegal"].sum() > 0
    assert kept["step_summary"]["label"].isna().any() and kept["step_summary"]["name"].isna().any()


def test_the_upgrade_from_version_13_builds_them(written, tmp_path):
    assert_upgrade_builds_them(written[0], tmp_path, 13, ("DROP TABLE step_summary",
                                                          "ALTER TABLE agent_summary DROP COLUMN illegal"),
                               ("agent_summary", "step_summary"))


PER_AGENT = {"connect_four_rewards": llmarena_analyses.connect_four_rewards,
             "poker_action_win_prob": llmarena_analyses.poker_action_win_prob,
             "poker_actions_by_win_prob": llmarena_analyses.poker_actions_by_win_prob,
             "hanabi_action_shares": llmarena_analyses.hanabi_action_shares,
             "bargain_table": negotiation.bargain_table, "bid_table": negotiation.bid_table}


def test_an_agents_row_of_the_every_model_view_is_its_row_over_its_own_matches(tmp_path):
    """What the Games page shows of one model (`agents_rows`): its row of the view of every match, which the run
    command kept, is the row the selection of its matches gives (computed here without the view)."""
    db = tmp_path / "bots.duckdb"
    spec = parse_spec({"name": "bots", "seed": 3, "repeats": 2, "games": [
        {"game": "connect_four", "lineups": [["bot:minimax", "bot:random"], ["bot:random", "bot:random"]]},
        {"game": "texas_holdem", "lineups": [["bot:hand_strength", "bot:random"], ["bot:random", "bot:random"]]},
        {"game": "hanabi", "lineups": [{"all": "bot:hint_follower"}, {"all": "bot:random"}]},
        {"game": "bid", "lineups": [["bot:equilibrium", "bot:truthful"], ["bot:truthful", "bot:truthful"]]},
        {"game": "bargain", "lineups": [["bot:fair", "bot:always_accept"], ["bot:fair", "bot:fair"]]}]})
    assert asyncio.run(run_spec(spec, db, progress=False)).errors == 0
    for name, scorer in PER_AGENT.items():
        every = scorer(db)
        for agent in every["agent"].unique():
            mine = Selection(agents=(agent,))
            own = scorer.__wrapped__(db, selection=mine)  # over the matches the filter picks, no view kept
            pd.testing.assert_frame_equal(scorer(db, selection=mine),
                                          own[own["agent"] == agent].reset_index(drop=True), obj=f"{name} {agent}")
        assert every["agent"].nunique() > 1 and (scorer(db, selection=Selection(agents=("nobody",))).empty), name
