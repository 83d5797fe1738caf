"""The suites: each paper's benchmark as one declaration (its games and rule variants, its leaderboard, its
figures), and one suite for the games outside the papers. The CLI's `scores`, the dashboard's pages and
bench/dashboard.py all read suites from here.

A new suite is one module in this package defining `SUITE`, and one line in `_PAPERS` below.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pandas as pd

from engine.selection import ALL, Selection
from engine.suites import gamabench, llmarena, magic, other, wis
from engine.suites.base import Chart, Figure, Headline, Scorer, Suite

_PAPERS = (gamabench.SUITE, magic.SUITE, llmarena.SUITE, wis.SUITE)


@cache
def all_suites() -> dict[str, Suite]:
    """Every suite by name, the papers' first, then `other`."""
    claimed = {game for suite in _PAPERS for game in suite.games}
    return {s.name: s for s in (*_PAPERS, other.suite(claimed))}


def get_suite(name: str) -> Suite:
    suites = all_suites()
    if name not in suites:
        raise ValueError(f"unknown suite '{name}' (known: {', '.join(suites)})")
    return suites[name]


def own_table(db: str | Path, suite: str, selection: Selection = ALL) -> pd.DataFrame:
    """Suite `suite`'s own table over the selection (`Suite.leaderboard`: contested matches), by name: a function
    of plain arguments the dashboard can cache."""
    return get_suite(suite).leaderboard(db, selection)


def suites_of(game: str) -> list[Suite]:
    """The suites that play `game` (under any of its rule sets)."""
    return [s for s in all_suites().values() if game in s.games]


__all__ = ["Chart", "Figure", "Headline", "Scorer", "Suite", "all_suites", "get_suite", "own_table", "suites_of"]
