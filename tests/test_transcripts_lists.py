"""The lists the transcripts, games and leaderboard pages open with, read at scale (issue 28): the agents named from
the summaries (`agent_settings`, `agent_summary`) are the log's, failed attempts and seats without a place included;
a search's newest matches, their lineups and failures, and one match's turns are the same whichever way the agents'
settings are read; the filter options count fallback matches only when asked."""

from __future__ import annotations

import asyncio
import shutil

import pandas as pd
import pytest

from engine import store
from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.present import queries, transcripts
from engine.present.transcripts import MatchSearch
from engine.store.selection import Selection
from engine.store.valid_answers import invalid_sql
from tests.page_run import run_page

pytestmark = pytest.mark.slow

SPEC = {"name": "lists", "seed": 5, "repeats": 2, "games": [
    {"game": "tictactoe", "presets": ["default", "no_hint"],
     "lineups": [["bot:equilibrium", "bot:random"], ["bot:random", "bot:random"]]},
    {"game": "guessing_game", "params": {"players": 3, "rounds": 2},
     "lineups": [["bot:random", "bot:equilibrium", "bot:random"]]},
]}
ERRORED = "bot:only-errored"  # an agent whose one match failed: no summary row counts it
UNPLACED = "bot:unplaced"  # an agent whose one seat of an ok match has no place


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    """Bots' matches; bot:random under a label in one seat (so names carry it), a failed attempt, a seat without a
    place, a fallback move; the seats changed here named again and the summaries rebuilt from that log, as
    `engine rescore` does."""
    path = tmp_path_factory.mktemp("lists") / "results.duckdb"
    assert asyncio.run(run_spec(parse_spec(SPEC), path, progress=False)).errors == 0
    with store.connect(path) as con:
        first, second = [r[0] for r in con.execute("SELECT match_id FROM matches WHERE game = 'tictactoe' "
                                                   "ORDER BY match_id LIMIT 2").fetchall()]
        con.execute("UPDATE seats SET label = 'rnd' WHERE agent = 'bot:random' AND seat = 0")
        con.execute("UPDATE matches SET status = 'error', error = 'provider down' WHERE match_id = ?", [first])
        con.execute("UPDATE seats SET agent = ?, label = ?, rank = NULL, won = NULL WHERE match_id = ? AND seat = 1",
                    [ERRORED, ERRORED, first])
        con.execute("UPDATE seats SET agent = ?, label = ?, rank = NULL WHERE match_id = ? AND seat = 1",
                    [UNPLACED, UNPLACED, second])
        con.execute("UPDATE turns SET fallback = true, legal = false WHERE match_id = ? AND seat = 0", [second])
        con.execute("UPDATE seats SET agent_name = NULL")  # named as the writer names a seat by the rebuild
    store.rebuild_summaries(path)
    assert store.summaries_in_step(path)
    return path


def logged(fn, *args, monkeypatch, **kwargs):
    """`fn` with the summaries out of the way: what the log alone answers."""
    with monkeypatch.context() as patched:
        patched.setattr(store, "summaries_in_step", lambda db: False)
        return fn(*args, **kwargs)


def test_the_agents_named_from_the_summaries_are_the_logs_failed_and_unplaced_seats_included(db, monkeypatch):
    for game in (None, "tictactoe", "guessing_game", "no_such_game"):
        summed = transcripts.agents(db, game)
        assert summed == logged(transcripts.agents, db, game, monkeypatch=monkeypatch)
        if game in (None, "tictactoe"):
            assert {ERRORED, UNPLACED} <= set(summed)
            assert {"rnd · bot:random", "bot:random"} <= set(summed)  # a label: before the agent it names
    assert transcripts.agents(db, "no_such_game") == []


SEARCHES = {
    "newest": MatchSearch(),
    "a labelled agent won": MatchSearch(agents=("rnd · bot:random",), outcome="the agent won"),
    "an agent lost, one game": MatchSearch("tictactoe", ("bot:equilibrium",), "the agent lost"),
    "errors": MatchSearch(outcome="error"),
    "parse failures": MatchSearch(parse_failures=True),
    "no winner": MatchSearch(outcome="no winner"),
    "nobody": MatchSearch(agents=("nobody",)),
    "a leaderboard cell's matches": MatchSearch(within=Selection(presets=("no_hint",))),
    "a cell's, one agent": MatchSearch(within=Selection(agents=("bot:equilibrium",), contested=True)),
}


@pytest.mark.parametrize("name", list(SEARCHES))
def test_a_searchs_matches_are_the_same_with_agents_named_from_the_summaries(db, monkeypatch, name):
    search = SEARCHES[name]
    found = transcripts.find_matches(db, search)
    pd.testing.assert_frame_equal(found, logged(transcripts.find_matches, db, search, monkeypatch=monkeypatch),
                                  check_dtype=not found.empty)
    assert transcripts.count_matches(db, search) == len(found)  # fewer than MAX_RESULTS here
    assert list(found.columns) == transcripts.FOUND_COLUMNS


def test_a_search_lists_the_right_matches(db):
    every = store.query(db, "SELECT match_id, status FROM matches")
    assert len(transcripts.find_matches(db, MatchSearch())) == len(every)
    assert transcripts.find_matches(db, MatchSearch(outcome="error"))["match_id"].tolist() == \
        every[every["status"] == "error"]["match_id"].tolist()
    won = transcripts.find_matches(db, SEARCHES["a labelled agent won"])
    assert not won.empty and won["lineup"].str.contains("rnd · bot:random (won)", regex=False).all()
    failed = transcripts.find_matches(db, MatchSearch(parse_failures=True))
    assert len(failed) == 1 and failed["parse_failures"].iloc[0] > 0
    assert transcripts.find_matches(db, MatchSearch(), limit=3)["match_id"].tolist() == \
        transcripts.find_matches(db, MatchSearch())["match_id"].head(3).tolist()  # the newest first
    assert transcripts.find_matches(db, SEARCHES["nobody"]).empty


def test_a_search_through_the_turns_reads_the_newest_written_and_every_turn_when_asked(db, tmp_path, monkeypatch):
    """A text and the parse failures are looked for in the newest TURNS_SEARCHED turns by row id (the order the
    writer appended them; every answer of 20M turns took 3-9 s to read), and in every turn when asked."""
    copy = tmp_path / "copy.duckdb"
    shutil.copy(db, copy)
    with store.connect(copy) as con:
        (total,), = con.execute("SELECT count(*) FROM turns").fetchall()
        oldest, newest = con.execute("SELECT match_id FROM turns WHERE rowid IN (0, ?) ORDER BY rowid",
                                     [total - 1]).fetchall()
        con.execute("UPDATE turns SET response = 'an old Needle.' WHERE rowid = 0")
        con.execute("UPDATE turns SET response = 'a new needle?' WHERE rowid = ?", [total - 1])
    monkeypatch.setattr(transcripts, "TURNS_SEARCHED", 3)
    newest_only, every = MatchSearch(text="needle"), MatchSearch(text="needle", every_turn=True)
    assert oldest != newest and transcripts.turns_searched(copy, newest_only) == (total - 3, total)
    assert transcripts.find_matches(copy, newest_only)["match_id"].tolist() == [newest[0]]
    assert transcripts.count_matches(copy, newest_only) == 1
    assert set(transcripts.find_matches(copy, every)["match_id"]) == {oldest[0], newest[0]}
    assert transcripts.count_matches(copy, every) == 2
    assert transcripts.turns_searched(copy, every) == transcripts.turns_searched(copy, MatchSearch()) == (0, total)
    failed = store.rows(copy, f"SELECT DISTINCT match_id FROM turns t WHERE seat IS NOT NULL AND {invalid_sql('t')}")
    assert transcripts.find_matches(copy, MatchSearch(parse_failures=True, every_turn=True))["match_id"].tolist() == \
        [failed[0][0]]  # as every turn read: the one match with a fallback move
    last_failure = store.rows(copy, f"SELECT max(rowid) FROM turns t WHERE seat IS NOT NULL AND {invalid_sql('t')}")
    monkeypatch.setattr(transcripts, "TURNS_SEARCHED", total - last_failure[0][0])  # from its last failure on
    assert transcripts.find_matches(copy, MatchSearch(parse_failures=True))["match_id"].tolist() == [failed[0][0]]
    monkeypatch.setattr(transcripts, "TURNS_SEARCHED", total - last_failure[0][0] - 1)  # from just after it
    assert transcripts.find_matches(copy, MatchSearch(parse_failures=True)).empty


def test_the_page_says_how_far_back_a_search_through_the_turns_read(db, monkeypatch):
    monkeypatch.setattr(transcripts, "TURNS_SEARCHED", 3)
    total = store.rows(db, "SELECT count(*) FROM turns")[0][0]

    def captions(**params: str) -> list[str]:
        page = run_page("transcripts", db, monkeypatch, **params)
        assert not page.exception
        return [c.value for c in page.caption]

    said = f"Searched the newest 3 of {total:,} turns"
    assert any(c.startswith(said) for c in captions(q="no such words"))
    assert any(c.startswith(said) for c in captions(failures="1"))
    assert not any(c.startswith("Searched") for c in captions(q="no such words", every="1") + captions())


def test_a_matchs_turns_name_their_agents_from_the_summaries_as_from_the_seats(db, monkeypatch):
    for match_id in transcripts.find_matches(db, MatchSearch())["match_id"]:
        turns = transcripts.match_turns(db, match_id)
        pd.testing.assert_frame_equal(turns, logged(transcripts.match_turns, db, match_id, monkeypatch=monkeypatch))
    assert set(turns["agent"].dropna()) <= set(transcripts.agents(db))


def test_the_filter_options_count_fallback_matches_only_when_asked(db):
    options = queries.filter_options(db)
    assert "fallback_matches" not in options  # a read of every turn, for the filter that leaves them out
    counted = queries.filter_options(db, fallbacks=True)
    pd.testing.assert_frame_equal(counted.drop(columns="fallback_matches"), options)
    assert counted["fallback_matches"].sum() == store.rows(db, """
        SELECT count(DISTINCT m.match_id) FROM matches m JOIN turns t USING (match_id)
        WHERE m.status = 'ok' AND t.fallback""")[0][0] == 1


def test_the_newest_matches_are_the_first_in_order_of_finish_then_id_ties_and_unfinished_included(db, tmp_path):
    copy = tmp_path / "ties.duckdb"
    copy.write_bytes(db.read_bytes())
    with store.connect(copy) as con:  # ties at the newest time and at an older one; some never finished
        con.execute("""UPDATE matches SET finished_at = CASE WHEN hash(match_id) % 3 = 0 THEN NULL
                       WHEN hash(match_id) % 3 = 1 THEN TIMESTAMP '2030-01-01' ELSE TIMESTAMP '2020-01-01' END""")
    every = store.query(copy, "SELECT match_id, finished_at FROM matches")
    ordered = every.sort_values(["finished_at", "match_id"], ascending=[False, True], na_position="last")
    for limit in range(1, len(every) + 2):
        for matches_only in (True, False):
            assert queries.newest_matches(copy, "TRUE", [], limit, matches_only) == \
                ordered["match_id"].head(limit).tolist()
    assert queries.recent_matches(copy, limit=4)["match_id"].tolist() == ordered["match_id"].head(4).tolist()
