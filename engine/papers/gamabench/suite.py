"""γ-Bench (GAMA-Bench, docs/PAPERS.md): eight multi-player games scored 0-100, and their per-round curves."""

from __future__ import annotations

from engine.papers.base import Chart, Figure, Headline, Suite, TableLayout
from engine.papers.gamabench.games import GAMES
from engine.papers.gamabench.scores import leaderboard, round_curves
from engine.store.selection import Variant

SUITE = Suite(
    name="gamabench", title="γ-Bench (0-100)", paper="GAMA-Bench",
    variants=tuple(Variant.of(g) for g in GAMES),
    board=leaderboard,
    headline=Headline("score", "γ-Bench score 0-100", "gamabench_score", (0.0, 100.0)),
    self_play=True,
    layout=TableLayout(key=("overall", "matches", "setting", "source")),
    caption="Rows with source `published` are GAMA-Bench's own records, imported with "
            "`python -m engine import gamabench DIR` and scored as the authors' `compute_score` does: from "
            "the figures each round record stores (Diner `cheap_player`: an answer outside the options counts "
            "as costly; a record that stops early scores the rounds it has; Battle Royale `shot_player` "
            "'null' is a wrong shot; the Pirate Game divides by their code's 200 whatever the gold). Battle "
            "Royale stops after 20 rounds as theirs did (preset `last_survivor` plays on). `overall` needs all "
            "eight games. `setting`: vanilla = the game's parameters as the paper plays it (for published rows: "
            "only runs `_v1_1`..`_v1_5`, the files their board.py reads), `custom: golds=4` = a row per changed "
            "value, `study _t5` = a published study of its own: rows of different settings score different "
            "games and do not compare. Unlike the headline, this table keeps "
            "self-play: γ-Bench's protocol puts one model in every seat and scores it against the game's optimum.",
    empty="No γ-Bench games in this selection.",
    figures=(
        Figure("rounds_{game}", "per-round figures", GAMES, round_curves,
               Chart("line", "step", skip=("matches",), x_title="round", y_title="value")),
    ),
)
