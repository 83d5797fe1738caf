"""Each match records the version of its game's rules it was played under (`Game.rules_version`, stored in
`matches.rules_version`): an older database's matches read as the first rules after its upgrade, `rescore`
names per game the matches played under older rules than the current ones, and a Battle Royale match stored
with the parameter's old name (`max_turns`, now `rounds`) still rescores and is named by the current one."""

from __future__ import annotations

import asyncio
import json

import pytest

from engine import store
from engine.cli.main import main
from engine.games.base import Game
from engine.games.battle_royale import BattleRoyale
from engine.games.settings import setting_label
from engine.games.tictactoe import TicTacToe
from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.present import queries, transcripts

SPEC = {"name": "rules", "seed": 5, "repeats": 2, "games": [
    {"game": "tictactoe", "lineups": [["bot:random", "bot:random"]]},
    {"game": "battle_royale", "params": {"players": 3, "rounds": 200}, "lineups": [{"all": "bot:random"}]},
]}


def play(db) -> None:
    summary = asyncio.run(run_spec(parse_spec(SPEC), db, progress=False))
    assert summary.errors == 0 and summary.played == 4


def as_schema_5(db) -> None:
    """The database as the code before `matches.rules_version` left it, Battle Royale's matches stored with the
    parameter's name of before its rename (`max_turns`)."""
    with store.connect(db) as con:
        con.execute("ALTER TABLE matches DROP COLUMN rules_version")
        con.execute("""UPDATE matches SET params = json_merge_patch(params,
                           json_object('max_turns', params->'rounds', 'rounds', NULL)) WHERE game = 'battle_royale'""")
        con.execute("DELETE FROM schema_version")
        con.execute("INSERT INTO schema_version VALUES (5, now())")


def versions(db) -> dict[str, list[int]]:
    rows = store.rows(db, "SELECT game, list(rules_version ORDER BY match_id) FROM matches GROUP BY game")
    return dict(rows)


def test_the_first_rules_are_version_1_unless_a_game_says_otherwise():
    assert Game.rules_version == 1


def test_each_match_records_the_rules_version_of_its_game(db_path, monkeypatch):
    monkeypatch.setattr(TicTacToe, "rules_version", 3)
    play(db_path)
    assert versions(db_path) == {"tictactoe": [3, 3], "battle_royale": [BattleRoyale.rules_version] * 2}
    recent = queries.recent_matches(db_path)
    assert sorted(recent["rules_version"]) == sorted([3, 3, BattleRoyale.rules_version, BattleRoyale.rules_version])
    match_id = recent.loc[recent.game == "tictactoe", "match_id"].iloc[0]
    assert transcripts.match_info(db_path, match_id)["rules_version"].tolist() == [3]


def test_an_older_database_is_upgraded_its_matches_played_under_the_first_rules(db_path):
    play(db_path)
    as_schema_5(db_path)
    store.check_db(db_path)
    with store.connect(db_path, read_only=True) as con:
        assert store.schema_version(con) == store.SCHEMA_VERSION
    assert versions(db_path) == {"tictactoe": [1, 1], "battle_royale": [1, 1]}


@pytest.mark.slow  # processes started and killed, or a whole rescore: 5-50 s
def test_rescore_names_per_game_the_matches_played_under_older_rules(db_path, monkeypatch, capsys):
    play(db_path)
    monkeypatch.setattr(TicTacToe, "rules_version", TicTacToe.rules_version + 1)
    assert main(["rescore", "--db", str(db_path)]) == 0
    out = capsys.readouterr().out
    assert "rescored 4 of 4 matches" in out
    assert (f"tictactoe: 2 matches played under rules older than its current version {TicTacToe.rules_version}, "
            f"rescored with the current rules") in out
    assert "battle_royale" not in out  # played under its current rules: nothing to say
    assert versions(db_path)["tictactoe"] == [TicTacToe.rules_version - 1] * 2  # the rules they were played under


@pytest.mark.slow  # processes started and killed, or a whole rescore: 5-50 s
def test_an_old_battle_royale_match_named_max_turns_still_rescores_and_shows(db_path, capsys):
    play(db_path)
    kept = store.rows(db_path, """SELECT x.match_id, x.seat, x.name, x.value FROM metrics x JOIN matches m
                                  USING (match_id) WHERE m.game = 'battle_royale' ORDER BY ALL""")
    as_schema_5(db_path)
    old = store.rows(db_path, "SELECT preset, params FROM matches WHERE game = 'battle_royale'")
    assert all("max_turns" in json.loads(params) for _, params in old)
    with store.connect(db_path) as con:
        con.execute("DELETE FROM metrics")
    assert main(["rescore", "--db", str(db_path)]) == 0, capsys.readouterr().err
    assert store.rows(db_path, """SELECT x.match_id, x.seat, x.name, x.value FROM metrics x JOIN matches m
                                  USING (match_id) WHERE m.game = 'battle_royale' ORDER BY ALL""") == kept
    for preset, params in store.rows(db_path, "SELECT preset, params FROM matches WHERE game = 'battle_royale'"):
        assert json.loads(params)["rounds"] == 200 and "max_turns" not in json.loads(params)
        assert setting_label("battle_royale", preset, params) == "custom: players=3, rounds=200"
