"""GAMA-Bench records: the importer (names, idempotence, replay) and the published leaderboard figures."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engine import store
from engine.papers.gamabench.games import GAMES
from engine.papers.gamabench.importer import import_dir, parse_name
from engine.papers.gamabench.records import record_score
from engine.papers.gamabench.scores import leaderboard, round_figures
from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.store.selection import Selection
from engine.study.rescore import rescore

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
RAW = ROOT / "engine" / "papers" / "gamabench" / "raw_results"  # shipped with the project: the README imports it
PUBLISHED = {"guessing_game": "63.4", "bar_game": "68.7", "divide_dollar": "68.6", "public_goods": "38.9",
             "diner_dilemma": "2.8", "sealed_bid_auction": "13.0", "battle_royale": "28.6", "pirate_game": "71.6",
             "overall": "44.4"}


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    db = tmp_path_factory.mktemp("gamabench") / "results.duckdb"
    import_dir(RAW, db)
    return db


def test_file_names_give_model_and_condition():
    assert parse_name("guessing_game_v1_3.json") | {} == {
        "gama_game": "guessing_game", "model": "gpt-3.5-turbo-0125", "prompt_version": "v1", "temperature": 1.0,
        "strategy": "vanilla", "repeat": 2, "variant": None, "own_setting": None}
    assert parse_name("gpt-4o_bar_game_implicit_v1_t2.json")["temperature"] == 0.4
    assert parse_name("gpt-4o_bar_game_implicit_v1_t2.json")["model"] == "gpt-4o"
    assert parse_name("gemini-1.5-pro_guessing_game_v3.json")["prompt_version"] == "v3"
    assert parse_name("public_goods_v1_v4.json")["prompt_version"] == "v4"
    assert parse_name("diner_dilemma_v1_cot1.json")["strategy"] == "cot"
    assert parse_name("pirate_game_v1_role3.json")["strategy"] == "persona:mathematician"
    assert parse_name("gpt-3.5_1106_sealed_bid_auction_v1_vr0.json")["variant"] == "vr0"


def test_only_board_pys_runs_are_the_leaderboard_condition():
    """The authors' board.py reads `<model>_<game>_v1_1.json` .. `_v1_5.json`; every other file is a study."""
    run = parse_name("gpt-4o_pirate_game_v1_1.json")
    assert (run["repeat"], run["own_setting"]) == (0, None)
    unnumbered = parse_name("gpt-4o_pirate_game_v1.json")  # the prompt-version study's v1, not run 1
    assert (unnumbered["prompt_version"], unnumbered["own_setting"]) == ("v1", "v1")
    hot = parse_name("gpt-4o_pirate_game_v1_t5.json")  # the temperature study's 1.0, not the default temperature
    assert (hot["temperature"], hot["own_setting"]) == (1.0, "t5")
    assert parse_name("gemini-1.5-pro_battle_royale_v1_h0.json")["own_setting"] == "h0"
    assert parse_name("gpt-4o_pirate_game_v1_6.json")["own_setting"] == "6"
    assert parse_name("gpt-4o_pirate_game_v2.json")["own_setting"] == "v2"


def test_a_whole_folder_keeps_the_leaderboard_row_to_its_runs_and_gives_each_study_and_setting_a_row(tmp_path):
    """Published names and suffixes side by side: only `_v1_1` is the vanilla row; `_v1` (unsuffixed) and `_t5`
    each have a row of their own, and each gold amount or hit-rate setting a row per value (Table 9)."""
    raw = tmp_path / "raw"
    for game in ("guessing_game", "pirate_game", "battle_royale"):
        (raw / game).mkdir(parents=True)
    guessing = RAW / "guessing_game"
    shutil.copy(guessing / "guessing_game_v1_1.json", raw / "guessing_game" / "gpt-4o_guessing_game_v1_1.json")
    shutil.copy(guessing / "guessing_game_v1_2.json", raw / "guessing_game" / "gpt-4o_guessing_game_v1.json")
    shutil.copy(guessing / "guessing_game_v1_3.json", raw / "guessing_game" / "gpt-4o_guessing_game_v1_t5.json")
    real = ROOT / "tests" / "data" / "gamabench"
    four = json.loads((real / "pirate_game" / "gpt-4o_pirate_game_v1_g0.json").read_text())
    (raw / "pirate_game" / "gpt-4o_pirate_game_v1_g0.json").write_text(json.dumps(four))
    five = four | {"meta": four["meta"] | {"gold": 5}}
    (raw / "pirate_game" / "gpt-4o_pirate_game_v1_g1.json").write_text(json.dumps(five))
    shutil.copy(real / "battle_royale" / "gemini-1.5-pro_battle_royale_v1_h0.json",
                raw / "battle_royale" / "gpt-4o_battle_royale_v1_h0.json")
    db = tmp_path / "r.duckdb"
    import_dir(raw, db)
    board = leaderboard(db).set_index("setting")
    score = {f.name: record_score(game, json.loads(f.read_text())) for game in ("guessing_game",)
             for f in (guessing / "guessing_game_v1_1.json", guessing / "guessing_game_v1_2.json",
                       guessing / "guessing_game_v1_3.json")}
    assert set(board["model"]) == {"gpt-4o"} and set(board["temperature"]) == {1.0}
    assert list(board.index) == ["vanilla", "custom: golds=4 (_g0)", "custom: golds=5 (_g1)",
                                 "custom: hit_max=60, hit_min=51 (_h0)", "study _t5", "study _v1"]
    assert board.loc["vanilla", "matches"] == 1
    assert board.loc["vanilla", "guessing_game"] == pytest.approx(score["guessing_game_v1_1.json"])
    assert board.loc["study _v1", "guessing_game"] == pytest.approx(score["guessing_game_v1_2.json"])
    assert board.loc["study _t5", "guessing_game"] == pytest.approx(score["guessing_game_v1_3.json"])
    assert list(board["matches"]) == [1] * 6


def test_older_copies_filed_under_names_board_py_does_not_read_stay_out_of_the_leaderboard_row(tmp_path):
    """The authors' folder keeps older copies of runs beside board.py's files: "gpt-4-0125-pirate_game_v1_1.json"
    ("-", the model abbreviated), "gpt-4-0125-preview-pirate_game_v1_3.json" ("-") and
    "gpt-3.5-0613_pirate_game_v1_1.json" (abbreviated). Each is its model's (the model the file records) but a
    study of its own: the vanilla row holds only `<model>_pirate_game_v1_k.json`, as board.py reads it."""
    raw = tmp_path / "raw" / "pirate_game"
    raw.mkdir(parents=True)
    runs = {k: json.loads((RAW / "pirate_game" / f"pirate_game_v1_{k}.json").read_text()) for k in (1, 2, 3)}

    def filed(name: str, k: int, model: str) -> None:
        record = runs[k] | {"player_data": [p | {"model": model} for p in runs[k]["player_data"]]}
        (raw / name).write_text(json.dumps(record))

    filed("gpt-4-0125-preview_pirate_game_v1_1.json", 1, "gpt-4-0125-preview")
    filed("gpt-4-0125-pirate_game_v1_1.json", 2, "gpt-4-0125-preview")
    filed("gpt-4-0125-preview-pirate_game_v1_3.json", 3, "gpt-4-0125-preview")
    filed("gpt-3.5-turbo-0613_pirate_game_v1_1.json", 1, "gpt-3.5-turbo-0613")
    filed("gpt-3.5-0613_pirate_game_v1_1.json", 2, "gpt-3.5-turbo-0613")
    db = tmp_path / "r.duckdb"
    import_dir(raw.parent, db)
    board = leaderboard(db).set_index(["model", "setting"]).sort_index()
    score = {k: record_score("pirate_game", runs[k]) for k in runs}
    assert len({round(v, 6) for v in score.values()}) == 3  # three different records: a mixed row would show
    assert list(board.index) == [
        ("gpt-3.5-turbo-0613", "study filed as gpt-3.5-0613_"), ("gpt-3.5-turbo-0613", "vanilla"),
        ("gpt-4-0125-preview", "study filed as gpt-4-0125-"),
        ("gpt-4-0125-preview", "study filed as gpt-4-0125-preview-"), ("gpt-4-0125-preview", "vanilla")]
    assert list(board["matches"]) == [1] * 5
    for model in ("gpt-3.5-turbo-0613", "gpt-4-0125-preview"):
        assert board.loc[(model, "vanilla"), "pirate_game"] == pytest.approx(score[1])
    assert board.loc[("gpt-4-0125-preview", "study filed as gpt-4-0125-"), "pirate_game"] == pytest.approx(score[2])


def test_a_study_saved_again_under_its_versioned_name_counts_once_in_its_row(tmp_path):
    """The authors' folder holds "battle_royale_t1.json" and its renamed copy "battle_royale_v1_t1.json" (the same
    rounds, the meta gained `models`): the temperature study's row counts that match once, the older name is a row of
    its own. "battle_royale_t0.json" beside a "battle_royale_v1_t0.json" of other rounds is another run of the
    study: both stay in its row."""
    raw = tmp_path / "raw" / "battle_royale"
    raw.mkdir(parents=True)
    older, run2, run3 = (json.loads((RAW / "battle_royale" / f"battle_royale_v1_{k}.json").read_text())
                         for k in (1, 2, 3))
    older["meta"].pop("models", None)
    (raw / "battle_royale_t1.json").write_text(json.dumps(older))
    renamed = older | {"meta": older["meta"] | {"models": "gpt-3.5-turbo-0125"}}
    (raw / "battle_royale_v1_t1.json").write_text(json.dumps(renamed))
    (raw / "battle_royale_t0.json").write_text(json.dumps(run2))
    (raw / "battle_royale_v1_t0.json").write_text(json.dumps(run3))
    db = tmp_path / "r.duckdb"
    import_dir(raw.parent, db)
    board = leaderboard(db).set_index("setting").sort_index()
    assert list(board.index) == ["study _t0", "study _t1", "study filed as battle_royale_t1.json"]
    assert list(board["matches"]) == [2, 1, 1]
    assert list(board["temperature"]) == [0.0, 0.2, 0.2]
    assert board.loc["study _t1", "battle_royale"] == pytest.approx(record_score("battle_royale", renamed))


def test_a_leaderboard_run_whose_players_record_a_shorter_name_stays_in_its_models_row(tmp_path):
    """Gemini-1.0-Pro's published Pirate runs 4 and 5 record their players as "gemini-pro" where runs 1-3 record
    "gemini-1.0-pro": the name board.py reads them under decides, so all five stay one vanilla row (renaming to the
    recorded name would put two of the published row's five runs in a row of their own)."""
    raw = tmp_path / "raw" / "pirate_game"
    raw.mkdir(parents=True)
    runs = {k: json.loads((RAW / "pirate_game" / f"pirate_game_v1_{k}.json").read_text()) for k in (1, 2)}
    for k, recorded in ((1, "gemini-1.0-pro"), (2, "gemini-pro")):
        record = runs[k] | {"player_data": [p | {"model": recorded} for p in runs[k]["player_data"]]}
        (raw / f"gemini-1.0-pro_pirate_game_v1_{k}.json").write_text(json.dumps(record))
    db = tmp_path / "r.duckdb"
    import_dir(raw.parent, db)
    board = leaderboard(db).set_index(["model", "setting"])
    assert list(board.index) == [("gemini-1.0-pro", "vanilla")]
    assert board.loc[("gemini-1.0-pro", "vanilla"), "matches"] == 2
    both = (record_score("pirate_game", runs[1]) + record_score("pirate_game", runs[2])) / 2
    assert board.loc[("gemini-1.0-pro", "vanilla"), "pirate_game"] == pytest.approx(both)


def test_import_gives_one_match_per_file_with_seats_and_each_players_actions(imported):
    runs = store.query(imported, "SELECT source, n_matches, n_done FROM runs")
    assert runs.to_dict("records") == [{"source": "import:gamabench", "n_matches": 40, "n_done": 40}]
    per_game = store.query(imported, "SELECT game, count(*) AS n FROM matches GROUP BY game")
    assert dict(zip(per_game["game"], per_game["n"], strict=True)) == {g: 5 for g in GAMES}
    seats = store.query(imported, "SELECT DISTINCT agent, prompt_version, temperature, strategy FROM seats")
    assert seats.to_dict("records") == [{"agent": "gpt-3.5-turbo-0125", "prompt_version": "v1",
                                         "temperature": 1.0, "strategy": "vanilla"}]
    # player 3's guesses in run 1 are its records, in order (the round `responses` may be shuffled)
    data = json.loads((RAW / "guessing_game" / "guessing_game_v1_1.json").read_text())
    turns = store.query(imported, """SELECT t.action FROM turns t JOIN matches m USING (match_id)
        WHERE m.outcome->>'source_file' = 'guessing_game/guessing_game_v1_1.json' AND t.seat = 2 ORDER BY t.turn""")
    assert [json.loads(a)["action"] for a in turns["action"]] == [int(r) for r in data["player_data"][2]["records"]]


def test_importing_twice_adds_nothing(imported, tmp_path):
    counts = {t: store.query(imported, f"SELECT count(*) AS n FROM {t}")["n"][0]
              for t in ("runs", "matches", "seats", "turns", "metrics")}
    assert "0 GAMA-Bench matches" in import_dir(RAW, imported)
    assert counts == {t: store.query(imported, f"SELECT count(*) AS n FROM {t}")["n"][0] for t in counts}


def test_a_changed_record_imports_as_a_new_match_and_a_bad_one_is_reported(tmp_path):
    folder = tmp_path / "raw"
    (folder / "divide_dollar").mkdir(parents=True)
    src = RAW / "divide_dollar" / "divide_dollar_v1_1.json"
    shutil.copy(src, folder / "divide_dollar" / "gpt-4o_divide_dollar_v1_t0.json")
    (folder / "divide_dollar" / "divide_dollar_v1_9.json").write_text('{"meta": {}}')
    db = tmp_path / "r.duckdb"
    summary = import_dir(folder, db)
    assert "imported 1 " in summary and "1 unreadable" in summary
    seat = store.query(db, "SELECT DISTINCT agent, temperature FROM seats").to_dict("records")
    assert seat == [{"agent": "gpt-4o", "temperature": 0.0}]


def test_leaderboard_reproduces_the_published_gpt35_scores(imported):
    row = leaderboard(imported).iloc[0]
    assert row["model"] == "gpt-3.5-turbo-0125" and row["setting"] == "vanilla"
    assert {k: f"{row[k]:.1f}" for k in PUBLISHED} == PUBLISHED


def test_scores_command_prints_the_published_figures_as_csv(imported):
    out = subprocess.run([sys.executable, "-m", "engine", "scores", "--suite", "gamabench", "--db", str(imported),
                          "--format", "csv"], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    header, row = out.strip().splitlines()
    cells = dict(zip(header.split(","), row.split(","), strict=True))
    assert cells["model"] == "gpt-3.5-turbo-0125"
    assert {k: f"{float(cells[k]):.1f}" for k in PUBLISHED} == PUBLISHED


def test_imported_scores_come_from_the_stored_round_records_not_the_answers(imported, tmp_path):
    db = tmp_path / "copy.duckdb"
    shutil.copy(imported, db)
    source = "guessing_game/guessing_game_v1_1.json"
    with store.connect(db) as con:
        con.execute("DELETE FROM metrics")
        con.execute("UPDATE seats SET score = NULL")
        # the answers change: the authors' compute_score does not read them, so nothing moves
        con.execute("""UPDATE turns SET action = '{"action": 0}' WHERE seat IS NOT NULL AND match_id IN
            (SELECT match_id FROM matches WHERE outcome->>'source_file' = ?)""", [source])
    assert rescore(db).failed == []  # the changed answers no longer replay: that match keeps the authors' score
    assert leaderboard(db).iloc[0]["guessing_game"] == pytest.approx(63.438, abs=1e-3)
    with store.connect(db) as con:
        # the stored round means change: every round's mean 0 scores (MAX - 0)/D = 100
        match_id, state = con.execute("""SELECT match_id, t.state FROM matches JOIN turns t USING (match_id)
            WHERE outcome->>'source_file' = ? AND t.turn = 0""", [source]).fetchone()
        state = json.loads(state)
        for r in state["round_records"]:
            r["mean"] = 0
        con.execute("UPDATE turns SET state = ? WHERE match_id = ? AND turn = 0", [json.dumps(state), match_id])
    assert leaderboard(db).iloc[0]["guessing_game"] == pytest.approx(63.438, abs=1e-3)  # stored until rescored
    rescore(db)
    row = leaderboard(db).iloc[0]
    assert row["bar_game"] == pytest.approx(68.6666, abs=1e-3)
    assert row["guessing_game"] == pytest.approx((100 + 62.28 + 63.87 + 58.33 + 67.31) / 5, abs=0.01)


def _diner(rounds: list[list[str]], **meta) -> dict:
    """A Diner's Dilemma record as GAMA-Bench writes it: `cheap_player` counts the answers equal to 'cheap'."""
    n = len(rounds[0])
    return {"meta": {"name_exp": "x", "player_num": n, "cheap_cost": 10, "cheap_utility": 15, "exp_cost": 20,
                     "exp_utility": 20, "round_id": len(rounds), "version": "v1"} | meta,
            "round_records": [{"responses": r, "cheap_player": r.count("cheap")} for r in rounds],
            "player_data": [{"records": [r[i] for r in rounds]} for i in range(n)]}


def _battle(shots: list[tuple[str, str, bool]], alive: list[list]) -> dict:
    """A Battle Royale record of 3 players (hit rates 35, 40, 45): (shooter, shot_player, out) per shot."""
    rounds = [{"responses": [target], "player_shooting": shooter, "initial_players": alive, "shot_player": target,
               "action": "miss" if target == "null" else "shoot", "out": out} for shooter, target, out in shots]
    records = {s: [t for sh, t, _ in shots if sh == s] for s in ("0", "1", "2")}
    return {"meta": {"name_exp": "x", "player_num": 3, "base_hit_rate": 35, "interval": 5,
                     "round_id": len(shots) + 1, "version": "v1"},
            "round_records": rounds, "player_data": [{"records": records[s]} for s in ("0", "1", "2")]}


def test_hostile_records_score_as_the_authors_code_scores_them(tmp_path):
    folder = tmp_path / "raw"
    folder.mkdir()
    # answers outside the option list count as not cheap, as `cheap_player` recorded them: (2/4 + 1/4) costly
    diner = _diner([["cheap", "chea", "costly", "cheap"], ["costly_or_cheap", "cheap", "cheap", "cheap"]])
    (folder / "mymodel_diner_dilemma_v1_1.json").write_text(json.dumps(diner))
    # stops before one survivor is left; the second shot is a deliberate miss ("null"): 1 right of 2
    alive = [["player_0", 35], ["player_1", 40], ["player_2", 45]]
    battle = _battle([("0", "2", False), ("1", "null", False)], alive)
    (folder / "mymodel_battle_royale_v1_1.json").write_text(json.dumps(battle))
    # their code cannot score these two: no rounds; a round without the field it reads
    (folder / "mymodel_diner_dilemma_v1_2.json").write_text(json.dumps(_diner([["cheap"]]) | {"round_records": []}))
    broken = _diner([["cheap", "costly"]])
    del broken["round_records"][0]["cheap_player"]
    (folder / "mymodel_diner_dilemma_v1_3.json").write_text(json.dumps(broken))
    db = tmp_path / "r.duckdb"
    summary = import_dir(folder, db)
    assert "imported 2 " in summary and "2 unreadable" in summary
    assert "diner_dilemma_v1_2.json: the record has no rounds to score" in summary
    assert "diner_dilemma_v1_3.json: round 1 has no 'cheap_player'" in summary
    scores = store.query(db, "SELECT game, value FROM metrics JOIN matches USING (match_id) WHERE seat IS NULL "
                             "AND name = 'gamabench_score'")
    assert dict(zip(scores["game"], scores["value"], strict=True)) == {"diner_dilemma": 37.5, "battle_royale": 50.0}
    board = leaderboard(db)  # two settings (2 and 3 players): a row each
    assert set(board["model"]) == {"mymodel"}
    assert (list(board["diner_dilemma"].dropna()), list(board["battle_royale"].dropna())) == ([37.5], [50.0])
    # our rules replay neither ("chea" is no dish; the battle is not over): their rounds are kept as recorded
    kept = store.query(db, "SELECT game, outcome->>'$.not_replayed_because' AS why FROM matches ORDER BY game")
    assert "ends before the game does" in kept["why"][0] and "'chea'" in kept["why"][1]
    turns = store.query(db, "SELECT count(*) AS n FROM turns JOIN matches USING (match_id) "
                            "WHERE game = 'diner_dilemma' AND phase = 'moderator'")
    assert turns["n"][0] == 1 + 1 + 2  # the record, why it is kept as recorded, its two rounds


def test_our_matches_score_through_the_same_code_and_mixed_seats_report_per_model(tmp_path, imported):
    db = tmp_path / "mixed.duckdb"
    lineup = ["bot:equilibrium"] * 5 + ["bot:fixed:50"] * 5
    spec = parse_spec({"name": "mixed", "games": [{"game": "guessing_game", "params": {"rounds": 2},
                                                    "lineups": [lineup]}]})
    import asyncio

    asyncio.run(run_spec(spec, db, progress=False))
    table = leaderboard(db).set_index("model")
    assert table.loc["bot:equilibrium", "guessing_game"] == pytest.approx(100.0)
    assert table.loc["bot:fixed:50", "guessing_game"] == pytest.approx(50.0)
    assert set(table["setting"]) == {"custom: rounds=2"}  # 2 rounds is not the paper's setting
    stored = store.query(db, "SELECT value FROM metrics WHERE seat IS NULL AND name = 'gamabench_score'")
    assert stored["value"][0] == pytest.approx(75.0)


def test_round_figures_give_the_plotted_series(imported):
    guess = round_figures(imported, Selection(games=("guessing_game",)))
    assert len(guess) == 5 * 20 and {"mean", "winning_number", "step"} <= set(guess.columns)
    data = json.loads((RAW / "guessing_game" / "guessing_game_v1_1.json").read_text())
    records = [p["records"] for p in data["player_data"]]
    expected = tuple(sum(int(r[t]) for r in records) / len(records) for t in range(20))
    series = {tuple(rows.sort_values("step")["mean"]) for _, rows in guess.groupby("match_id")}
    assert expected in series
    shots = round_figures(imported, Selection(games=("battle_royale",)))
    assert {"shooter", "target", "hit", "players_left"} <= set(shots.columns)
    pirates = round_figures(imported, Selection(games=("pirate_game",)))
    assert {"proposer", "plan", "votes", "passed"} <= set(pirates.columns) and pirates["passed"].sum() == 5
    assert round_figures(imported, Selection(games=("guessing_game",), run_ids=("no-such-run",))).empty


def test_the_readmes_import_command_names_records_inside_the_project(tmp_path):
    """The README's command, as written, run from the root of any clone: its folder is part of the project."""
    line = next(x for x in (ROOT / "README.md").read_text().splitlines() if " engine import gamabench " in x)
    folder = line.split(" engine import gamabench ", 1)[1].split()[0]
    assert (ROOT / folder).resolve().is_relative_to(ROOT) and (ROOT / folder).is_dir()
    db = tmp_path / "results.duckdb"
    out = subprocess.run([sys.executable, "-m", "engine", "import", "gamabench", folder, "--db", str(db)],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert store.count_matches(db) == 40


def test_a_hostile_folder_imports_its_records_and_names_each_file_it_skips(tmp_path):
    """An attack on `import gamabench` (issue: nesting past the recursion limit, a folder or a pipe named like a
    record, a symlink to /dev/zero, a file past the size cap) printed a traceback, hung or ate the memory, and
    lost the good records with it. Each is a skipped file now, named, and the good record is imported."""
    import os

    from engine.papers.gamabench.importer import MAX_RECORD_BYTES

    folder = tmp_path / "raw" / "guessing_game"
    folder.mkdir(parents=True)
    shutil.copy(RAW / "guessing_game" / "guessing_game_v1_1.json", folder / "guessing_game_v1_1.json")
    (folder / "guessing_game_t0.json").write_text("[" * 200_000 + "]" * 200_000)
    (folder / "guessing_game_v1_2.json").symlink_to("/dev/zero")
    (folder / "guessing_game_v1_3.json").mkdir()
    os.mkfifo(folder / "guessing_game_v1_4.json")
    with (folder / "guessing_game_v1_5.json").open("wb") as big:
        big.truncate(MAX_RECORD_BYTES + 1)  # sparse: no disk spent
    huge_run = folder / "guessing_game_v1_99999999999999999999.json"  # an integer past what the database holds
    shutil.copy(RAW / "guessing_game" / "guessing_game_v1_1.json", huge_run)
    endless = json.loads((RAW / "guessing_game" / "guessing_game_v1_1.json").read_text())
    endless["player_data"][0]["records"][0] = float("inf")  # json writes Infinity, which Python's reader takes
    (folder / "guessing_game_v3.json").write_text(json.dumps(endless))
    db = tmp_path / "r.duckdb"
    done = subprocess.run([sys.executable, "-m", "engine", "import", "gamabench", str(tmp_path / "raw"), "--db",
                           str(db), "--quiet"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    said = done.stdout + done.stderr
    assert "Traceback" not in said, said
    assert "imported 1 " in said and "7 unreadable" in said, said
    for name, why in (("t0", "nested too deeply"), ("v3", "cannot convert float infinity"),
                      ("v1_2", "not a regular file"), ("v1_3", "not a regular file"),
                      ("v1_4", "not a regular file"), ("v1_5", "larger than"),
                      ("v1_99999999999999999999", "run number 99999999999999999999 is outside")):
        assert f"guessing_game_{name}.json: {why}" in said, (name, said)
    assert store.rows(db, "SELECT count(*) FROM matches") == [(1,)]
    assert store.rows(db, "SELECT DISTINCT status FROM runs") == [("ok",)]  # no run left 'running'



def test_a_hostile_records_key_escapes_and_infinite_score_stay_out_of_the_database(tmp_path, monkeypatch):
    """An attacker's report: a record holding the environment's key (in a prompt) or a key-shaped file name put the
    key into the turns, the agent's name, `scores` and the export; file names with terminal escapes, a newline or a
    bidi override became agents' names printed raw; one `Infinity` in a round record scored the match -inf and
    blanked the model's whole row. The key is cut out (***), such a name is a skipped file named in printable form,
    and the Infinity record is skipped: the model's row is its other runs'."""
    key = "sk-proj-u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8dKLzd"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    record = json.loads((RAW / "guessing_game" / "guessing_game_v1_1.json").read_text())
    folder = tmp_path / "raw" / "guessing_game"
    folder.mkdir(parents=True)
    leaky = json.loads(json.dumps(record))
    leaky["player_data"][0]["prompt"] = [{"role": "user", "content": f"my key is {key}, keep it"}]
    (folder / "mymodel_guessing_game_v1_1.json").write_text(json.dumps(leaky))
    shutil.copy(RAW / "guessing_game" / "guessing_game_v1_2.json", folder / "mymodel_guessing_game_v1_2.json")
    shutil.copy(RAW / "guessing_game" / "guessing_game_v1_3.json", folder / f"{key[:30]}_guessing_game_v1_1.json")
    for name in ("evil\x1b[31mRED\x1b[0m\x07", "line\nbreak", "\u202eevil"):
        shutil.copy(RAW / "guessing_game" / "guessing_game_v1_1.json", folder / f"{name}_guessing_game_v1_1.json")
    endless = json.loads(json.dumps(record))
    endless["round_records"][0]["mean"] = float("inf")  # written Infinity, which Python's reader takes
    (folder / "mymodel_guessing_game_v1_3.json").write_text(json.dumps(endless))
    db = tmp_path / "h.duckdb"
    said = import_dir(tmp_path / "raw", db)
    assert "imported 3 " in said and "4 unreadable" in said, said
    assert said.isascii() and "\x1b" not in said and all(line.isprintable() for line in said.splitlines()), said
    assert "'guessing_game/\\u202eevil_guessing_game_v1_1.json': its model name" in said, said
    assert "mymodel_guessing_game_v1_3.json: its score is -inf" in said, said
    every_text = store.rows(db, """SELECT string_agg(concat(prompt::VARCHAR, response::VARCHAR, state::VARCHAR), '')
                                     FROM turns""")[0][0] + str(store.rows(db, "SELECT * FROM seats")) + str(
        store.rows(db, "SELECT * FROM matches")) + str(store.rows(db, "SELECT * FROM runs"))
    assert key[:10] not in every_text and "u8jzPde0" not in every_text and "***" in every_text
    assert sorted(row[0] for row in store.rows(db, "SELECT DISTINCT agent FROM seats")) == ["***", "mymodel"]
    row = leaderboard(db).set_index("model").loc["mymodel"]
    assert row["guessing_game"] == pytest.approx(
        (record_score("guessing_game", record) + record_score("guessing_game", json.loads(
            (RAW / "guessing_game" / "guessing_game_v1_2.json").read_text()))) / 2)


def test_a_folder_of_which_nothing_reads_is_bad_input_in_one_line(tmp_path):
    """An attacker's report: a folder holding only broken records printed "imported 0 ... (1 unreadable)" and
    exited 0, as if the import had worked."""
    folder = tmp_path / "raw" / "guessing_game"
    folder.mkdir(parents=True)
    (folder / "guessing_game_v1_1.json").write_text('{"cut short')
    db = tmp_path / "r.duckdb"
    done = subprocess.run([sys.executable, "-m", "engine", "import", "gamabench", str(tmp_path / "raw"), "--db",
                           str(db), "--quiet"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == "", done.stdout
    assert done.stderr.startswith(f"error: no GAMA-Bench record under {tmp_path / 'raw'} could be read (1 "
                                  "unreadable; the first: ") and done.stderr.count("\n") == 1, done.stderr
    assert "guessing_game_v1_1.json" in done.stderr and store.rows(db, "SELECT count(*) FROM matches") == [(0,)]
