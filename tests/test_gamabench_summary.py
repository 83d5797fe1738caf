"""γ-Bench's summary (engine/store/summaries.py `gamabench_summary`) and the table that sums it
(engine/papers/gamabench/scores.py `leaderboard`): the log's table for every selection the summary's grain answers,
GAMA-Bench's published records included (their five runs' spread, their studies of their own, their strategies),
read from no seat or score there and from the log for a selection it does not answer; the writer's rows are a
rebuild's, a resumed run, an errored match played again and a re-imported match counted once; an upgrade from
version 10 and a rescore build it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from engine import store
from engine.papers.gamabench import scores as gamabench
from engine.papers.gamabench.importer import import_dir
from engine.papers.registry import get_suite
from engine.play.playing import play_match
from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.store.selection import ALL
from engine.study.rescore import rescore
from tests.summary_rows import assert_rebuild_gives_the_writers_rows, same_rows, summary_rows

pytestmark = pytest.mark.slow  # two imports, two runs and 30 table calls: half a minute

ROOT = Path(__file__).resolve().parent.parent
RAW = ROOT / "engine" / "papers" / "gamabench" / "raw_results"  # five runs of eight games: a spread over runs
STUDIES = ROOT / "tests" / "data" / "gamabench"  # studies of their own (_g0, _h0, _r10...), strategies (cot)
FIFTY = {"agent": "bot:fixed:50", "label": "fifty"}


def spec(name: str, seed: int, repeats: int):
    """Self-play (the match score) and mixed lineups (each agent its seats' mean), in two games."""
    return parse_spec({"name": name, "seed": seed, "repeats": repeats, "games": [
        {"game": "guessing_game", "params": {"players": 5, "rounds": 2},
         "lineups": [{"all": "bot:equilibrium"},
                     ["bot:equilibrium"] * 3 + [FIFTY] * 2, [FIFTY, *["bot:random"] * 4]]},
        {"game": "divide_dollar", "params": {"players": 3, "rounds": 2},
         "lineups": [{"all": "bot:random"}, ["bot:random", "bot:equilibrium", "bot:random"]]}]})


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """GAMA-Bench's published folder and the studies' records imported, then two runs: the first resumed (nothing
    written twice), in the second an errored match replaced by its replay and an ok match re-imported, and its
    "fifty" seats given a max_tokens (bots have none; their name is their label and agent string), and one match stored
    without its scores (a score no cell averages, its match still counted)."""
    db = tmp_path_factory.mktemp("gamasum") / "results.duckdb"
    import_dir(RAW, db)
    import_dir(STUDIES, db)
    import_dir(RAW, db)  # again: adds nothing
    first, second = spec("first", 1, 2), spec("second", 2, 1)
    assert asyncio.run(run_spec(first, db, progress=False)).errors == 0
    assert asyncio.run(run_spec(first, db, progress=False)).played == 0

    async def play():
        return [await play_match(plan) for plan in second.matches]

    store.upsert_run(db, second.run_id, second.name, second.raw, "engine", len(second.matches))
    records = asyncio.run(play())
    for seat in (seat for record in records for seat in record.seats if seat["label"] == "fifty"):
        seat["max_tokens"] = 64
    records[2].metrics = []
    errored = records[0]
    errored_first = type(errored)(errored.match | {"status": "error", "error": "provider down"}, errored.seats,
                                  errored.turns, errored.metrics)
    assert store.write_matches(db, [errored_first, *records[1:]]) == len(records)
    assert store.write_matches(db, records) == 1
    store.write_match(db, records[1].match, records[1].seats, records[1].turns, records[1].metrics)  # re-import
    return db


def test_the_table_holds_every_kind_of_row(played):
    """The published row with its spread over five runs, studies of their own, a strategy, self-play, a mixed
    match's agents and a labelled bot (a bot's name is its agent string: its max_tokens names nothing)."""
    board = gamabench.leaderboard(played)
    published = board[board.source == "published"]
    assert published["overall_sd"].max() > 0 and published["overall"].notna().any()
    assert board["setting"].str.contains("study _|\\(_", regex=True).sum() >= 3
    assert set(board["strategy"].dropna()) > {"vanilla"}
    ours = board[board.source == "ours"].set_index(["model", "setting"])["guessing_game"].dropna()
    assert {"bot:equilibrium", "fifty · bot:fixed:50", "bot:random"} <= set(ours.index.get_level_values("model"))


def test_the_writers_rows_are_a_rebuilds_a_resumed_and_a_reimported_match_counted_once(played, tmp_path):
    incremental = assert_rebuild_gives_the_writers_rows(played, tmp_path, ("gamabench_summary",))["gamabench_summary"]
    counted = store.rows(played, """
        SELECT count(*) FROM (SELECT DISTINCT s.match_id, coalesce(s.label, s.agent), s.temperature, s.prompt_version,
                                              s.max_tokens, s.strategy
                              FROM seats s JOIN matches m USING (match_id)
                              WHERE m.status = 'ok' AND m.game IN (SELECT unnest(?)))""",
                         [list(get_suite("gamabench").games)])[0][0]
    assert incremental["matches"].sum() == counted > 60


def test_a_version_10_database_gets_its_gamabench_summary_built_by_the_upgrade(played, tmp_path):
    db = tmp_path / "v10.duckdb"
    db.write_bytes(played.read_bytes())
    with store.connect(db) as con:
        con.execute("DROP TABLE gamabench_summary")
        con.execute("ALTER TABLE generation DROP COLUMN summaries_code")  # older than version 17
        con.execute("DELETE FROM schema_version")
        con.execute("INSERT INTO schema_version VALUES (10, now())")
    store.check_db(db)
    assert store.summaries_in_step(db)
    same_rows(summary_rows(db, "gamabench_summary"), summary_rows(played, "gamabench_summary"))


def test_rescore_rebuilds_the_gamabench_summary_from_the_log(played, tmp_path):
    db = tmp_path / "rescored.duckdb"
    db.write_bytes(played.read_bytes())
    with store.connect(db) as con:
        con.execute("UPDATE gamabench_summary SET total = 0")  # gone wrong, still in step
    summary = rescore(db, ALL.of_game("divide_dollar"))
    assert summary.rescored > 0 and not summary.failed
    same_rows(summary_rows(db, "gamabench_summary"), summary_rows(played, "gamabench_summary"))
