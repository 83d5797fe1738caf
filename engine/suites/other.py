"""The games no paper's suite plays: win rates per game and agent, nothing more is defined for them."""

from __future__ import annotations

from engine.selection import Variant
from engine.suites.base import Scorer, Suite


def suite(claimed: set[str]) -> Suite:
    """The suite of every registered game outside `claimed` (the papers' games)."""
    from engine.games import all_games

    return Suite(
        name="other", title="Other games", paper="",
        variants=tuple(Variant.of(g) for g in all_games() if g not in claimed),
        board=Scorer("engine.headline:per_game"), narrow=True,
        caption="Win rates per seat with their Wilson 95% intervals (self-play of a competitive game left out): no "
                "paper defines a table for these games.",
        empty="No games outside the papers' suites in this selection.",
    )
