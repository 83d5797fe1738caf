"""The papers: each paper is one folder here holding its suite (its games and rule variants, its leaderboard, its
figures), its scorers, the summaries it keeps, its importer and its published rows; `other` is the suite of the
games outside the papers. The CLI's `scores`, the dashboard's pages and bench/dashboard.py read suites from here.

A new paper is one folder with a `suite.py` defining `SUITE`, and one line in `_PAPERS` below; a paper whose
authors' records can be imported adds its importer to `RECORD_IMPORTERS`.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pandas as pd

from engine.papers import other
from engine.papers.base import Chart, Figure, Headline, Scorer, Suite
from engine.papers.gamabench import importer as gamabench_importer
from engine.papers.gamabench import suite as gamabench
from engine.papers.llmarena import suite as llmarena
from engine.papers.magic import suite as magic
from engine.papers.wis import suite as wis
from engine.store.selection import ALL, Selection

_PAPERS = (gamabench.SUITE, magic.SUITE, llmarena.SUITE, wis.SUITE)
# the sources of published records: `python -m engine import NAME DIR` reads DIR with `import_dir`, and `rescore`
# recomputes an imported match (source `import:NAME`) with `rescore`
RECORD_IMPORTERS = {"gamabench": gamabench_importer}


def import_records(name: str, path: str | Path, db: str | Path, progress: bool = False) -> str:
    if name not in RECORD_IMPORTERS:
        raise ValueError(f"no importer named '{name}' (known: {', '.join(RECORD_IMPORTERS)})")
    return RECORD_IMPORTERS[name].import_dir(Path(path), Path(db), progress)


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


__all__ = ["RECORD_IMPORTERS", "Chart", "Figure", "Headline", "Scorer", "Suite", "all_suites", "get_suite",
           "import_records", "own_table", "suites_of"]
