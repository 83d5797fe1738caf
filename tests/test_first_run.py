"""The first run (runs/quick.yaml, what `make run` plays into an empty database) gives every page something
meaningful: every game played, two complete MAgIC challengers, a robustness verdict, a real model."""

from __future__ import annotations

import math

from engine import queries, store
from engine.games import all_games
from engine.metrics import stats
from engine.metrics.magic import ability_profile


def test_every_match_of_the_first_run_finished(first_run_db):
    runs = store.query(first_run_db, "SELECT status, n_done, n_matches FROM runs").iloc[0]
    assert runs["status"] == "ok" and runs["n_done"] == runs["n_matches"]
    played = set(store.query(first_run_db, "SELECT DISTINCT game FROM matches")["game"])
    assert {"guessing_game", "tictactoe", "prisoners_dilemma", "chameleon", "undercover", "texas_holdem"} <= played
    assert len(played) >= len(all_games()) - 4  # a tour of nearly every game


def test_two_challengers_have_all_seven_magic_abilities(first_run_db):
    profile = ability_profile(first_run_db)
    complete = profile[(profile["roles"] == 7) & profile["area"].map(math.isfinite)]
    assert len(complete) >= 2, profile[["agent", "roles", "area"]]


def test_the_real_model_plays_and_its_robustness_gets_a_verdict(first_run_db):
    model = store.query(first_run_db, """
        SELECT count(DISTINCT s.match_id) AS matches, count(t.turn) AS answers, sum(t.tokens_out) AS tokens
        FROM seats s JOIN turns t ON t.match_id = s.match_id AND t.seat = s.seat
        WHERE s.agent = 'local/smollm2'""").iloc[0]
    assert model["matches"] >= 12 and model["tokens"] > 0
    tables = queries.robustness_tables(queries.robustness_scores(first_run_db, "local/smollm2"))
    verdicts = {factor: stats.robustness_verdict(table) for (factor, _), table in tables.items()}
    assert verdicts["temperature"] in ("robust", "not robust")
    assert verdicts["prompt_version"] in ("robust", "not robust")
