"""engine/score/kept_tables.py and default_views.py: the tables of the whole history (TrueSkill, Bradley-Terry,
LLMArena's table) are kept per database state beside the database; a new process reads them without reading the
log while nothing was written, gets the computed table to the bit, and computes again after a write, after rows
inserted around the writer (no state known) or on a new database at the same generation. The run command computes
the default views after a run, and the TrueSkill replay reads the matches a bounded part at a time."""

from __future__ import annotations

import asyncio
import json
import shutil

import pandas as pd
import pytest

from engine import store
from engine.papers import headline
from engine.papers.llmarena import leaderboard as llmarena
from engine.papers.registry import all_suites, get_suite
from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.present import default_views
from engine.score import bradley_terry, kept_tables, ratings, trueskill_replay
from engine.store.selection import ALL, Selection
from tests.test_ratings import write_outcomes

pytestmark = pytest.mark.slow

GAMES = [{"game": "tictactoe", "lineups": [["bot:equilibrium", "bot:random"], ["bot:random", "bot:equilibrium"]]},
         {"game": "connect_four", "lineups": [["bot:minimax", "bot:random"], ["bot:random", "bot:random"]]}]


def play(db, name: str, seed: int) -> None:
    spec = parse_spec({"name": name, "seed": seed, "repeats": 3, "games": GAMES})
    assert asyncio.run(run_spec(spec, db, progress=False)).errors == 0


@pytest.fixture
def played(tmp_path):
    db = tmp_path / "kept.duckdb"
    play(db, "first", 1)
    assert store.summaries_in_step(db)
    return db


def kept_files(db) -> list:
    """The files of the tables kept per state (the TrueSkill replays carried across states left out)."""
    folder = kept_tables.kept_tables_folder(db)
    return [path for path in folder.iterdir() if not path.name.startswith(kept_tables.CARRIED)]


def a_new_process() -> None:
    trueskill_replay._REPLAYED.clear()


def nothing_computed(patched: pytest.MonkeyPatch) -> None:
    """Every way to compute a rating fails: what is returned was kept."""
    def computed(*args, **kwargs):
        raise AssertionError("computed again")

    for module, name in ((trueskill_replay, "_teams"), (trueskill_replay, "_covered"), (ratings, "played_counts"),
                         (bradley_terry, "rated_pairs"), (bradley_terry, "fit_bradley_terry"),
                         (headline, "rated_pairs"), (llmarena, "average_rewards"), (llmarena, "_games_played")):
        patched.setattr(module, name, computed)


CALLS = {"TrueSkill every game": lambda db: ratings.trueskill_table(db),
         "TrueSkill one game": lambda db: ratings.trueskill_table(db, "tictactoe"),
         "Bradley-Terry every game": lambda db: ratings.bradley_terry_table(db),
         "Bradley-Terry one run": lambda db: ratings.bradley_terry_table(db, selection=Selection(
             run_ids=tuple(store.rows(db, "SELECT min(run_id) FROM runs")[0]))),
         "headline ratings": lambda db: headline.ratings(db, Selection(games=("connect_four",))),
         "LLMArena headline": lambda db: headline.headline(db, "llmarena"),
         "LLMArena table": lambda db: get_suite("llmarena").leaderboard(db)}


@pytest.mark.parametrize("name", list(CALLS))
def test_a_kept_table_is_the_computed_one_and_a_new_process_reads_no_match(played, name, monkeypatch):
    first = CALLS[name](played)
    assert len(first) > 0
    a_new_process()
    with monkeypatch.context() as patched:
        nothing_computed(patched)
        kept = CALLS[name](played)
    pd.testing.assert_frame_equal(kept, first, check_exact=True)
    a_new_process()
    kept_tables.forget(played)
    pd.testing.assert_frame_equal(CALLS[name](played), first, check_exact=True)  # computed again: the same


def test_a_write_makes_every_kept_table_stale(played, monkeypatch):
    before = ratings.trueskill_table(played)
    play(played, "second", 2)
    computed = []
    real = ratings._trueskill_table
    monkeypatch.setattr(ratings, "_trueskill_table", lambda *args: computed.append(1) or real(*args))
    after = ratings.trueskill_table(played)
    assert computed and not after.equals(before)
    files = kept_files(played)
    assert len(files) == 1  # the old ones dropped
    assert json.loads(files[0].read_text())["state"] == kept_tables.state(played)


def test_each_table_is_a_file_of_its_own_so_a_new_view_rewrites_no_other(played):
    """A view computed writes its own table alone (one file of every table was rewritten, and parsed again, at
    each new view); the one file of every table an older version kept is removed."""
    legacy = played.with_name(f"{played.name}.tables.json")
    legacy.write_text("{}")
    ratings.trueskill_table(played)
    (first,) = kept_files(played)
    written = first.stat().st_mtime_ns
    ratings.bradley_terry_table(played)
    assert len(kept_files(played)) == 2
    assert first.stat().st_mtime_ns == written
    assert not legacy.exists()


def test_rows_inserted_around_the_writer_are_never_answered_from_a_kept_table(played):
    before = ratings.trueskill_table(played, "tictactoe")
    write_outcomes(played, "tictactoe", [[("newcomer", 1, 1.0, "X"), ("bot:random", 2, 0.0, "O")]] * 3)
    assert kept_tables.state(played) is None  # the generation did not move: no state to key on
    assert "newcomer" in set(ratings.trueskill_table(played, "tictactoe")["agent"])
    assert "newcomer" not in set(before["agent"])


def test_a_new_database_at_the_same_generation_does_not_read_the_old_ones_tables(played, tmp_path):
    """A database deleted and made again counts its writes from 0: its creation time tells it apart."""
    kept = ratings.trueskill_table(played)
    other = tmp_path / "other.duckdb"
    spec = parse_spec({"name": "other", "seed": 5, "repeats": 2, "games": GAMES[:1]})
    assert asyncio.run(run_spec(spec, other, progress=False)).errors == 0
    with store.connect(other) as con:
        con.execute("UPDATE generation SET generation = ?", [store.generation(played)])
    shutil.copytree(kept_tables.kept_tables_folder(played), kept_tables.kept_tables_folder(other))
    assert kept_tables.state(other)[2] == kept_tables.state(played)[2]
    table = ratings.trueskill_table(other)
    pd.testing.assert_frame_equal(table, ratings._trueskill_table(other, ALL), check_exact=True)
    assert not table.equals(kept)


def test_two_copies_written_alike_never_share_a_state(played, tmp_path):
    """An attacker's report: two copies of one database that each took the same number of writes had the same
    state, so the tables kept beside one were read for the other once it was copied over it."""
    x, y = tmp_path / "x.duckdb", tmp_path / "y.duckdb"
    x.write_bytes(played.read_bytes())
    y.write_bytes(played.read_bytes())
    play(x, "on x", 7)
    play(y, "on y", 8)
    kept_x = ratings.trueskill_table(x)
    assert kept_tables.state(x) != kept_tables.state(y)
    y.replace(x)  # the user copies y over x; x's kept tables stay beside it
    table = ratings.trueskill_table(x)
    pd.testing.assert_frame_equal(table, ratings._trueskill_table(x, ALL), check_exact=True)
    assert not table.equals(kept_x)


def test_a_damaged_file_is_computed_again(played):
    first = ratings.bradley_terry_table(played)
    (kept,) = kept_files(played)
    saved = json.loads(kept.read_text())
    for damaged in ("{not json", '{"state": [1], "tables": []}', '[]', json.dumps({**saved, "key": 1}),
                    json.dumps({**saved, "table": {"columns": 3}}), json.dumps({**saved, "table": None})):
        kept.write_text(damaged)
        pd.testing.assert_frame_equal(ratings.bradley_terry_table(played), first, check_exact=True)


def test_a_table_computed_before_a_write_and_saved_after_it_leaves_the_newer_tables(played):
    """An attacker's report: a slow view computed at the old state, saved after a run wrote, removed every table the
    run command had just kept for the new state."""
    newer = []

    def slow_view():
        play(played, "meanwhile", 3)  # a run writes while the view computes
        newer.append(ratings.bradley_terry_table(played))  # kept at the new state
        return pd.DataFrame({"x": [1]})

    kept_tables.kept(played, "slow view", slow_view)
    assert len(kept_files(played)) == 2  # the slow view's (of a state no one asks again) and the newer one
    with pytest.MonkeyPatch.context() as patched:
        nothing_computed(patched)
        pd.testing.assert_frame_equal(ratings.bradley_terry_table(played), newer[0], check_exact=True)
    ratings.trueskill_table(played)  # the next table kept at the new state removes the older one
    assert len(kept_files(played)) == 2


@pytest.mark.parametrize("in_the_way", ["a file", "a symlink loop", "a folder in place of a table"])
def test_a_folder_in_the_way_only_costs_computing_again(played, in_the_way):
    """An attacker's report: a file or a symlink loop where the folder goes, or a folder where a table's file goes,
    raised out of the run command's refresh (exit 3) and out of a page."""
    first = ratings.bradley_terry_table(played)
    folder = kept_tables.kept_tables_folder(played)
    if in_the_way == "a folder in place of a table":
        (table,) = kept_files(played)
        table.unlink()
        table.mkdir()
        play(played, "newer", 4)  # the next save removes the older state's files: this one cannot be
        assert not ratings.trueskill_table(played).empty
        return
    shutil.rmtree(folder)
    if in_the_way == "a file":
        folder.write_text("not a folder")
    else:
        folder.symlink_to(folder)
    for _ in range(2):
        pd.testing.assert_frame_equal(ratings.bradley_terry_table(played), first, check_exact=True)


def test_a_table_nested_past_the_parsers_depth_is_computed_again(played):
    first = ratings.bradley_terry_table(played)
    (table,) = kept_files(played)
    table.write_text("[" * 200_000)
    pd.testing.assert_frame_equal(ratings.bradley_terry_table(played), first, check_exact=True)


def test_the_run_command_keeps_the_default_views_so_the_pages_first_calls_read_no_match(played, monkeypatch):
    default_views.refresh(played)
    a_new_process()
    with monkeypatch.context() as patched:
        nothing_computed(patched)
        kept = {name: call(played) for name, call in CALLS.items()}
    kept_tables.forget(played)
    for name, call in CALLS.items():
        pd.testing.assert_frame_equal(kept[name], call(played), check_exact=True, obj=name)


def test_the_replay_reads_the_matches_a_part_at_a_time_and_rates_as_in_one(played, monkeypatch):
    """At a million matches, reading every match's seats at once ran out of the reader's memory: the replay
    reads CHUNK matches at a time, and the ratings are the same to the bit."""
    whole = trueskill_replay.replayed_ratings(played, selection=Selection(games=("tictactoe",), contested=True))
    reads = []
    real = trueskill_replay._teams
    monkeypatch.setattr(trueskill_replay, "CHUNK", 2)
    monkeypatch.setattr(trueskill_replay, "_teams", lambda *args: reads.append(len(found := real(*args))) or found)
    a_new_process()
    parts = trueskill_replay.replayed_ratings(played, selection=Selection(games=("tictactoe",), contested=True))
    assert parts == whole
    matches = store.rows(played, "SELECT count(*) FROM matches WHERE game = 'tictactoe'")[0][0]
    assert len(reads) > 2 and max(reads) <= 2 and sum(reads) == matches


def test_nothing_selected_is_an_empty_table_kept_as_such(played):
    """An empty table read from its file is the one computed, to its columns' index (LLMArena's table of nothing has
    no column: it came back with an empty Index where pandas makes a RangeIndex)."""
    nothing = Selection(run_ids=("no such run",))
    computed = get_suite("llmarena").leaderboard(played, nothing)
    for _ in range(2):
        assert ratings.trueskill_table(played, "bargain").empty
        assert ratings.bradley_terry_table(played, selection=nothing).empty
        a_new_process()
        pd.testing.assert_frame_equal(get_suite("llmarena").leaderboard(played, nothing), computed)
    assert ratings.trueskill_table(played, selection=ALL).shape[0] > 0


@pytest.mark.parametrize("selection", [ALL, Selection(games=("duel",)), Selection(run_ids=("synthetic",)),
                                       Selection(games=("trio",), contested=True), Selection(games=("solo",)),
                                       Selection(games=("hanabi",))])
def test_trueskills_counts_and_groups_summed_are_the_logs(tmp_path, monkeypatch, selection):
    """TrueSkill's matches, wins and groups of who met whom from the summaries, as from the log: an agent seen only
    in self-play listed with 0, two groups that never met apart, ties and three-seat matches."""
    db = tmp_path / "summed.duckdb"
    write_outcomes(db, "duel", [[("a", 1, 1.0), ("b", 2, 0.0)], [("b", 1, 1.0), ("a", 2, 0.0)],
                                [("c", 1, 1.0), ("d", 2, 0.0)], [("e", 1, 1.0), ("e", 2, 0.0)],
                                [("a", 1, 0.5), ("b", 1, 0.5)]] * 3)
    write_outcomes(db, "trio", [[("a", 1, 1.0), ("c", 2, 0.0), ("c", 2, 0.0)], [("e", 1, 1.0), ("e", 2, 0.0)]] * 2)
    write_outcomes(db, "solo", [[("e", 1, 1.0), ("e", 2, 0.0)]] * 2)  # self-play only: no pair, agents at 0
    write_outcomes(db, "hanabi", [[("a", 1, 9.0), ("b", 1, 9.0)]] * 2)  # one team: no pair, yet contested matches
    store.rebuild_summaries(db)
    summed = ratings._trueskill_table(db, selection)
    with monkeypatch.context() as patched:
        patched.setattr(store, "summaries_in_step", lambda db: False)
        logged = ratings._trueskill_table(db, selection)
    assert len(logged) >= 1
    pd.testing.assert_frame_equal(summed, logged, check_exact=True)
    with monkeypatch.context() as patched:
        patched.setattr(ratings, "played_counts", None)  # the summaries answer: the log's counts are not read
        patched.setattr(ratings, "pairwise_outcomes", None)
        pd.testing.assert_frame_equal(ratings._trueskill_table(db, selection), logged, check_exact=True)


def test_the_run_command_keeps_every_suites_headline_and_table_as_computed(first_run_db, tmp_path, monkeypatch):
    """The Leaderboards page's first calls, on `make run`'s database (every paper's games): after the run command's
    refresh, every played suite's headline and table are read from their kept files without a query (MAgIC's profile
    and γ-Bench's table summed 100,000 summary rows a call at 50,000 matches), the same to the bit as computed."""
    db = tmp_path / "first.duckdb"
    shutil.copy(first_run_db, db)
    default_views.refresh(db)
    played = [name for name, suite in all_suites().items() if suite.games]  # the other games' suite: none played
    assert played == ["gamabench", "magic", "llmarena", "wis"]
    calls = {f"{suite} {what}": call for suite in played for what, call in (
        ("headline", lambda db, suite=suite: headline.headline(db, suite)),
        ("table", lambda db, suite=suite: get_suite(suite).leaderboard(db)))}
    a_new_process()
    with monkeypatch.context() as patched:
        for read in ("query", "queries_at_once", "query_many_rows"):
            patched.setattr(store, read, None)  # reading the summaries or the log would fail
        kept = {name: call(db) for name, call in calls.items()}
    assert all(len(kept[f"{suite} {what}"]) for suite in ("magic", "gamabench", "llmarena", "wis")
               for what in ("headline", "table"))
    with monkeypatch.context() as patched:
        patched.setattr(kept_tables, "state", lambda db: None)  # no state known: every call computes
        for name, call in calls.items():
            pd.testing.assert_frame_equal(kept[name], call(db), check_exact=True, obj=name)


def test_the_run_command_keeps_llmarenas_figures_of_each_game(played, monkeypatch):
    """The Games page's LLMArena figures read every match's turns or metrics (a minute at a million matches): after
    the run command's refresh, their view of each game is read from the kept file, the same to the bit."""
    default_views.refresh(played)
    views = [(figure, game) for figure in get_suite("llmarena").figures for game in figure.games]
    with monkeypatch.context() as patched:
        patched.setattr(store, "query", None)  # reading the log would fail
        kept = [figure.compute(played, Selection().of_game(game)) for figure, game in views]
    assert sum(len(table) > 0 for table in kept) >= 3  # TicTacToe's and ConnectFour's hint ablation, the rewards
    kept_tables.forget(played)
    for table, (figure, game) in zip(kept, views, strict=True):
        pd.testing.assert_frame_equal(table, figure.compute(played, Selection().of_game(game)), check_exact=True)


def test_a_table_that_cannot_be_saved_is_computed_once_per_process(played, monkeypatch):
    """A read-only folder (a read-only database's): the table is held in this process for the state, and a write
    still makes it stale."""
    monkeypatch.setattr(kept_tables, "write_whole", lambda path, text: False)
    first = ratings.bradley_terry_table(played)
    with monkeypatch.context() as patched:
        nothing_computed(patched)
        pd.testing.assert_frame_equal(ratings.bradley_terry_table(played), first, check_exact=True)
    play(played, "second", 2)
    assert not ratings.bradley_terry_table(played).equals(first)


def test_the_saved_replays_live_with_the_kept_tables_across_states(played):
    """One folder beside the database: the TrueSkill replays are carried across states (a table kept at a new
    state removes the older states' tables, never them), and dropped with the rest by `forget`."""
    ratings.trueskill_table(played)
    replays = ratings.saved_replays_path(played)
    assert replays.parent == kept_tables.kept_tables_folder(played) and replays.exists()
    play(played, "second", 2)
    ratings.bradley_terry_table(played)  # a table of the new state: the older state's tables go
    assert replays.exists()
    kept_tables.forget(played)
    assert not replays.exists()


def test_a_table_with_dates_is_kept_as_computed(played):
    """The filter options every page opens with (`pages/shared/caching.py`) hold dates: written as text, read back
    as their dtype."""
    from engine.present import queries

    first = queries.filter_options(played)
    kept = kept_tables.kept_per_state(queries.filter_options)
    pd.testing.assert_frame_equal(kept(played), first, check_exact=True)
    kept_tables._PARSED.clear()  # a new process
    pd.testing.assert_frame_equal(kept(played), first, check_exact=True)
