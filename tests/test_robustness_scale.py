"""The Robustness page's reads at scale give the figures they gave: the agent's scores (the match score only where
it holds every seat) read from the per-match scores the writer keeps (`match_scores`) as from the log, for every
selection the page makes; its tables, added up by DuckDB per cell and paired in SQL (`queries.robustness`), are
the comparisons of the rows themselves (`stats.compare_levels` on the rows each block holds, picked here in pandas),
independent of the rows' order; and every setting named as `setting_label` names it, computed once per distinct
setting."""

from __future__ import annotations

import json
from datetime import date

import numpy as np
import pandas as pd
import pytest

from engine import store
from engine.games.settings import setting_label, setting_labels
from engine.papers.registry import get_suite
from engine.present import queries
from engine.score import stats
from engine.store.selection import ALL, Selection
from tests.written_matches import LABELS, write_run

THREE = json.dumps({"players": 3, "rounds": 1})
# match, game, status, params, seed, [(seat, label, temperature, prompt_version, seat score)], match-level score
MATCHES = [
    ("holds_all", "guessing_game", "ok", THREE, 1, [(0, "A", 1.0, "v1", 10.0), (1, "A", 1.0, "v1", 20.0),
                                                    (2, "A", 1.0, "v1", 30.0)], 70.0),
    ("shares", "guessing_game", "ok", THREE, 2, [(0, "A", 1.0, "v1", 40.0), (1, "A", 1.0, "v1", 50.0),
                                                 (2, "B", 1.0, "v1", 99.0)], 66.0),
    ("two_conditions", "guessing_game", "ok", THREE, 3, [(0, "A", 1.0, "v1", 12.0), (1, "A", 0.0, "v1", 14.0),
                                                         (2, "A", 0.0, "v1", 16.0)], 55.0),
    ("board_game", "tictactoe", "ok", "{}", 4, [(0, "A", 1.0, "v2", 1.0), (1, "A", 1.0, "v2", 0.0)], None),
    ("errored", "guessing_game", "error", THREE, 5, [(0, "A", 1.0, "v1", 5.0)], 5.0),
    ("others_only", "guessing_game", "ok", THREE, 6, [(0, "B", 1.0, "v1", 7.0)], 7.0),
]


@pytest.fixture(params=["log", "kept"])
def db(db_path, request):
    """The matches above inserted around the writer (the summaries out of step: the log answers), or with the
    summaries then built from the log (`match_scores` answers)."""
    store.init_db(db_path)
    with store.connect(db_path) as con:
        con.execute("INSERT INTO runs (run_id, name, source, status) VALUES ('r', 'r', 'engine', 'done')")
        for match_id, game, status, params, seed, seats, whole in MATCHES:
            con.execute("""INSERT INTO matches (match_id, run_id, game, preset, params, seed, "repeat", status)
                           VALUES (?, 'r', ?, 'default', ?, ?, 0, ?)""", [match_id, game, params, seed, status])
            for seat, label, temperature, version, score in seats:
                con.execute("""INSERT INTO seats (match_id, seat, agent, label, temperature, prompt_version,
                               strategy, max_tokens, score) VALUES (?, ?, ?, ?, ?, ?, 'vanilla', 256, ?)""",
                            [match_id, seat, label, label, temperature, version, score])
                if whole is not None:  # a γ-Bench match stores each seat's score too
                    con.execute("INSERT INTO metrics VALUES (?, ?, 'gamabench_score', ?)", [match_id, seat, score + 1])
            if whole is not None:
                con.execute("INSERT INTO metrics VALUES (?, NULL, 'gamabench_score', ?)", [match_id, whole])
    if request.param == "kept":
        store.rebuild_summaries(db_path)
    assert store.summaries_in_step(db_path) == (request.param == "kept")
    return db_path


def test_the_agents_scores_are_its_finished_matches_with_the_match_score_only_where_it_holds_every_seat(db):
    rows = queries.robustness_scores(db, "A")
    got = sorted(zip(rows["seed"], rows["temperature"], rows["prompt_version"], rows["score"], strict=True))
    assert got == [(1, 1.0, "v1", 70.0),  # every seat A at one condition: the match's score
                   (2, 1.0, "v1", 45.0),  # B holds a seat: A's mean seat score
                   (3, 0.0, "v1", 15.0), (3, 1.0, "v1", 12.0),  # A at two conditions: neither holds every seat
                   (4, 1.0, "v2", 0.5)]  # no match score (not γ-Bench): the mean seat score
    assert set(rows["params"]) == {THREE, "{}"} and set(rows["run_id"]) == {"r"}
    one_game = queries.robustness_scores(db, "A", Selection(games=("tictactoe",)))
    assert list(one_game["seed"]) == [4] and queries.robustness_scores(db, "nobody").empty


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """Two runs written through the writer (tests/written_matches.py: an errored match replayed, a re-import)."""
    db = tmp_path_factory.mktemp("robustness") / "results.duckdb"
    write_run(db, "one", 300, seed=3, errored_left=2)
    write_run(db, "two", 200, seed=4)
    return db


# the selections the page makes: its filters (runs, games, presets, a date range, agents) and the suites' rule sets
SELECTIONS = {"all": ALL, "one run": Selection(run_ids=("two",)), "one game": ALL.of_game("guessing_game"),
              "one preset": Selection(presets=("x",)), "a date range": Selection(date_from=date(2025, 1, 3),
                                                                                 date_to=date(2025, 1, 6)),
              "an agent's matches": None, "a suite's rule sets": ALL.within(get_suite("wis").variants),
              "without fallbacks, contested": Selection(without_fallbacks=True, contested=True)}


def sorted_scores(scores: pd.DataFrame) -> pd.DataFrame:
    return scores.sort_values(list(scores.columns), ignore_index=True)


@pytest.mark.parametrize("name", list(SELECTIONS))
def test_the_kept_scores_and_the_pages_tables_are_the_logs(written, name, monkeypatch):
    """Every label's scores from `match_scores` (the log's read made impossible) == from the log, and so every table
    the page draws from them (compared by `robustness_tables`, block by block)."""
    selection = SELECTIONS[name]
    if selection is None:  # a label at several settings is an agent per setting, named as the page's picker names it
        b = [agent for agent in queries.agents(written, settings=True)["agent"] if agent.startswith("B (")]
        selection = Selection(agents=tuple(b[:2]))
    kept = {}
    with monkeypatch.context() as patched:
        patched.setattr(queries, "match_scores_sql", None)
        for label in LABELS:
            kept[label] = queries.robustness_scores(written, label, selection)
    monkeypatch.setattr(store, "summaries_in_step", lambda db: False)
    tables = 0
    for label in LABELS:
        logged = queries.robustness_scores(written, label, selection)
        assert not logged.empty, label
        pd.testing.assert_frame_equal(sorted_scores(kept[label]), sorted_scores(logged), check_exact=True)
        kept_tables, logged_tables = queries.robustness_tables(kept[label]), queries.robustness_tables(logged)
        assert list(kept_tables) == list(logged_tables)
        for key, table in kept_tables.items():
            pd.testing.assert_frame_equal(table, logged_tables[key], rtol=1e-12)  # sums in another order
        tables += len(kept_tables)
    assert tables >= (40 if name == "all" else 10), tables  # 45 blocks over every match: none left out


def test_every_ok_match_has_its_agents_scores_kept_once(written):
    """Per `ok` match, one row per agent and setting it sat at (a replayed or re-imported match's earlier attempt
    gone), and none for an errored match."""
    kept = store.rows(written, "SELECT match_id, label, prompt_version, temperature, strategy, max_tokens, seats "
                               "FROM match_scores ORDER BY ALL")
    seated = store.rows(written, """
        SELECT match_id, coalesce(label, agent), prompt_version, temperature, strategy, max_tokens, count(*)
        FROM seats WHERE match_id IN (SELECT match_id FROM matches WHERE status = 'ok') GROUP BY ALL ORDER BY ALL""")
    assert kept == seated and len(kept) > 500
    errored = store.rows(written, "SELECT count(*) FROM matches WHERE status = 'error'")[0][0]
    assert errored == 2 and store.rows(written, "SELECT count(*) FROM match_scores WHERE match_id IN "
                                                "(SELECT match_id FROM matches WHERE status = 'error')") == [(0,)]


def frame(n: int, seed: int) -> pd.DataFrame:
    """`n` scores of one model in two games and three settings, its prompt version and temperature varied."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "game": rng.choice(["guessing_game", "chameleon"], n),
        "preset": rng.choice(["default", "no_hint"], n), "params": rng.choice(["{}", THREE], n),
        "run_id": "r", "seed": rng.integers(0, 6, n), "repeat": rng.integers(0, 3, n).astype("int32"),
        "prompt_version": pd.array(rng.choice(["v1", "v2", "v3"], n), dtype="str"),
        "temperature": rng.choice([0.0, 1.0], n), "strategy": pd.array(rng.choice(["vanilla", "cot"], n), dtype="str"),
        "max_tokens": 256, "score": rng.integers(0, 100, n).astype(float)})


def test_the_tables_do_not_depend_on_the_order_of_the_rows():
    scores = frame(600, 1)
    shuffled = scores.sample(frac=1, random_state=2).set_axis(np.arange(600)[::-1] * 3)  # another order and index
    tables, again = queries.robustness_tables(scores), queries.robustness_tables(shuffled)
    assert list(tables) == list(again) and len(tables) >= 6
    for key, table in tables.items():
        pd.testing.assert_frame_equal(table, again[key], rtol=1e-12)
    held = tables[("temperature", "guessing_game")]  # other factors at their defaults: v1, vanilla
    rows = scores[(scores["game"] == "guessing_game") & (scores["prompt_version"] == "v1")
                  & (scores["strategy"] == "vanilla")]
    for setting, block in held.groupby("setting"):
        mine = rows[setting_labels(rows) == setting]
        assert list(block["n"]) == [int((mine["temperature"] == t).sum()) for t in (1.0, 0.0)]


def test_each_row_is_named_as_setting_label_names_it():
    rows = pd.DataFrame({"game": ["guessing_game", "guessing_game", "sealed_bid_auction", "guessing_game"] * 3,
                         "preset": ["default", None, "no_hint", "default"] * 3,
                         "params": [THREE, "{}", json.dumps({"valuation_seed": 4}), None] * 3},
                        index=[5, 3, 9, 1, 0, 2, 4, 6, 8, 7, 11, 10])
    def text(value: object) -> str | None:  # a missing preset or params (NaN in a frame) is None to setting_label
        return value if isinstance(value, str) else None

    expected = [setting_label(g, text(p), text(q)) for g, p, q in zip(rows["game"], rows["preset"], rows["params"],
                                                                         strict=True)]
    labels = setting_labels(rows)
    assert list(labels) == expected and list(labels.index) == list(rows.index)
    assert setting_labels(rows.iloc[:0]).empty


def by_hand(scores: pd.DataFrame) -> dict[tuple[str, str, str], pd.DataFrame]:
    """Each block's comparison from the rows, as `queries.robustness` words it: per game and setting, a factor that
    took 2+ levels, the other varied factors (not the repeat) held at their defaults where played, its default the
    paper's where played else its most played level, intervals clipped to `score_range`; the agent's own scores
    compared, and each level's own scores and valid-move rate over all of them."""
    rows = scores.assign(setting=setting_labels(scores))
    rows = rows.assign(**{c: v for c, v in (("own", True), ("decisions", 0), ("valid", 0)) if c not in rows})
    expected = {}
    for (game, setting), played in rows.groupby(["game", "setting"]):
        varied = [f for f in queries.FACTORS if played[f].nunique() > 1]
        for factor in varied:
            keep = pd.Series(True, index=played.index)
            for other in varied:
                held = played[other] == queries.FACTORS[other]
                if other not in (factor, "repeat") and held.any():
                    keep &= held
            picked = played[keep & played[factor].notna()]
            if picked[factor].nunique() < 2:
                continue
            levels = picked[factor].tolist()
            default = queries.FACTORS[factor] if queries.FACTORS[factor] in levels else picked[factor].mode().iloc[0]
            table = stats.compare_levels(
                picked[picked["own"]].rename(columns={factor: "level"})[["level", "seed", "score"]], default,
                bounds=queries.score_range(game, played["score"]))
            at = [picked[factor] == level for level in table["level"]]
            expected[(factor, game, setting)] = table.assign(
                own=[int((picked["own"] & level).sum()) for level in at],
                valid_rate=[picked.loc[level, "valid"].sum() / picked.loc[level, "decisions"].sum() for level in at])
    return expected


def assert_same_comparisons(tables: pd.DataFrame, expected: dict) -> None:
    got = {key: block.drop(columns=["factor", "game", "setting"]).reset_index(drop=True)
           for key, block in tables.groupby(["factor", "game", "setting"], sort=False)}
    assert sorted(got) == sorted(expected)
    for key, table in expected.items():
        pd.testing.assert_frame_equal(got[key].astype({"level": object}), table.astype({"level": object}),
                                      check_dtype=False, rtol=1e-9, obj=str(key))


@pytest.mark.parametrize("name", ["all", "one run", "a date range", "a suite's rule sets"])
def test_the_tables_added_up_in_sql_are_the_comparisons_of_the_rows(written, name):
    """Per label, `queries.robustness`' tables (moments per cell from `match_scores`, pairs joined in SQL) == each
    block compared from its rows by `stats.compare_levels`; and the cells hold every row once."""
    compared = 0
    for label in LABELS:
        figures = queries.robustness(written, label, SELECTIONS[name])
        rows = queries.robustness_scores(written, label, SELECTIONS[name])
        assert figures.cells["n"].sum() == len(rows) > 0
        expected = by_hand(rows)
        assert_same_comparisons(figures.tables, expected)
        compared += len(expected)
    assert compared >= (30 if name == "all" else 5), compared


def test_levels_on_the_defaults_seeds_are_paired_and_the_others_are_not():
    """A temperature played on the default's seeds, once each, is paired (over repeats too); one that played a seed
    twice, or another seed, or one seed fewer, is compared by Welch's t: as the rows say."""
    rng = np.random.default_rng(5)
    rows = []
    for repeat in (0, 1):  # a repeat on new seeds
        for seed in range(6 * repeat, 6 * repeat + 6):
            rows += [(1.0, seed, repeat), (0.0, seed, repeat), (0.5, seed, repeat)]  # 0.0 and 0.5: the same seeds
            rows += [(0.2, seed - (seed % 6 == 5), repeat)]  # a seed twice
            rows += [(0.7, seed + 100 * (seed % 6 == 5), repeat)]  # another seed
            if seed % 6:
                rows += [(0.9, seed, repeat)]  # one seed fewer
    scores = pd.DataFrame(rows, columns=["temperature", "seed", "repeat"]).assign(
        game="chameleon", preset="default", params="{}", run_id="r", prompt_version="v1", strategy="vanilla",
        max_tokens=256, score=lambda f: rng.normal(50, 10, len(f)).round(1))
    scores["repeat"] = scores["repeat"].astype("int32")
    tables = queries.robustness_tables(scores)
    table = tables[("temperature", "chameleon")].set_index("level")
    assert table.loc[[0.0, 0.5], "test"].tolist() == ["paired t"] * 2 and table.loc[0.0, "pairs"] == 12
    assert table.loc[[0.2, 0.7, 0.9], "test"].tolist() == ["Welch t"] * 3
    assert_same_comparisons(pd.concat([table.assign(factor=factor, game=game) for (factor, game), table
                                       in tables.items()]), by_hand(scores))


def test_a_model_that_varied_nothing_or_played_nothing_has_no_table(written):
    """One condition in one game (a bot's single run): cells, no comparison; no scores: neither (the page says so)."""
    once = frame(40, 3).assign(prompt_version="v1", temperature=1.0, strategy="vanilla", max_tokens=256, repeat=0,
                               game="chameleon", preset="default", params="{}")
    assert queries.robustness_tables(once) == {}
    nobody = queries.robustness(written, "nobody")
    assert nobody.cells.empty and nobody.tables.empty
    assert list(nobody.tables.columns) == ["factor", "game", "setting", *stats.COMPARISON_COLUMNS, *queries.OWN_COLUMNS]
