"""γ-Bench (GAMA-Bench, seed 002): eight multi-player games scored 0-100, and their per-round curves."""

from __future__ import annotations

from engine.selection import Variant
from engine.suites.base import Chart, Figure, Headline, Scorer, Suite

GAMES = ("guessing_game", "bar_game", "divide_dollar", "public_goods", "diner_dilemma", "sealed_bid_auction",
         "battle_royale", "pirate_game")

SUITE = Suite(
    name="gamabench", title="γ-Bench (0-100)", paper="GAMA-Bench",
    variants=tuple(Variant.of(g) for g in GAMES),
    board=Scorer("engine.metrics.gamabench:leaderboard"),
    headline=Headline("score", "γ-Bench score 0-100", "gamabench_score"),
    caption="Rows with source `published` are GAMA-Bench's own records, imported with "
            "`python -m engine import gamabench DIR` and scored as the authors' `compute_score` does: from "
            "the figures each round record stores (Diner `cheap_player`: an answer outside the options counts "
            "as costly; a record that stops early scores the rounds it has; Battle Royale `shot_player` "
            "'null' is a wrong shot). `overall` needs all eight games.",
    empty="No γ-Bench games in this selection yet.",
    figures=(
        Figure("rounds_{game}", "per-round figures", GAMES, Scorer("engine.metrics.gamabench:round_curves"),
               Chart("line", "step", skip=("matches",), x_title="round", y_title="value")),
    ),
)
