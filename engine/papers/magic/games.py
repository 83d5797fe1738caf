"""MAgIC's games under its rule variants, and the columns of its tables that its suite and scorers share."""

from __future__ import annotations

from engine.store.selection import Variant

SOCIAL = (Variant.of("chameleon"), Variant.of("undercover", "magic"))
THEORY = (Variant.of("cost_sharing"), Variant.of("prisoners_dilemma"), Variant.of("magic_public_good"))

# the profile's columns beyond the abilities (engine/papers/magic/abilities.py computes them), shown apart so that
# the table fits a 1400 px window
ROLE_WIN_RATES = ("chameleon_wr", "non_chameleon_wr", "undercover_wr", "civilian_wr", "cost_sharing_wr",
                  "prisoner_wr", "public_good_wr")
TABLE_2 = ("cost_sharing_cost", "prisoner_score", "public_good_payback")
