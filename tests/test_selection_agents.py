"""A selection's agent filter (engine/store/selection.py `seated_sql`): the figures filtered by an agent are the same
with
the summaries in step or not."""

from __future__ import annotations

import pandas as pd
import pytest

from engine import store
from engine.papers.gamabench import scores as gamabench
from engine.store.selection import Selection
from tests.test_gamabench_summary import played  # noqa: F401 (a fixture: published records and runs, max_tokens)

pytestmark = pytest.mark.slow  # the fixture: two imports and two runs


def test_the_figures_of_one_agent_are_the_same_with_the_summaries_in_step_or_not(played, monkeypatch):  # noqa: F811
    mine = Selection(games=("guessing_game",), agents=("fifty · bot:fixed:50",))
    summed = gamabench.round_curves(played, mine), gamabench.leaderboard(played, mine)
    assert not summed[0].empty and len(summed[1]) >= 2  # the agent and the others in its matches
    monkeypatch.setattr(store, "summaries_in_step", lambda db: False)
    logged = gamabench.round_curves(played, mine), gamabench.leaderboard(played, mine)
    for left, right in zip(summed, logged, strict=True):
        pd.testing.assert_frame_equal(left, right, check_exact=False, rtol=1e-12)
