"""engine/store/summaries.py: the per-agent sums the headline reads are written with the matches they count, so
they are never stale and never count a match twice (a resumed run, an errored match played again, a re-import);
`engine rescore` rebuilds them from the log to the same rows; the headline's figures summed from them are the
log's, for every selection their grain answers, and a selection it does not answer (a date range, an agent)
or summaries out of step with the log (rows inserted around the writer) are read from the log."""

from __future__ import annotations

import asyncio
import gzip
import random
from dataclasses import replace

import pandas as pd
import pytest
from scipy import stats

from engine import store
from engine.papers import headline
from engine.papers.registry import get_suite
from engine.play.playing import play_match
from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.present import queries
from engine.score import bradley_terry, kept_tables, ratings, trueskill_replay
from engine.store import summaries
from engine.store.selection import ALL, Selection
from engine.study.rescore import rescore
from tests.summary_rows import (
    assert_rebuild_gives_the_writers_rows,
    assert_upgrade_builds_them,
    same_rows,
    summary_rows,
)
from tests.test_ratings import write_outcomes
from tests.test_schema import DATA

RANDOM = {"all": "bot:random"}
GAMES = [
    {"game": "tictactoe", "presets": ["default", "no_hint"],
     "lineups": [["bot:equilibrium", "bot:random"], ["bot:random", "bot:random"]]},  # self-play too
    {"game": "hanabi", "lineups": [RANDOM]},  # cooperative: its self-play counts
    {"game": "undercover", "presets": ["magic", "wis"],
     "lineups": [{"challenger": "bot:letters", "others": "bot:random"}]},
    {"game": "guessing_game", "params": {"players": 3, "rounds": 2},
     "lineups": [RANDOM, ["bot:random", "bot:equilibrium", "bot:random"]]},  # γ-Bench's 0-100 score
    {"game": "connect_four", "lineups": [["bot:random", "bot:minimax"]]},
]


def spec(name: str, seed: int, repeats: int = 2):
    return parse_spec({"name": name, "seed": seed, "repeats": repeats, "games": GAMES})


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """Two runs, the first resumed (every match sent again: none is written twice), and in the second an errored
    match replaced by its replay and an ok match re-imported (`replace`)."""
    db = tmp_path_factory.mktemp("summaries") / "results.duckdb"
    first, second = spec("first", 1), spec("second", 2, repeats=1)
    assert asyncio.run(run_spec(first, db, progress=False)).errors == 0
    assert asyncio.run(run_spec(first, db, progress=False)).played == 0  # resumed: all done already

    async def play():
        return [await play_match(plan) for plan in second.matches]

    store.upsert_run(db, second.run_id, second.name, second.raw, "engine", len(second.matches))
    records = asyncio.run(play())
    errored = records[0]
    errored_first = type(errored)(errored.match | {"status": "error", "error": "provider down"}, errored.seats,
                                  errored.turns, errored.metrics)
    assert store.write_matches(db, [errored_first, *records[1:]]) == len(records)
    assert store.write_matches(db, records) == 1  # the errored one played again; the others are kept
    store.write_match(db, records[1].match, records[1].seats, records[1].turns, records[1].metrics)  # re-import
    return db


def same_figures(left: pd.DataFrame, right: pd.DataFrame, keys: list[str]) -> None:
    same_rows(left.sort_values(keys, ignore_index=True), right.sort_values(keys, ignore_index=True))


def test_the_writer_keeps_the_summaries_in_step_and_a_rebuild_gives_the_same_rows(played, tmp_path):
    assert store.summaries_in_step(played)
    counted = store.rows(played, "SELECT sum(matches) FILTER (WHERE label = 'bot:letters') FROM agent_summary")
    assert counted == store.rows(played, """SELECT count(DISTINCT m.match_id) FROM matches m JOIN seats s
        USING (match_id) WHERE m.status = 'ok' AND s.label = 'bot:letters' AND s.rank IS NOT NULL""")
    written = assert_rebuild_gives_the_writers_rows(played, tmp_path, (*summaries.SUMMARIES, "match_scores"))
    for table, rows in written.items():  # one γ-Bench game; two runs
        assert len(rows) > {"agent_settings": 3, "gamabench_summary": 5, "run_totals": 1}.get(table, 20), table


def test_the_agent_settings_are_the_seats_settings_an_errored_attempt_replaced_included(played):
    """What the agent lists read from the summaries instead of the seats: every agent any seat holds, ok or errored
    match, and no seat of an attempt replaced (the fixture replaced an errored one)."""
    settings = store.query(played, "SELECT * FROM agent_settings")
    seats = store.query(played, """SELECT coalesce(label, agent) AS label, temperature, prompt_version, max_tokens,
                                          agent_name, count(*) AS seats FROM seats GROUP BY ALL""")
    same_figures(settings, seats, ["agent_name", "label", "temperature", "prompt_version", "max_tokens"])


SELECTIONS = {
    "all": ALL,
    "one run": Selection(run_ids=(spec("second", 2, repeats=1).run_id,)),
    "one game": ALL.of_game("undercover"),
    "one preset": Selection(presets=("no_hint",)),
    "two games, one preset": Selection(games=("tictactoe", "hanabi"), presets=("default",)),
    "a suite's rule sets": ALL.within(get_suite("wis").variants),
}


def scored_matches(db) -> None:
    """Three tictactoe matches between `a` and `b` (a wins two) and each seat's `gamabench_score`, inserted around
    the writer: the summaries are out of step until a rebuild."""
    write_outcomes(db, "tictactoe", [[("a", 1, 1.0), ("b", 2, 0.0)], [("a", 1, 1.0), ("b", 2, 0.0)],
                                     [("b", 1, 1.0), ("a", 2, 0.0)]])
    scores = {("tictactoe-0", 0): 10, ("tictactoe-1", 0): 20, ("tictactoe-2", 1): 30,
              ("tictactoe-0", 1): 40, ("tictactoe-1", 1): 40, ("tictactoe-2", 0): 70}
    with store.connect(db) as con:
        con.executemany("INSERT INTO metrics (match_id, seat, name, value) VALUES (?, ?, 'gamabench_score', ?)",
                        [[match_id, seat, value] for (match_id, seat), value in scores.items()])


def test_the_figures_of_known_matches_out_of_step_and_after_a_rebuild(tmp_path):
    """The one definition of each figure, read from the log's rows (summaries out of step) and from the stored
    summary after a rebuild: the values worked out by hand both times."""
    db = tmp_path / "known.duckdb"
    scored_matches(db)
    half = stats.t.ppf(0.975, 2) * (100 / 3) ** 0.5  # a's scores 10, 20, 30: mean 20, variance 100
    for in_step in (False, True):
        assert store.summaries_in_step(db) == in_step
        figures = headline.agent_figures(db).set_index("agent")
        assert figures.loc["a", ["matches", "seats", "wins", "draws"]].tolist() == [3, 3, 2, 0]
        assert figures.loc["a", "win_rate"] == pytest.approx(2 / 3)
        assert figures.loc["b", "win_rate"] == pytest.approx(1 / 3)
        assert figures.loc["a", "mean_score"] == pytest.approx(2 / 3)
        scored = headline.scores(db, ALL, "gamabench_score").set_index("agent")
        assert scored.loc["a", ["value", "value_lo", "value_hi"]].tolist() == pytest.approx([20, 20 - half, 20 + half])
        assert scored.loc["b", "value"] == pytest.approx(50)
        assert queries.agents(db).set_index("agent")["seats"].to_dict() == {"a": 3, "b": 3}
        store.rebuild_summaries(db)


def test_a_date_range_over_every_match_gives_the_unfiltered_figures(played):
    """A date range reads the summaries kept by day, the unfiltered view the summary itself: the same figure for the
    same matches."""
    first, last = store.rows(played, "SELECT min(finished_at)::DATE, max(finished_at)::DATE FROM matches")[0]
    every_day = Selection(date_from=first, date_to=last)
    same_figures(headline.agent_figures(played, every_day, by_game=True),
                 headline.agent_figures(played, ALL, by_game=True), ["game", "rule_set", "agent"])
    same_rows(headline.scores(played, every_day, "gamabench_score", (0, 100)),
              headline.scores(played, ALL, "gamabench_score", (0, 100)))
    for suite in ("llmarena", "magic", "wis", "gamabench"):
        same_rows(headline.headline(played, suite, every_day), headline.headline(played, suite))


@pytest.mark.parametrize("name", list(SELECTIONS))
def test_the_pairwise_outcomes_summed_are_the_logs_and_so_are_the_ratings(played, name, monkeypatch):
    """Bradley-Terry (every game, the LLMArena headline) reads the pairwise summary: the same kinds, numbered alike,
    the same weights and scores to the bit (a hash of them is a kind's signature), so the same bootstrap."""
    selection = replace(SELECTIONS[name], contested=True)
    summed_pairs, summed_played = ratings.rated_pairs(played, selection)
    summed = ratings.bradley_terry_table(played, selection=selection)
    with monkeypatch.context() as patched:
        patched.setattr(store, "summaries_in_step", lambda db: False)
        logged_pairs, logged_played = ratings.rated_pairs(played, selection)
        logged = ratings.bradley_terry_table(played, selection=selection)
    assert len(logged_pairs) > 0 and (name != "all" or logged_pairs["kind"].nunique() > 3)
    pd.testing.assert_frame_equal(summed_pairs, logged_pairs, check_exact=True)
    same_figures(summed_played, logged_played[logged_played["agent"].isin(summed_played["agent"])], ["agent"])
    same_rows(summed, logged)


def logged_pairs(db, selection: Selection):
    """`ratings.rated_pairs` read from the log (the summaries out of the way)."""
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(store, "summaries_in_step", lambda db: False)
        return ratings.rated_pairs(db, selection)


def test_the_pairwise_summary_of_ties_teams_cooperation_and_one_label_at_two_settings_is_the_logs(tmp_path,
                                                                                                    monkeypatch):
    """Outcomes the bots rarely give: ties at the best and lower places, four agents in a match, roles (teammates
    ranked apart are no pair), a cooperative game's roleless seats (one team whatever their places: no pair), and
    a label at two temperatures (two agents, whose names put a pair the other way round than their stored
    identities)."""
    db = tmp_path / "pairs.duckdb"
    rng = random.Random(7)
    agents = ["a", "b", "c", "d", "e"]

    def lineup(roles=()):
        seated = rng.sample(agents, 4)
        return [(agent, rng.choice([1, 2, 2, 3]), 1.0, *roles[i:i + 1]) for i, agent in enumerate(seated)]

    write_outcomes(db, "guessing_game", [lineup() for _ in range(60)], params={"players": 4})
    write_outcomes(db, "undercover", [lineup(("spy", "civilian", "civilian", "civilian")) for _ in range(40)])
    write_outcomes(db, "hanabi", [lineup() for _ in range(10)])
    with store.connect(db) as con:
        con.execute("UPDATE seats SET temperature = CASE WHEN seat % 2 = 0 THEN 0.5 ELSE 1.0 END, agent_name = NULL "
                    "WHERE agent = 'a'")  # named again by the rebuild, as the writer names a seat
    store.rebuild_summaries(db)
    for hanabi_pairs in (ratings.rated_pairs(db, ALL.of_game("hanabi")), logged_pairs(db, ALL.of_game("hanabi"))):
        assert hanabi_pairs is None
    for selection in (Selection(contested=True), ALL.of_game("undercover")):
        with monkeypatch.context() as patched:
            patched.setattr(bradley_terry, "read_with_played", None)  # the summaries answer: the log is not read
            summed = ratings.rated_pairs(db, selection)
        logged = logged_pairs(db, selection)
        assert logged[0]["a"].str.startswith("a (").any() and logged[0]["kind"].nunique() > 5
        pd.testing.assert_frame_equal(summed[0], logged[0], check_exact=True)
        pd.testing.assert_frame_equal(ratings.fit_bradley_terry(*summed), ratings.fit_bradley_terry(*logged),
                                      check_exact=False, rtol=1e-12)


def test_the_recent_matches_name_agents_from_the_summaries_as_from_the_seats(tmp_path, monkeypatch):
    db = tmp_path / "recent.duckdb"
    write_outcomes(db, "tictactoe", [[("a", 1, 1.0), ("b", 2, 0.0)], [("b", 1, 1.0), ("a", 2, 0.0)]] * 3)
    with store.connect(db) as con:
        con.execute("UPDATE seats SET temperature = 0.5, agent_name = NULL WHERE agent = 'a' AND seat = 0")
    store.rebuild_summaries(db)
    summed = queries.recent_matches(db)
    assert summed["lineup"].str.contains("a (t=0.5", regex=False).any()
    monkeypatch.setattr(store, "summaries_in_step", lambda db: False)
    pd.testing.assert_frame_equal(summed, queries.recent_matches(db))


def test_the_ratings_read_no_pairs_from_the_log_where_the_summaries_answer(played, monkeypatch):
    def no_log(*args, **kwargs):
        raise AssertionError("read the log")

    monkeypatch.setattr(bradley_terry, "read_with_played", no_log)
    kept_tables.forget(played)  # tables kept by the tests before: computed again
    for selection in SELECTIONS.values():
        bradley_terry.bradley_terry_table(played, selection=selection)
    headline.headline(played, "llmarena")
    bradley_terry.bradley_terry_table(played, selection=Selection(agents=("bot:letters",)))  # its matches' rows
    with pytest.raises(AssertionError, match="read the log"):
        bradley_terry.bradley_terry_table(played, selection=Selection(contested=True, without_fallbacks=True))


def test_rows_written_around_the_writer_put_the_summaries_out_of_step_and_the_log_answers(played, tmp_path):
    db = tmp_path / "around.duckdb"
    db.write_bytes(played.read_bytes())
    before = headline.agent_figures(db)
    write_outcomes(db, "tictactoe", [[("x", 1, 1.0, "X"), ("bot:random", 2, 0.0, "O")]] * 3)
    assert not store.summaries_in_step(db)
    figures = headline.agent_figures(db).set_index("agent")
    assert figures.loc["x", "wins"] == 3
    assert figures.loc["bot:random", "matches"] == before.set_index("agent").loc["bot:random", "matches"] + 3
    store.rebuild_summaries(db)
    assert store.summaries_in_step(db)
    same_figures(headline.agent_figures(db).reset_index(drop=True), figures.reset_index(), ["agent"])


def test_every_write_bumps_the_generation(tmp_path):
    db = tmp_path / "gen.duckdb"
    assert store.generation(db) == 0
    store.init_db(db)
    run = spec("gen", 3, repeats=1)
    seen = [store.generation(db)]
    store.upsert_run(db, run.run_id, run.name, run.raw, "engine", len(run.matches))
    seen.append(store.generation(db))
    record = asyncio.run(play_match(run.matches[0]))
    store.write_matches(db, [record])
    seen.append(store.generation(db))
    store.finish_run(db, run.run_id, "ok")
    seen.append(store.generation(db))
    assert seen == sorted(set(seen)), seen  # strictly increasing
    assert store.summaries_in_step(db)


def test_a_saved_trueskill_replay_of_the_current_generation_reads_no_match(played, tmp_path, monkeypatch):
    """The TrueSkill of every game on a restarted dashboard: loaded from the saved replay, with no look at the log
    while nothing was written since; a write (the generation moves) has it check the log again."""
    db = tmp_path / "replayed.duckdb"
    db.write_bytes(played.read_bytes())
    first = ratings.trueskill_table(db)
    monkeypatch.setattr(trueskill_replay, "_REPLAYED", type(trueskill_replay._REPLAYED)())  # a new process
    with monkeypatch.context() as patched:
        for name in ("_covered", "_teams"):
            patched.setattr(trueskill_replay, name, None)  # reading the matches would fail
        pd.testing.assert_frame_equal(ratings.trueskill_table(db), first)
    store.finish_run(db, spec("first", 1).run_id, "done")  # a write: the generation moves
    checked = []
    real = trueskill_replay._covered
    monkeypatch.setattr(trueskill_replay, "_covered", lambda *args: checked.append(1) or real(*args))
    pd.testing.assert_frame_equal(ratings.trueskill_table(db), first)
    assert checked


def test_a_version_6_database_gets_its_summaries_built_by_the_upgrade(played, tmp_path):
    db = tmp_path / "v6.duckdb"
    db.write_bytes(played.read_bytes())
    with store.connect(db) as con:
        con.execute("DROP TABLE agent_summary")
        con.execute("DROP TABLE generation")
        con.execute("DELETE FROM schema_version")
        con.execute("INSERT INTO schema_version VALUES (6, now())")
    store.check_db(db)
    assert store.summaries_in_step(db)
    same_rows(summary_rows(db), summary_rows(played))


def test_a_version_8_database_gets_its_pairwise_summary_built_by_the_upgrade(played, tmp_path):
    db = tmp_path / "v8.duckdb"
    db.write_bytes(played.read_bytes())
    with store.connect(db) as con:
        con.execute("DROP TABLE pairwise_summary")
        con.execute("ALTER TABLE generation DROP COLUMN summaries_code")  # older than version 17
        con.execute("DELETE FROM schema_version")
        con.execute("INSERT INTO schema_version VALUES (8, now())")
    store.check_db(db)
    assert store.summaries_in_step(db)
    same_rows(summary_rows(db, "pairwise_summary"), summary_rows(played, "pairwise_summary"))


def test_the_upgrade_from_version_14_keeps_the_summaries_by_day(played, tmp_path):
    assert_upgrade_builds_them(played, tmp_path, 14, tuple(f"DROP TABLE {t}" for t in summaries.BY_DAY.values()),
                               (*summaries.BY_DAY, *summaries.BY_DAY.values()))


def test_a_version_1_database_is_summarized_too(tmp_path):
    db = tmp_path / "v1.duckdb"
    db.write_bytes(gzip.decompress((DATA / "v1.duckdb.gz").read_bytes()))
    store.init_db(db)
    assert store.summaries_in_step(db)
    assert store.rows(db, "SELECT sum(matches) > 0 FROM agent_summary") == [(True,)]


def test_rescore_rebuilds_the_summaries_from_the_log(played, tmp_path, monkeypatch):
    db = tmp_path / "rescored.duckdb"
    db.write_bytes(played.read_bytes())
    with store.connect(db) as con:  # summaries gone wrong, still in step
        con.execute("UPDATE agent_summary SET wins = 0, decisions = 0")
        con.execute("UPDATE run_totals SET errors = 1, tokens = 0")
        con.execute("UPDATE match_scores SET score = -1")
    summary = rescore(db, ALL.of_game("tictactoe"))
    assert summary.rescored > 0 and not summary.failed
    assert store.summaries_in_step(db)
    for table in ("agent_summary", "run_totals", "match_scores"):
        same_rows(summary_rows(db, table), summary_rows(played, table))
