"""The round-robin driver stops when every sigma is below the threshold, or at the match cap, and resumes."""

from __future__ import annotations

import asyncio

import pytest

from engine import store
from engine.__main__ import main
from engine.spec import SpecError
from engine.tournament import load_tournament, parse_tournament, play_tournament

pytestmark = pytest.mark.slow

BASE = {"name": "tt", "batch": 2, "agents": {"eq": "bot:equilibrium", "rnd": "bot:random"},
        "games": [{"game": "tictactoe"}]}


def _play(raw: dict, db):
    return asyncio.run(play_tournament(parse_tournament(raw), db))


def test_stops_when_sigma_is_below_threshold(tmp_path):
    db = tmp_path / "t.duckdb"
    [result] = _play(BASE | {"sigma_threshold": 5.0, "max_matches": 200}, db)
    assert result.stopped_by == "sigma" and result.errors == 0
    assert 1 < result.rounds and result.matches == 4 * result.rounds < 200  # 2 seat orders x batch 2
    assert (result.ratings["sigma"] < 5.0).all()
    ratings = result.ratings.set_index("agent")
    assert ratings.loc["eq · bot:equilibrium", "mu"] > ratings.loc["rnd · bot:random", "mu"]  # aliases: labels
    seats = store.query(db, "SELECT seat, label, count(*) AS n FROM seats GROUP BY ALL")
    assert len(seats) == 4 and seats["n"].nunique() == 1  # both agents in both seats equally often
    # the same tournament again resumes: nothing new is played, the stored ratings have settled already
    [again] = _play(BASE | {"sigma_threshold": 5.0, "max_matches": 200}, db)
    assert store.count_matches(db) == result.matches and again.stopped_by == "sigma"


def test_no_stop_by_sigma_before_min_matches(tmp_path):
    [result] = _play(BASE | {"sigma_threshold": 5.0, "min_matches": 20, "max_matches": 200}, tmp_path / "t.duckdb")
    assert result.stopped_by == "sigma" and result.matches == 20


def test_stops_at_the_match_cap(tmp_path):
    db = tmp_path / "t.duckdb"
    [result] = _play(BASE | {"sigma_threshold": 0.5, "max_matches": 10}, db)
    assert result.stopped_by == "cap" and result.matches == 8 and store.count_matches(db) == 8


def test_the_shipped_tournament_parses_and_bad_ones_are_refused():
    t = load_tournament("runs/llmarena_round_robin.yaml")
    assert {g.game for g in t.games} >= {"tictactoe", "connect_four", "undercover", "hanabi"}
    with pytest.raises(SpecError, match="two agents"):
        parse_tournament(BASE | {"agents": ["bot:random"]})
    with pytest.raises(SpecError, match="sigma_threshold"):
        parse_tournament(BASE | {"sigma_threshold": -1})


def test_cli_plays_a_tournament(tmp_path, capsys):
    spec = tmp_path / "t.yaml"
    spec.write_text("name: cli\nbatch: 1\nmax_matches: 2\nsigma_threshold: 1\nagents: [bot:minimax, bot:random]\n"
                    "games: [connect_four]\n")
    assert main(["tournament", str(spec), "--db", str(tmp_path / "t.duckdb"), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "connect_four: 1 round, 2 matches, 0 errors, stopped by cap" in out and "bot:minimax" in out
