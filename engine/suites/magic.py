"""MAgIC (seed 000): the social-deduction games (Chameleon, Undercover under MAgIC's rules) and three
game-theory games, scored as seven abilities per challenger."""

from __future__ import annotations

from engine.selection import Variant
from engine.suites.base import Scorer, Suite

SOCIAL = (Variant.of("chameleon"), Variant.of("undercover", "magic"))
THEORY = (Variant.of("cost_sharing"), Variant.of("prisoners_dilemma"), Variant.of("magic_public_good"))

SUITE = Suite(
    name="magic", title="MAgIC abilities", paper="MAgIC",
    variants=SOCIAL + THEORY,
    board=Scorer("engine.metrics.magic:ability_profile"),
    caption="Per challenger: the seven abilities, the win rate over the role win rates, the radar's area.",
    empty="No Chameleon, Undercover (MAgIC rules), cost sharing, prisoner's dilemma or public good matches "
          "in this selection.",
)
