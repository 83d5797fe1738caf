"""Who is Spy (WiS, docs/PAPERS.md): Undercover under its own rules, a ranking by points and the figures per role."""

from __future__ import annotations

from engine.selection import Variant
from engine.suites.base import Figure, Scorer, Suite

UNDERCOVER = Variant.of("undercover", "wis")

SUITE = Suite(
    name="wis", title="Who is Spy ranking", paper="Who-is-Spy",
    variants=(UNDERCOVER,),
    board=Scorer("engine.metrics.wis:leaderboard"),
    caption="Ranking = 100 + the sum of scores - games played (over the selected WiS games).",
    empty="No Who-is-Spy (`undercover`, rules `wis`) games yet.",
    figures=(
        Figure("wis_roles", "Who is Spy: figures by role", ("undercover",),
               Scorer("engine.metrics.wis:figures_by_role")),
    ),
)
