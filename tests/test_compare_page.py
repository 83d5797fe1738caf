"""The Leaderboards page's pairwise matrices and A versus B section, headless (AppTest): the numbers the commands
print, from the same functions."""

from __future__ import annotations

import pandas as pd
import pytest

from engine.cli.main import main
from engine.papers.registry import get_suite
from engine.present.numbers import on_one_scale, readable
from engine.score import compare
from engine.store.selection import ALL
from tests.page_run import run_page
from tests.test_compare import EQ, OPPONENT, RANDOM, db  # noqa: F401 - the played database, a fixture

pytestmark = pytest.mark.slow


def shown(at) -> list[pd.DataFrame]:
    return [frame.value.reset_index(drop=True) for frame in at.dataframe]


def suite_selection(suite: str):
    return ALL.within(get_suite(suite).variants)


def test_the_page_shows_each_suites_matrices_and_asks_for_two_agents(db, monkeypatch):  # noqa: F811
    at = run_page("leaderboard", db, monkeypatch)
    assert not at.exception
    shares, counts = compare.matrices(db, selection=suite_selection("llmarena"), order=(EQ, RANDOM, OPPONENT))
    frames = shown(at)
    assert any(f.equals(readable(on_one_scale(shares, dict.fromkeys(shares.columns[1:], "%")))) for f in frames)
    assert any(f.equals(readable(counts)) for f in frames)
    assert any(e.label.endswith("pairwise win share and matches (row against column)") for e in at.expander)
    assert any(c.value.startswith("Choose two different agents") for c in at.caption)
    assert not any("p holm" in f.columns for f in frames)  # no comparison before two agents are chosen


def test_the_pages_comparison_and_headline_are_the_commands(db, monkeypatch, capsys):  # noqa: F811
    at = run_page("leaderboard", db, monkeypatch, versus_a=EQ, versus_b=RANDOM)
    assert not at.exception
    texts = [f.to_string(index=False) for f in shown(at)]
    assert main(["compare", EQ, RANDOM, "--db", str(db)]) == 0
    versus = capsys.readouterr().out.rstrip("\n")
    assert versus in texts and "p holm" in versus
    assert main(["headline", "--suite", "llmarena", "--db", str(db)]) == 0
    assert capsys.readouterr().out.rstrip("\n") in texts
