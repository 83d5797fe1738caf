"""The seat summary (engine/papers/seat_summary.py `seat_summary`) and the social boards that sum it: Who is Spy's
ranking and figures by role, MAgIC's ability profile and its social half read no seat or turn where the stored rows
answer, and compute the rows of a selection they do not answer from the log by the summary's own SQL; the writer's
rows are a rebuild's, a resumed run and a re-imported match counted once; an upgrade from version 9 builds it."""

from __future__ import annotations

import asyncio
from datetime import date

import pandas as pd
import pytest

from engine import store
from engine.papers import seat_summary as summary_seats
from engine.papers.magic import abilities as magic
from engine.papers.magic import social as magic_social
from engine.papers.magic.belief_reasoning import REASONING_ITEMS
from engine.papers.registry import get_suite
from engine.papers.wis import scores as wis
from engine.play.playing import play_match
from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.store import summaries
from engine.store.selection import ALL, Selection
from engine.study.rescore import rescore
from tests.summary_rows import assert_rebuild_gives_the_writers_rows, same_rows, summary_rows
from tests.test_social_metrics import hand_db  # noqa: F401 (a fixture: hand-made matches, worked out there)

pytestmark = pytest.mark.slow  # two runs of five games and 45 board calls: a minute and more


def hero(bot: str, label: str) -> dict:
    return {"challenger": {"agent": bot, "label": label}, "others": "bot:letters"}


A, B = "A · bot:letters", "B · bot:random"  # the social games' challengers, as every table names them
GAMES = [
    {"game": "chameleon", "lineups": [hero("bot:letters", "A"), hero("bot:random", "B"), {"all": "bot:letters"}]},
    {"game": "undercover", "presets": ["magic", "wis"],
     "lineups": [hero("bot:letters", "A"), hero("bot:random", "B"), {"all": "bot:letters"}]},
    {"game": "prisoners_dilemma", "lineups": [{"challenger": {"agent": "bot:always_defect", "label": "C"},
                                               "others": "bot:tit_for_tat"}]},
    {"game": "cost_sharing", "lineups": [{"challenger": {"agent": "bot:selfish", "label": "D"},
                                          "others": "bot:follow_first"}]},
    {"game": "magic_public_good", "lineups": [{"challenger": {"agent": "bot:steady", "label": "E"},
                                               "others": "bot:never_invest"}]},
]


def spec(name: str, seed: int, repeats: int):
    return parse_spec({"name": name, "seed": seed, "repeats": repeats, "games": GAMES})


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """Two runs of the social and game-theory games (bots state beliefs): the first resumed (nothing written
    twice), in the second an errored match replaced by its replay and an ok match re-imported."""
    db = tmp_path_factory.mktemp("social") / "results.duckdb"
    first, second = spec("first", 1, 2), spec("second", 2, 1)
    assert asyncio.run(run_spec(first, db, progress=False)).errors == 0
    assert asyncio.run(run_spec(first, db, progress=False)).played == 0

    async def play():
        return [await play_match(plan) for plan in second.matches]

    store.upsert_run(db, second.run_id, second.name, second.raw, "engine", len(second.matches))
    records = asyncio.run(play())
    errored = records[0]
    errored_first = type(errored)(errored.match | {"status": "error", "error": "provider down"}, errored.seats,
                                  errored.turns, errored.metrics)
    assert store.write_matches(db, [errored_first, *records[1:]]) == len(records)
    assert store.write_matches(db, records) == 1
    store.write_match(db, records[1].match, records[1].seats, records[1].turns, records[1].metrics)  # re-import
    return db


SELECTIONS = {
    "all": ALL,
    "one run": Selection(run_ids=(spec("second", 2, 1).run_id,)),
    "one game": ALL.of_game("undercover"),
    "two presets": Selection(presets=("wis", "magic")),
    "contested": Selection(contested=True),
    "without fallback moves": Selection(without_fallbacks=True),
}
BOARDS = {
    "wis leaderboard": lambda db, s: wis.leaderboard(db, s),
    "wis figures by role": lambda db, s: wis.figures_by_role(db, s),
    "magic profile": lambda db, s: magic.ability_profile(db, s),
    "magic profile, unmatched": lambda db, s: magic.ability_profile(db, s, missing_suspicion="unmatched"),
    "social abilities": lambda db, s: magic_social.social_abilities(db, s),
    "the suites' boards": lambda db, s: pd.concat([get_suite("wis").leaderboard(db, s),
                                                   get_suite("magic").leaderboard(db, s)]),
}


def logged(db, board, selection, monkeypatch):
    """`board(db, selection)` with the summaries out of the way: the rows computed from the log."""
    with monkeypatch.context() as patched:
        patched.setattr(store, "summaries_in_step", lambda db: False)
        return board(db, selection)


def test_the_profile_sums_every_figure_reasoning_included(played):
    """The profile's abilities and WiS's vote accuracy are there for the bots that played."""
    profile = magic.ability_profile(played)
    assert profile.set_index("agent").loc[[A, B], "Reasoning (0-100)"].notna().all()
    assert profile["Judgement (0-100)"].notna().any() and profile["Rationality (0-100)"].notna().any()
    assert wis.figures_by_role(played)["vote_accuracy"].notna().any()


def test_the_hand_made_seat_summary_counts_a_fallback_vote_for_the_special_player(hand_db):  # noqa: F811
    assert store.rows(hand_db, f"SELECT sum(total) FROM seat_summary WHERE name = '{summary_seats.FALLBACK_VOTES}'") \
        == [(1.0,)]  # G's


def test_the_boards_read_no_seat_or_turn_where_the_summary_answers(played, monkeypatch):
    def no_log(*args, **kwargs):
        raise AssertionError("read the log")

    monkeypatch.setattr(store, "temp_table", no_log)  # the seat summary's rows computed from the log
    for selection in SELECTIONS.values():
        for board in BOARDS.values():
            board(played, selection)
    for selection in (Selection(date_from=date(2000, 1, 1)), Selection(agents=(A,))):
        for name, board in BOARDS.items():
            if name == "wis figures by role" and selection.agents:
                continue  # its own rows: the next test
            with pytest.raises(AssertionError, match="read the log"):
                board(played, selection)


def test_the_figures_by_role_of_one_agent_are_its_rows_of_the_matches_it_played_from_the_summary(played,
                                                                                                 monkeypatch):
    """The Games page's figures of the chosen model: its rows, every seat it held (all of them in the matches it
    played), summed without the log; the log's, read from the matches it played, are the same rows, and so are its
    rows of every match."""
    mine = Selection(agents=(A,))
    from_log = logged(played, wis.figures_by_role, mine, monkeypatch)  # the matches the filter picks
    every = wis.figures_by_role(played)
    monkeypatch.setattr(store, "temp_table", lambda *args: pytest.fail("computed rows from the log"))
    summed = wis.figures_by_role(played, mine)
    assert set(summed.agent) == {A} and len(summed) == 3
    same_rows(summed, from_log)
    same_rows(summed, every[every.agent == A].reset_index(drop=True))


def test_the_writers_seat_summary_is_a_rebuilds_a_resumed_and_a_reimported_match_counted_once(played, tmp_path):
    incremental = assert_rebuild_gives_the_writers_rows(played, tmp_path, ("seat_summary",))["seat_summary"]
    assert {REASONING_ITEMS, "reasoning_right:authors", "reasoning_right:unmatched"} <= set(incremental.name)
    seated = incremental[incremental.name == summary_seats.SEAT]["seats"].sum()
    assert seated == store.rows(played, """SELECT count(*) FROM seats JOIN matches USING (match_id)
                                           WHERE status = 'ok'""")[0][0]


def test_a_version_9_database_gets_its_seat_summary_built_by_the_upgrade(played, tmp_path):
    db = tmp_path / "v9.duckdb"
    db.write_bytes(played.read_bytes())
    with store.connect(db) as con:
        con.execute("DROP TABLE seat_summary")
        con.execute("ALTER TABLE generation DROP COLUMN summaries_code")  # older than version 17
        con.execute("DELETE FROM schema_version")
        con.execute("INSERT INTO schema_version VALUES (9, now())")
    store.check_db(db)
    assert store.summaries_in_step(db)
    same_rows(summary_rows(db, "seat_summary"), summary_rows(played, "seat_summary"))


def test_llmarenas_undercover_figures_summed_are_the_logs(db_path, monkeypatch):
    """The other reader of the challenger sums (LLMArena's Table 3): the same figures from the seat summary."""
    raw = {"name": "lla", "repeats": 6, "games": [{"game": "undercover", "preset": "llmarena", "lineups": [
        ["bot:letters"] * 4 + [{"agent": "bot:letters", "label": "tested"}],
        ["bot:random"] * 3 + [{"agent": "bot:letters", "label": "tested"}, "bot:letters"]]}]}
    asyncio.run(run_spec(parse_spec(raw), db_path, progress=False))
    board = lambda db, s: magic_social.llmarena_undercover_figures(db)  # noqa: E731
    summed = board(db_path, ALL)
    assert len(summed) >= 2
    same_rows(summed, logged(db_path, board, ALL, monkeypatch))


def test_rescore_rebuilds_the_seat_summary_from_the_log(played, tmp_path):
    db = tmp_path / "rescored.duckdb"
    db.write_bytes(played.read_bytes())
    with store.connect(db) as con:
        con.execute("UPDATE seat_summary SET total = 0")  # gone wrong, still in step
    summary = rescore(db, ALL.of_game("prisoners_dilemma"))
    assert summary.rescored > 0 and not summary.failed
    same_rows(summary_rows(db, "seat_summary"), summary_rows(played, "seat_summary"))


WIS_TEAM = {"name": "team", "seed": 3, "repeats": 3, "games": [
    {"game": "undercover", "preset": "wis", "params": {"role_seat": 0},
     "lineups": [["bot:injector", "bot:obedient", "bot:letters", "bot:obedient", "bot:letters", "bot:obedient"]]}]}


def test_who_is_spys_civilians_who_won_together_are_no_pair_of_the_ratings(db_path, tmp_path, monkeypatch):
    """A reviewer's finding: Who is Spy ranks its civilians by score, and the pairwise outcomes dropped a pair only
    when both rank and role were equal, so "letters beat obedient 6 of 6" while both won every match. Teammates
    are no pair, in the log and in the summary alike: only the spy meets the civilians."""
    from engine.score import ratings

    asyncio.run(run_spec(parse_spec(WIS_TEAM), db_path, progress=False))
    civilians = store.query(db_path, "SELECT match_id, agent, rank, won FROM seats WHERE role = 'civilian'")
    assert civilians["won"].all()  # the spy lost every match: the civilians won together
    assert (civilians.groupby("match_id")["rank"].nunique() > 1).all()  # ... ranked apart by their scores
    selection = Selection(contested=True)
    with monkeypatch.context() as patched:
        patched.setattr(store, "summaries_in_step", lambda db: False)
        logged_pairs, _ = ratings.rated_pairs(db_path, selection)
    summed_pairs, _ = ratings.rated_pairs(db_path, selection)
    pd.testing.assert_frame_equal(summed_pairs, logged_pairs, check_exact=True)
    assert set(zip(logged_pairs["a"], logged_pairs["b"], strict=True)) == {
        ("bot:injector", "bot:letters"), ("bot:injector", "bot:obedient")}
    assert_rebuild_gives_the_writers_rows(db_path, tmp_path, ("pairwise_summary",))


def test_a_version_11_database_gets_its_pairwise_summary_rebuilt_and_its_kept_ratings_go_stale(played, tmp_path):
    """Version 11's pairwise rows compared teammates ranked apart: the upgrade computes them again and raises the
    generation (the Bradley-Terry tables kept beside the database were fitted on the old rows)."""
    db = tmp_path / "v11.duckdb"
    db.write_bytes(played.read_bytes())
    with store.connect(db) as con:
        con.execute("UPDATE pairwise_summary SET score_sum = 0")  # rows of the old meaning, still in step
        con.execute("ALTER TABLE generation DROP COLUMN summaries_code")  # older than version 17
        con.execute("DELETE FROM schema_version")
        con.execute("INSERT INTO schema_version VALUES (11, now())")
        before = summaries.generation(con)
    store.check_db(db)
    assert store.summaries_in_step(db)
    same_rows(summary_rows(db, "pairwise_summary"), summary_rows(played, "pairwise_summary"))
    with store.connect(db, read_only=True) as con:
        assert summaries.generation(con) != before
