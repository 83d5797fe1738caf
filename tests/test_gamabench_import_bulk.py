"""GAMA-Bench import at the published folder's scale and read as a transcript: records read side by side and written
in one transaction, a progress bar, the leaderboard row of every published model kept to board.py's runs, the
authors' record shown as a turn (not in the match header) and each decision with what its player saw."""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from engine import store
from engine.papers.gamabench import importer as gamabench
from engine.papers.gamabench.importer import import_dir
from engine.papers.gamabench.record_replay import NOT_KEPT, seen_by_turn
from engine.papers.gamabench.records import record_score
from engine.papers.gamabench.scores import leaderboard
from tests.page_run import run_page

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
RAW = ROOT / "engine" / "papers" / "gamabench" / "raw_results"
GUESSING = RAW / "guessing_game"
# board.py's `models_path` (the paper's model has no prefix) and GPT-4o's: the published leaderboard's 13 models
PREFIXES = ("", "gpt-3.5-turbo-1106_", "gpt-3.5-turbo-0613_", "gpt-4-0125-preview_", "gemini-1.0-pro_",
            "gemini-1.5-pro_", "llama-3.1-8b_", "llama-3.1-70b_", "llama-3.1-405b_", "mixtral-8x7b_",
            "mixtral-8x22b_", "qwen2-72b_", "gpt-4o_")
TABLES = {"matches": "match_id, run_id, game, preset, params, seed, \"repeat\", status, outcome",
          "seats": "*", "turns": "*", "metrics": "*"}


def _rows(db: Path) -> dict[str, list[tuple]]:
    return {t: store.rows(db, f"SELECT {cols} FROM {t} ORDER BY ALL") for t, cols in TABLES.items()}


def test_records_read_by_worker_processes_store_what_one_process_stores(tmp_path, monkeypatch):
    alone, side_by_side = tmp_path / "one.duckdb", tmp_path / "two.duckdb"
    import_dir(RAW, alone, workers=1)
    monkeypatch.setattr(gamabench, "PARALLEL_FROM", 2)
    started, pool = [], gamabench.ProcessPoolExecutor
    monkeypatch.setattr(gamabench, "ProcessPoolExecutor", lambda *a, **k: started.append(a) or pool(*a, **k))
    import_dir(RAW, side_by_side, workers=2)
    assert started == [(2,)]
    assert _rows(alone) == _rows(side_by_side)


def test_every_record_is_written_in_one_transaction(tmp_path, monkeypatch):
    batches = []
    write = store.write_tables
    monkeypatch.setattr(store, "write_tables", lambda db, tables, *a: batches.append(tables["matches"].num_rows) or
                        write(db, tables, *a))
    monkeypatch.setattr(store, "write_match", lambda *a: pytest.fail("a record written on its own"))
    assert "imported 40 " in import_dir(RAW, tmp_path / "r.duckdb")
    assert batches == [40]


def test_the_command_shows_its_progress_unless_quiet(tmp_path):
    command = [sys.executable, "-m", "engine", "import", "gamabench", str(GUESSING)]
    shown = subprocess.run([*command, "--db", str(tmp_path / "a.duckdb")], cwd=ROOT, capture_output=True, text=True,
                           timeout=120)
    quiet = subprocess.run([*command, "--db", str(tmp_path / "b.duckdb"), "--quiet"], cwd=ROOT, capture_output=True,
                           text=True, timeout=120)
    assert shown.returncode == quiet.returncode == 0, shown.stderr + quiet.stderr
    assert "GAMA-Bench import: 5 of 5 matches done" in shown.stdout  # not a terminal: a line, not a bar
    assert quiet.stdout.splitlines() == [shown.stdout.splitlines()[-1].replace("a.duckdb", "b.duckdb")]


def test_every_published_models_leaderboard_row_reads_only_board_pys_runs(tmp_path):
    """Each of the 13 models: its runs _v1_1.._v1_5 make its row; its unsuffixed _v1 file and its _t5 file (the
    prompt-version and temperature studies, a different record each here) have rows of their own."""
    raw = tmp_path / "raw_results" / "guessing_game"
    raw.mkdir(parents=True)
    for prefix in PREFIXES:
        for k in (1, 2):
            shutil.copy(GUESSING / f"guessing_game_v1_{k}.json", raw / f"{prefix}guessing_game_v1_{k}.json")
        shutil.copy(GUESSING / "guessing_game_v1_3.json", raw / f"{prefix}guessing_game_v1.json")
        shutil.copy(GUESSING / "guessing_game_v1_4.json", raw / f"{prefix}guessing_game_v1_t5.json")
    db = tmp_path / "r.duckdb"
    import_dir(raw.parent, db)
    score = {k: record_score("guessing_game", json.loads((GUESSING / f"guessing_game_v1_{k}.json").read_text()))
             for k in (1, 2, 3, 4)}
    board = leaderboard(db)
    models = {p.rstrip("_") or "gpt-3.5-turbo-0125" for p in PREFIXES}
    for setting, expected in (("vanilla", (score[1] + score[2]) / 2), ("study _v1", score[3]),
                              ("study _t5", score[4])):
        rows = board[board["setting"] == setting]
        assert set(rows["model"]) == models and len(rows) == 13
        assert list(rows["guessing_game"]) == pytest.approx([expected] * 13)
        assert set(rows["temperature"]) == {1.0} and set(rows["prompt_version"]) == {"v1"}
    assert list(board[board["setting"] == "vanilla"]["matches"]) == [2] * 13


@pytest.fixture(scope="module")
def transcripts(tmp_path_factory):
    """Two records: Guess 2/3 (each player's whole conversation kept) and Public Goods (its first answers cut)."""
    raw = tmp_path_factory.mktemp("raw")
    for game in ("guessing_game", "public_goods"):
        (raw / game).mkdir()
        shutil.copy(RAW / game / f"{game}_v1_1.json", raw / game)
    db = raw / "r.duckdb"
    import_dir(raw, db)
    return db


def _turns(db: Path, game: str, seat: int | None) -> list[dict]:
    seat_is = "t.seat IS NULL" if seat is None else f"t.seat = {seat}"
    return store.query(db, f"""SELECT t.turn, t.prompt, t.state FROM turns t JOIN matches m USING (match_id)
        WHERE m.game = '{game}' AND {seat_is} ORDER BY t.turn""").to_dict("records")


def test_the_match_header_holds_the_games_parameters_and_the_record_is_a_turn(transcripts):
    data = json.loads((GUESSING / "guessing_game_v1_1.json").read_text())
    params, outcome = store.rows(transcripts, "SELECT params, outcome FROM matches WHERE game = 'guessing_game'")[0]
    assert json.loads(params) == {"players": 10, "rounds": 20, "min": 0, "max": 100, "ratio": 2 / 3,
                                  "retry": "authors", "reading": "authors"}  # the authors' loop and json.loads
    assert "gama_record" not in json.loads(outcome) and "round_records" not in outcome
    first = _turns(transcripts, "guessing_game", None)[0]
    assert first["turn"] == 0
    assert json.loads(first["state"]) == {"meta": data["meta"], "round_records": data["round_records"]}


def test_each_decision_shows_what_its_player_saw_as_far_as_the_record_has_it(transcripts):
    conversation = json.loads((GUESSING / "guessing_game_v1_1.json").read_text())["player_data"][2]["prompt"]
    seen = [json.loads(t["prompt"]) for t in _turns(transcripts, "guessing_game", 2)]
    assert len(seen) == 20
    # the rules and the request before its first answer; then what came since its previous answer
    assert seen[0] == conversation[:2] and conversation[2]["role"] == "assistant"
    assert seen[1] == conversation[3:5] and conversation[5]["role"] == "assistant"
    assert "Game Results for Round 20" in seen[19][-1]["content"]
    # Public Goods keeps each player's last 17 answers, the first right after the rules: the first four decisions
    # have nothing but the rules (on the first)
    goods = [json.loads(t["prompt"]) for t in _turns(transcripts, "public_goods", 0)]
    assert goods[0][0]["role"] == "system" and goods[0][1:] == [NOT_KEPT] and goods[1:4] == [[NOT_KEPT]] * 3
    assert goods[4][-1]["content"].startswith("Game Results for Round 5")


def test_what_a_player_saw_without_a_conversation_in_the_record():
    assert seen_by_turn({"records": [1, 2]}, 2) == [[NOT_KEPT], [NOT_KEPT]]
    chat = [{"role": "system", "content": "rules"}, {"role": "user", "content": "go"},
            {"role": "assistant", "content": "1"}, {"role": "user", "content": "again"},
            {"role": "assistant", "content": "2"}, {"role": "user", "content": "you won"}]
    assert seen_by_turn({"prompt": chat}, 2) == [chat[:2], chat[3:4]]
    # more decisions than answers kept: the first have nothing, the rules stay on the first
    assert seen_by_turn({"prompt": chat}, 3) == [[chat[0], NOT_KEPT], [chat[1]], chat[3:4]]
    assert seen_by_turn({"prompt": chat}, 1) == [[chat[0], *chat[3:4]]]  # fewer: the last answers


def test_a_published_row_shows_its_spread_over_its_five_runs(tmp_path):
    db = tmp_path / "r.duckdb"
    import_dir(RAW, db)
    files = {f: json.loads(f.read_text()) for f in RAW.rglob("*_v1_[1-5].json")}
    games = {"bar_game_implicit": "bar_game"}
    runs = [statistics.mean(record_score(games.get(f.parent.name, f.name.split("_v1_")[0]), data)
                            for f, data in files.items() if f.name.endswith(f"_v1_{k}.json")) for k in range(1, 6)]
    row = leaderboard(db).iloc[0]
    assert row["overall"] == pytest.approx(statistics.mean(runs))
    assert row["overall_sd"] == pytest.approx(statistics.stdev(runs))
    assert row["overall_sd"] > 0


def test_the_transcripts_page_reads_an_imported_match_as_a_played_one(transcripts, monkeypatch):
    match_id = store.rows(transcripts, "SELECT match_id FROM matches WHERE game = 'guessing_game'")[0][0]
    first_decision = store.rows(transcripts, "SELECT min(turn) FROM turns WHERE match_id = ? AND seat = 0",
                                [match_id])[0][0]
    at = run_page("transcripts", transcripts, monkeypatch, match=match_id, turn=str(first_decision))
    assert not at.exception
    header = at.code[0].value
    assert header.startswith("params: ") and '"ratio"' in header and "round_records" not in header
    saw = [c.value for c in at.code[1:]]
    assert any("You are participating in a game played by 10 players" in text for text in saw)
    assert not any("nothing: a moderator message" in c.value for c in at.caption)
    # turn 0: the authors' record, drawn as tables (the meta block; a row per round record)
    record = run_page("transcripts", transcripts, monkeypatch, match=match_id, turn="0")
    assert not record.exception
    assert {"Meta", "Round records"} <= {m.value for m in record.markdown}
    assert 20 in {len(d.value) for d in record.dataframe}
