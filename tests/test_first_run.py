"""The first run (runs/quick.yaml, what `make run` plays into an empty database) gives every page something
meaningful: every game played, two complete MAgIC challengers, a robustness verdict, a real model."""

from __future__ import annotations

import math
import re

import pytest
from streamlit.testing.v1 import AppTest

from engine import store
from engine.games import all_games
from engine.papers.magic.abilities import AREA, ability_profile
from engine.present import queries
from engine.score import stats
from pages.shared.numbers import IDENTIFIERS


def test_every_match_of_the_first_run_finished(first_run_db):
    runs = store.query(first_run_db, "SELECT status, n_done, n_matches FROM runs").iloc[0]
    assert runs["status"] == "ok" and runs["n_done"] == runs["n_matches"]
    played = set(store.query(first_run_db, "SELECT DISTINCT game FROM matches")["game"])
    assert {"guessing_game", "tictactoe", "prisoners_dilemma", "chameleon", "undercover", "texas_holdem"} <= played
    assert len(played) >= len(all_games()) - 4  # a tour of nearly every game


def test_a_challenger_has_all_seven_magic_abilities(first_run_db):
    """bot:random challenges in all five games (a second complete challenger was two bots under one label, issue
    40: refused now)."""
    profile = ability_profile(first_run_db)
    complete = profile[(profile["roles"] == 7) & profile[AREA].map(math.isfinite)]
    assert list(complete["agent"]) == ["bot:random"], profile[["agent", "roles", AREA]]


def test_the_real_model_plays_and_its_robustness_gets_a_verdict(first_run_db):
    model = store.query(first_run_db, """
        SELECT count(DISTINCT s.match_id) AS matches, count(t.turn) AS answers, sum(t.tokens_out) AS tokens
        FROM seats s JOIN turns t ON t.match_id = s.match_id AND t.seat = s.seat
        WHERE s.agent = 'local/smollm2'""").iloc[0]
    assert model["matches"] >= 12 and model["tokens"] > 0
    scores = queries.robustness_scores(first_run_db, "local/smollm2")
    tables = queries.robustness_tables(scores, own_only=False)  # the fallback scores counted, as the toggle asks
    verdicts = {factor: stats.robustness_verdict(table, stats.SCORE_MARGIN) for (factor, _), table in tables.items()}
    assert verdicts["temperature"] != "not enough data"
    assert verdicts["prompt_version"] != "not enough data"
    # by default each level compares the model's own scores only, and says how many they are
    own = queries.robustness_tables(scores)[("prompt_version", "guessing_game")].set_index("level")
    by_version = scores[scores["temperature"] == 1.0].groupby("prompt_version")["own"].sum()  # the default held
    assert (own["own"] == by_version[own.index]).all() and (own["n"] == own["own"]).all()


def blanks(frame) -> list:
    """Cells a reader would see as None, nan or <NA>: Streamlit prints a missing value as "None"."""
    return [(column, value) for column in frame.columns for value in frame[column].tolist()
            if value is None or (isinstance(value, float) and value != value)
            or str(value).strip() in ("None", "nan", "NaN", "<NA>", "NaT")]


LONG_DECIMALS = re.compile(r"\d\.\d{3,}")  # 0.6666666666666666, 1389.1688
BARE_THOUSANDS = re.compile(r"-?\d{4,}(\.\d+)?%?")  # 1389 beside 1,389.17


def unformatted(frame) -> list:
    """Cells outside the one number format: more than 2 decimals, or thousands without a separator (identifiers
    such as a seed or a match id aside)."""
    return [(column, value) for column in frame.columns if column not in IDENTIFIERS and "id" not in str(column)
            for value in map(str, frame[column].tolist())
            if LONG_DECIMALS.search(value) or BARE_THOUSANDS.fullmatch(value.strip())]


@pytest.mark.parametrize("path", ["overview", "leaderboard", "abilities", "games", "robustness", "transcripts",
                                  "launch"])
def test_no_table_of_the_first_run_shows_none_or_nan(first_run_db, monkeypatch, path):
    monkeypatch.setenv("ARENA_DB", str(first_run_db))
    at = AppTest.from_file(f"../pages/{path}.py", default_timeout=120).run()
    assert not at.exception, at.exception[0].value if at.exception else ""
    frames = [df.value for df in at.dataframe] + [t.value for t in at.table]
    assert frames, f"{path} shows no table"
    for frame in frames:
        assert not blanks(frame), (path, list(frame.columns), blanks(frame)[:5])
        assert not unformatted(frame), (path, list(frame.columns), unformatted(frame)[:5])


def test_the_first_visit_shows_complete_challengers_and_a_model_verdict(first_run_db, monkeypatch):
    monkeypatch.setenv("ARENA_DB", str(first_run_db))
    abilities = AppTest.from_file("../pages/abilities.py", default_timeout=120).run()
    opening = abilities.multiselect(key="agents").value
    profile = ability_profile(first_run_db).set_index("agent")
    assert len(opening) >= 2 and profile.loc[opening[0], "roles"] == 7  # the complete one first, then the fullest
    robustness = AppTest.from_file("../pages/robustness.py", default_timeout=120).run()
    assert robustness.selectbox(key="agent").value == "local/smollm2"  # the model, not a bot, comes first
    levels = next(df.value for df in robustness.dataframe if "difference (95% CI)" in df.value.columns)
    assert {"own", "valid"} <= set(levels.columns)  # its own scores and valid moves, level by level
    robustness.checkbox(key="with_fallbacks").check().run()  # its fallback scores counted: a verdict
    verdicts = " ".join(m.value for m in robustness.markdown)
    assert any(f"**guessing\\_game**: {v}" in verdicts for v in ("robust", "sensitive", "inconclusive"))


def test_a_per_round_curve_says_how_many_matches_each_round_averages(first_run_db, monkeypatch):
    """Games said "over 24 matches" while the first run's later guessing_game rounds averaged 6 (its 1-round matches
    stop at round 1); now one curve per setting, each saying how many matches its rounds average."""
    from engine.papers.gamabench.scores import round_curves
    from engine.store.selection import ALL

    curves = round_curves(first_run_db, ALL.of_game("guessing_game"))
    assert curves["setting"].nunique() >= 2  # a 3-player one-round and a 10-player twenty-round setting
    monkeypatch.setenv("ARENA_DB", str(first_run_db))
    at = AppTest.from_file("../pages/games.py", default_timeout=120).run()
    assert not at.exception
    said = " ".join(c.value for c in at.caption)
    for setting, rows in curves.groupby("setting"):
        counts = rows.sort_values("step")["matches"].astype(int)
        assert counts.is_monotonic_decreasing  # a round averages only the matches that reached it
        told = (f"{setting}: {counts.iloc[0]} at every round" if counts.iloc[0] == counts.iloc[-1] else
                f"{setting}: {counts.iloc[0]} at round {rows['step'].min()}, {counts.iloc[-1]} at round "
                f"{rows['step'].max()}")
        assert told in said
