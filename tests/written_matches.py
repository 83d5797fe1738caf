"""Matches written through the writer as a study's would be, without playing them: every table's rows, drawn from a
seed, with what the per-run totals and the per-match scores read varied (tokens, priced and unpriced calls,
moderator turns, labels at several settings, self-play holding every seat, γ-Bench's match scores). A batch is
written with one match errored, then sent again as a resume does (the errored one replayed, the others left
alone), and one `ok` match re-imported with other figures (`replace`)."""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta

from engine import store
from engine.store import MatchRecord

# (game, params): two settings of a γ-Bench game (a match score), a board game, a social game's rule set
GAMES = (("guessing_game", {"players": 3}), ("guessing_game", {"players": 4}), ("tictactoe", {}),
         ("undercover", {"rules": "wis"}))
LABELS = ("A", "B", "C")


def _settings(rng: random.Random) -> dict:
    return {"prompt_version": rng.choice(["v1", "v2"]), "temperature": rng.choice([0.0, 1.0]),
            "strategy": rng.choice(["vanilla", "cot"]), "max_tokens": rng.choice([256, 256, 64])}


def _turns(rng: random.Random, match_id: str, seats: int, priced: bool) -> list[dict]:
    """Two calls a seat (unless `priced`, a fifth without a price: no cost for tokens in) and a moderator's turn,
    whose tokens no seat spent."""
    turns = []
    for turn, seat in enumerate([*range(seats), *range(seats), None]):
        tokens_in = rng.randint(0, 400)
        turns.append({"match_id": match_id, "turn": turn, "round": 1, "phase": "act", "seat": seat,
                      "tokens_in": tokens_in, "tokens_out": rng.choice([None, rng.randint(0, 80)]),
                      "cost_usd": None if not priced and rng.random() < 0.2 else tokens_in * 1e-6, "fallback": False})
    return turns


def drawn(rng: random.Random, run_id: str, i: int, status: str = "ok", priced: bool = False) -> MatchRecord:
    """Match number `i` of the run."""
    game, params = rng.choice(GAMES)
    match_id = f"{run_id}-{i:04d}"
    n = params.get("players", 2 if game == "tictactoe" else 4)
    if rng.random() < 0.3:  # self-play at one setting: the agent holds every seat
        lineup = [(rng.choice(LABELS), _settings(rng))] * n
    else:
        lineup = [(rng.choice(LABELS), _settings(rng)) for _ in range(n)]
    seats = [{"match_id": match_id, "seat": s, "player": f"Player {s + 1}", "agent": label, "label": label,
              "score": None if rng.random() < 0.05 else float(rng.randint(0, 100)), "won": s == 0, "rank": 1 + (s > 0),
              **settings} for s, (label, settings) in enumerate(lineup)]
    metrics = []
    if game == "guessing_game":
        metrics = [{"match_id": match_id, "seat": s, "name": "gamabench_score", "value": float(rng.randint(0, 100))}
                   for s in [None, *range(n)]]
    finished = datetime(2025, 1, 1) + timedelta(days=i % 10)
    return MatchRecord({"match_id": match_id, "run_id": run_id, "game": game, "preset": rng.choice(["default", "x"]),
                        "params": json.dumps(params), "seed": i % 7, "repeat": i % 3, "status": status,
                        "error": "provider down" if status == "error" else None, "started_at": finished,
                        "finished_at": finished, "outcome": "{}", "worker": "test", "rules_version": 1},
                       seats, _turns(rng, match_id, n, priced), metrics)


def write_run(db, run_id: str, n: int, seed: int, errored_left: int = 0, priced: bool = False) -> list[MatchRecord]:
    """Write `n` matches of a run as above, a batch of 40 at a time; the last `errored_left` fail and are not played
    again (`priced`: every call has a price). Returns every attempt stored (the last of each match)."""
    rng = random.Random(seed)

    def match(*args, **kwargs) -> MatchRecord:
        return drawn(rng, run_id, *args, priced=priced, **kwargs)

    store.init_db(db)
    store.upsert_run(db, run_id, run_id, {}, "engine", n)
    records = [match(i) for i in range(n - errored_left)]
    failed = [match(i, status="error") for i in range(n - errored_left, n)]
    first_try = [match(0, status="error"), *records[1:], *failed]  # match 0's first attempt failed
    for start in range(0, n, 40):
        assert store.write_matches(db, first_try[start:start + 40]) == len(first_try[start:start + 40])
    assert store.write_matches(db, records) == 1  # resumed: the errored attempt replaced by its replay, no other
    again = match(1)  # match 1 re-imported with other figures
    store.write_match(db, again.match, again.seats, again.turns, again.metrics)
    return [records[0], again, *records[2:], *failed]
