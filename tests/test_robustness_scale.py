"""The Robustness page's reads at scale give the figures they gave: the agent's scores found from its seats (the
match score only where it holds every seat), the tables independent of the rows' order (the query no longer
sorts), and every setting named as `setting_label` names it, computed once per distinct setting."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from engine import queries, store
from engine.selection import Selection
from engine.settings import setting_label, setting_labels

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


@pytest.fixture
def db(db_path):
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
