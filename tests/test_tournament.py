"""The round-robin driver stops when every sigma is below the threshold, or at the match cap, and resumes."""

from __future__ import annotations

import asyncio

import pytest

from engine import store
from engine.cli.main import main
from engine.play.spec import SpecError
from engine.study.tournament import load_tournament, parse_tournament, play_tournament

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
    assert ratings.loc["bot:equilibrium", "mu"] > ratings.loc["bot:random", "mu"]  # aliases: no labels
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


def test_the_cli_prints_blanks_not_nan_and_counts_matches_won_not_seats(tmp_path, capsys):
    """Undercover seats one agent in all seats but the first, so its seats won outnumbered its matches won (7 "wins"
    of 8 matches here, 5 matches won), and Hanabi's self-play gives no rating (NaN and <NA> were printed for it)."""
    spec, db = tmp_path / "t.yaml", tmp_path / "t.duckdb"
    spec.write_text("name: blanks\nbatch: 4\nmax_matches: 8\nsigma_threshold: 1\n"
                    "agents: [bot:letters, bot:random, bot:hint_follower]\n"
                    "games: [{game: undercover, preset: llmarena, agents: [bot:letters, bot:random]},\n"
                    "        {game: hanabi, agents: [bot:hint_follower, bot:random], self_play: true}]\n")
    assert main(["tournament", str(spec), "--db", str(db), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert not any(missing in out.lower() for missing in ("nan", "<na>", "none")), out
    lines = out.splitlines()
    header = lines[1].split()
    undercover = {row[0]: row for row in (line.split() for line in lines[2:4])}
    won = store.query(db, "SELECT label, count(DISTINCT match_id) AS n FROM seats JOIN matches USING (match_id) "
                          "WHERE game = 'undercover' AND won GROUP BY label").set_index("label")["n"]
    for agent in ("bot:letters", "bot:random"):
        row = undercover[agent]
        assert int(row[header.index("matches")]) == 8 and int(row[header.index("wins")]) == won[agent] <= 8
    hanabi = [line for line in lines if line.startswith("bot:hint_follower")]
    assert hanabi and "no rating" in hanabi[0]
