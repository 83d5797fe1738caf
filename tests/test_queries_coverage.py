"""Which of a suite's games its headline counts and which it leaves out as self-play only (`headline.coverage`, the
Leaderboards page's caption): from the summaries, as from the log (which it read in 10 s at 1M matches)."""

from __future__ import annotations

from datetime import date

import pytest

from engine import store
from engine.papers import headline
from engine.store.selection import ALL, Selection
from tests.test_summaries import played  # noqa: F401 - the fixture: two runs, self-play, a cooperative game

pytestmark = pytest.mark.slow

SELECTIONS = {"everything": ALL, "one preset": Selection(presets=("no_hint",)),
              "without fallbacks": Selection(without_fallbacks=True), "no run": Selection(run_ids=("nope",)),
              "a date range (the log)": Selection(date_from=date(2000, 1, 1))}


@pytest.mark.parametrize("suite", ["llmarena", "magic", "wis", "gamabench"])
@pytest.mark.parametrize("name", list(SELECTIONS))
def test_a_suites_coverage_from_the_summaries_is_the_logs(played, suite, name, monkeypatch):  # noqa: F811
    summed = headline.coverage(played, suite, SELECTIONS[name])
    monkeypatch.setattr(store, "summaries_in_step", lambda db: False)
    assert summed == headline.coverage(played, suite, SELECTIONS[name])


def test_the_coverage_is_summed_without_reading_the_matches(played, monkeypatch):  # noqa: F811
    """Else the test above could pass with the summaries never read; and it names self-play apart."""
    read = store.query

    def no_matches(db, sql, params=None):
        assert "FROM matches" not in sql, "read the log"
        return read(db, sql, params)

    monkeypatch.setattr(store, "query", no_matches)
    counted, self_play = headline.coverage(played, "llmarena")
    assert "tictactoe" in counted and "hanabi" in counted  # hanabi: cooperative, its self-play counts
