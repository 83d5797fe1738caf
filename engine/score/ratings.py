"""Skill ratings of agents from the stored match outcomes (LLMArena paper; docs/METRICS.md): the TrueSkill table
of a selection, and the names the pages, the CLI and the LLMArena tables read the ratings by. The parts, by job:

- engine.score.outcomes: who won each match (`OUTCOME`), as seats, pairwise comparisons and components;
- engine.score.trueskill_replay: TrueSkill replayed over the matches in the order they finished;
- engine.score.saved_replays: those replays saved beside the database;
- engine.score.bradley_terry: the order-free Bradley-Terry fit with bootstrap intervals;
- engine.score.kept_tables: the tables of each selection kept per database state, so a page reads them.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from engine import store
from engine.score.agent_figures import agent_figures, agents_seen, summed
from engine.score.bradley_terry import bradley_terry_table, fit_bradley_terry, rated_pairs, summed_pairs
from engine.score.kept_tables import kept
from engine.score.outcomes import OUTCOME, components, narrowed, pairwise_outcomes, played_counts, seat_outcomes_sql
from engine.score.saved_replays import saved_replay, saved_replays_path
from engine.score.stats import Z95
from engine.score.trueskill_replay import MU, refresh_saved, replayed_ratings
from engine.store.selection import ALL, Selection

__all__ = ["MU", "OUTCOME", "bradley_terry_table", "fit_bradley_terry", "rated_pairs", "refresh_saved",
           "saved_replay", "saved_replays_path", "seat_outcomes_sql", "trueskill_table"]


def trueskill_table(db: str | Path, game: str | None = None, selection: Selection = ALL) -> pd.DataFrame:
    """TrueSkill of every agent over the selected matches (of `game` when given), with the 95% interval of its skill
    (`mu_lo`, `mu_hi`) and its `component` of the who-played-whom graph (`components`: skills of different
    components never met and are not comparable), best conservative (mu - 3 sigma) first within each component.
    An agent that never met another agent has no rating: blank, with `note` saying why (not the prior). `matches`
    and `wins` are its contested matches and the seats it won in them (`played_counts`: self-play left out).
    Kept per database state (`kept_tables`)."""
    selection = narrowed(game, selection)
    if selection is None:
        return pd.DataFrame({c: [] for c in TRUESKILL_COLUMNS})
    return kept(db, f"trueskill {selection!r}", lambda: _trueskill_table(db, selection))


TRUESKILL_COLUMNS = ["agent", "mu", "sigma", "mu_lo", "mu_hi", "conservative", "component", "note", "matches", "wins"]


def _trueskill_table(db: str | Path, selection: Selection) -> pd.DataFrame:
    columns = TRUESKILL_COLUMNS
    ratings = replayed_ratings(db, selection=selection)  # it reads with the file open, and replays with it closed
    with store.reading(db):
        played, component = _played_and_components(db, selection)
    if played.empty:
        return pd.DataFrame({c: [] for c in columns})
    table = pd.DataFrame([{"agent": a, "mu": mu, "sigma": sigma} for a, (mu, sigma) in ratings.items()],
                         columns=["agent", "mu", "sigma"]).astype({"mu": float, "sigma": float})
    table["mu_lo"], table["mu_hi"] = table["mu"] - Z95 * table["sigma"], table["mu"] + Z95 * table["sigma"]
    table["conservative"] = table["mu"] - 3 * table["sigma"]
    table = table.merge(played, on="agent", how="outer")
    table["component"] = table["agent"].map(component).astype("Int64")
    table["note"] = np.where(table["mu"].isna(), "no rating: never played against another agent", "")
    table[["matches", "wins"]] = table[["matches", "wins"]].fillna(0).astype(int)
    return table.sort_values(["component", "conservative", "agent"], ascending=[True, False, True],
                             na_position="last", ignore_index=True)[columns]


def _played_and_components(db: str | Path, selection: Selection) -> tuple[pd.DataFrame, dict[str, int]]:
    """`played_counts` and the `components` of the selection's pairwise outcomes: summed from the summaries where
    they answer (as `rated_pairs` reads them: the pairs of contested matches are all the pairs, since self-play
    pairs no two agents; every agent seen, self-play included, listed with its counts or 0), else read from the
    log (a million matches' seats: seconds a game)."""
    seen = agents_seen(db, selection) if not selection.without_fallbacks else None  # no fallback key in the pairs
    if seen is None:
        return played_counts(db, selection), components(pairwise_outcomes(db, selection=selection))
    contested = replace(selection, contested=True)
    pairs, counted = summed_pairs(db, summed(db, contested)), agent_figures(db, contested)
    played = pd.DataFrame({"agent": seen, "matches": 0, "wins": 0})
    if not counted.empty:
        played = played[["agent"]].merge(counted[["agent", "matches", "wins"]], on="agent", how="left")
        played[["matches", "wins"]] = played[["matches", "wins"]].fillna(0).astype("int64")
    return played, components(pairs)
