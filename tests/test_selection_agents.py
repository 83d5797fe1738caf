"""A selection's agent filter (engine/selection.py `seated_sql`): the names are matched against the distinct settings
(the seats', or `agent_settings` while the summaries are in step) and the seats found by their settings, which picks
the matches that naming every seat (`agent_sql`, the filter's definition and its former SQL) picks: for every name
the database gives, several at once, with other filters, and a name nobody has; the figures filtered by an agent
are the same with the summaries in step or not."""

from __future__ import annotations

import pandas as pd
import pytest

from engine import store
from engine.metrics import gamabench
from engine.selection import Selection, agent_sql
from engine.store.summaries import SETTINGS_SOURCE
from tests.test_gamabench_summary import played  # noqa: F401 (a fixture: published records and runs, max_tokens)

pytestmark = pytest.mark.slow  # the fixture: two imports and two runs


def names(db) -> list[str]:
    return [r[0] for r in store.rows(db, f"SELECT DISTINCT {agent_sql('s')} FROM seats s ORDER BY 1")]


def picked(db, selection: Selection, settings: str) -> set[str]:
    where, params = selection.where(settings=settings)
    return {r[0] for r in store.rows(db, f"SELECT match_id FROM matches m WHERE {where}", params)}


def every_seat_named(db, selection: Selection) -> set[str]:
    """The filter as it was written: every seat named, the matches of a seat with one of the names."""
    where, params = Selection(run_ids=selection.run_ids, games=selection.games).where()
    return {r[0] for r in store.rows(db, f"""
        SELECT match_id FROM matches m WHERE {where} AND m.match_id IN (
          SELECT s.match_id FROM seats s WHERE {agent_sql('s')} IN (SELECT unnest(?)))""",
                                     [*params, list(selection.agents)])}


@pytest.mark.parametrize("settings", ["seats", SETTINGS_SOURCE])
def test_the_agent_filter_picks_the_matches_naming_every_seat_picks(played, settings):  # noqa: F811
    every = names(played)
    assert {"fifty (max_tokens=64)", "fifty (max_tokens=default)", "gpt-4o"} <= set(every)
    selections = [Selection(agents=(name,)) for name in every]
    selections += [Selection(agents=tuple(every[:3])), Selection(agents=("nobody",)),
                   Selection(games=("guessing_game",), agents=("fifty (max_tokens=64)", "bot:equilibrium")),
                   Selection(run_ids=("gamabench-import-gpt-3.5-turbo-0125",), agents=("gpt-3.5-turbo-0125",))]
    for selection in selections:
        assert picked(played, selection, settings) == every_seat_named(played, selection), selection.agents
    assert len(every_seat_named(played, Selection(agents=("fifty (max_tokens=64)",)))) > 1


def test_the_figures_of_one_agent_are_the_same_with_the_summaries_in_step_or_not(played, monkeypatch):  # noqa: F811
    mine = Selection(games=("guessing_game",), agents=("fifty (max_tokens=64)",))
    summed = gamabench.round_curves(played, mine), gamabench.leaderboard(played, mine)
    assert not summed[0].empty and len(summed[1]) >= 2  # the agent and the others in its matches
    monkeypatch.setattr(store, "summaries_in_step", lambda db: False)
    logged = gamabench.round_curves(played, mine), gamabench.leaderboard(played, mine)
    for left, right in zip(summed, logged, strict=True):
        pd.testing.assert_frame_equal(left, right, check_exact=False, rtol=1e-12)
