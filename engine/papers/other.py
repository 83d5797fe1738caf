"""The games no paper's suite plays: win rates per game and agent, nothing more is defined for them."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from engine.papers.base import Suite
from engine.score.agent_figures import agent_figures
from engine.score.kept_tables import kept_per_state
from engine.store.selection import ALL, Selection, Variant


@kept_per_state
def per_game(db: str | Path, selection: Selection = ALL) -> pd.DataFrame:
    """The per-agent figures per game: the table of the games no paper defines one for."""
    return agent_figures(db, selection, by_game=True)


def suite(claimed: set[str]) -> Suite:
    """The suite of every registered game outside `claimed` (the papers' games)."""
    from engine.games import all_games

    return Suite(
        name="other", title="Other games", paper="",
        variants=tuple(Variant.of(g) for g in all_games() if g not in claimed),
        board=per_game, narrow=True,
        caption="Win rates per seat with their Wilson 95% intervals (self-play of a competitive game left out): no "
                "paper defines a table for these games.",
        empty="No games outside the papers' suites in this selection.",
    )
