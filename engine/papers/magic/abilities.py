"""MAgIC's ability profile (MAgIC paper §3.3, App. A.2; formulas in docs/METRICS.md): per challenger, the
seven abilities, the overall win rate and the radar polygon's area, from ONE function the CLI
(`python -m engine scores --suite magic`) and the dashboard both call.

- Judgement, Reasoning, Deception, Self-awareness and the four social role win rates come from
  Chameleon and Undercover (`social.social_abilities`).
- Cooperation = successful cost-sharing games / games; Coordination = successful games whose agreed
  split the challenger had proposed / successful games; Rationality = (defect decisions + rounds where
  it invested the least) / (PD decisions + public-good decisions), from the metrics the games store.
- Win rate = the mean of the seven role win rates (chameleon, non-chameleon, undercover, civilian,
  cost sharing = success rate, prisoner, public good = share of games at the top total, ties included, as the
  authors' log_game counts a win); `roles` says how many of
  the seven it averages when some games were not played.
- Table 2's figures: `cost_sharing_cost` = the challenger's mean share (%) of the agreed split in the
  successful cost-sharing games (the authors' `collabration` Cost), `prisoner_score` = its mean final
  score in the Prisoner's Dilemma, `public_good_payback` = its mean payback from the multiplied pool.
- The radar's area (`radar`): `AREA`, the polygon of the seven abilities (Figure 1) as a percentage of the
  full polygon, and `PAPER_AREA`, its raw area on 0-100 axes, the unit of the paper's Figures 1 and 6.
One scale per figure on every output path (page, CSV, Parquet, CLI, report): the abilities 0-100 as Table 1 prints
them, named so (`ABILITY_COLUMNS`: "Judgement (0-100)"); the win rates as fractions (the pages show them in %);
Table 2's figures in their own units.
A figure whose games are missing is NaN, never 0, and so are the areas unless all seven abilities exist.
Which seats are the challenger's: `social` (the match's `tested_role`, else the one seat whose
agent and strategy differ from the others'; in self-play every seat counts).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from engine import store
from engine.papers.magic.games import ROLE_WIN_RATES as SUITE_ROLE_WIN_RATES
from engine.papers.magic.games import SOCIAL, THEORY
from engine.papers.magic.games import TABLE_2 as SUITE_TABLE_2
from engine.papers.magic.radar import (
    ABILITIES,
    ABILITY_COLUMNS,
    AREA,
    PAPER_AREA,
    RADAR_SCALE,
    area_paper,
    area_percent,
)
from engine.papers.magic.social import (
    AUTHORS,
    SOCIAL_METRICS,
    SOCIAL_SUMS,
    challenger_figures,
    ratios,
    seat_in,
    social_abilities_of,
)
from engine.papers.seat_summary import NO_STRATEGY
from engine.score.kept_tables import kept_per_state
from engine.score.precision import fixed_values
from engine.store.selection import ALL, Selection, variants_sql

SOCIAL_ABILITY_COLUMNS = {"judgement": "Judgement", "reasoning": "Reasoning", "deception": "Deception",
                          "self_awareness": "Self-awareness"}
ROLE_WIN_RATES, TABLE_2 = list(SUITE_ROLE_WIN_RATES), list(SUITE_TABLE_2)  # named once, in the suite's declaration
THEORY_SELECTION = variants_sql(THEORY)
PROFILE_COLUMNS = ["agent", "strategy", *ABILITY_COLUMNS, "win_rate", "roles", AREA, PAPER_AREA, *ROLE_WIN_RATES,
                   *TABLE_2]
__all__ = ["ABILITIES", "ABILITY_COLUMNS", "AREA", "PAPER_AREA", "PROFILE_COLUMNS", "RADAR_SCALE", "ROLE_WIN_RATES",
           "TABLE_2", "ability_profile"]

# the suite's three game-theory games, in its order: each has its own formulas below
_SHARING, _PRISONER, _PUBLIC = (seat_in(variant) for variant in THEORY)
_RATIONAL = f"{_PRISONER} OR {_PUBLIC}"
THEORY_METRICS = ("agreement", "proposal_agreed", "rational_moves", "rational_chances", "cost_share", "final_score",
                  "payback", "top_total")
THEORY_SUMS = {
    "sharing": f"sum(seated) FILTER (WHERE {_SHARING})", "prisoner": f"sum(seated) FILTER (WHERE {_PRISONER})",
    "public": f"sum(seated) FILTER (WHERE {_PUBLIC})",
    "agreement": f"sum(agreement) FILTER (WHERE {_SHARING})",
    "proposal_agreed": f"sum(proposal_agreed) FILTER (WHERE {_SHARING})",
    "rational_moves": f"sum(rational_moves) FILTER (WHERE {_RATIONAL})",
    "rational_chances": f"sum(rational_chances) FILTER (WHERE {_RATIONAL})",
    # MAgIC's role win: the top total, ties included (their log_game), not the outcome's win (alone at the top)
    "prisoner_won": f"sum(top_total) FILTER (WHERE {_PRISONER})",
    "public_won": f"sum(top_total) FILTER (WHERE {_PUBLIC})",
    "cost_share": f"sum(cost_share) FILTER (WHERE {_SHARING})",
    "final_score": f"sum(final_score) FILTER (WHERE {_PRISONER})",
    "payback": f"sum(payback) FILTER (WHERE {_PUBLIC})",
}
THEORY_COLUMNS = ["agent", "strategy", "Cooperation", "Coordination", "Rationality", "cost_sharing_wr", "prisoner_wr",
                  "public_good_wr", *TABLE_2]


def _theory_abilities_of(sums: pd.DataFrame) -> pd.DataFrame:
    """The game-theory abilities from the `THEORY_SUMS` per agent and strategy."""
    table = pd.DataFrame({
        "Cooperation": ratios(sums["agreement"], sums["sharing"]),
        "Coordination": ratios(sums["proposal_agreed"], sums["agreement"]),
        "Rationality": ratios(sums["rational_moves"], sums["rational_chances"]),
        "cost_sharing_wr": ratios(sums["agreement"], sums["sharing"]),
        "prisoner_wr": ratios(sums["prisoner_won"], sums["prisoner"]),
        "public_good_wr": ratios(sums["public_won"], sums["public"]),
        "cost_sharing_cost": ratios(sums["cost_share"], sums["agreement"]),
        "prisoner_score": ratios(sums["final_score"], sums["prisoner"]),
        "public_good_payback": ratios(sums["payback"], sums["public"])})
    return table.reset_index().reindex(columns=THEORY_COLUMNS)


@kept_per_state
def ability_profile(db: str | Path, selection: Selection = ALL, missing_suspicion: str = AUTHORS) -> pd.DataFrame:
    """One row per challenger (agent label and strategy) over the selected matches: the seven abilities (0-100),
    the win rate, the number of role win rates it averages, the radar's area in both units, and the seven role
    win rates. Both halves' counts come from one query, one row per challenger; an agent that played only one
    half has NaN (no games) for the other's figures. `missing_suspicion`: how Reasoning reads a belief without
    a suspect (`belief_reasoning.seat_reasoning`: 'authors' as Player 1, their argmax of zeros; 'unmatched' never
    right)."""
    with store.reading(db):
        sums, reasoning = challenger_figures(db, selection, SOCIAL + THEORY, SOCIAL_METRICS + THEORY_METRICS,
                                             SOCIAL_SUMS | THEORY_SUMS, missing_suspicion)
    if sums.empty:
        return pd.DataFrame(columns=PROFILE_COLUMNS)
    social = social_abilities_of(sums, reasoning).rename(columns=SOCIAL_ABILITY_COLUMNS)
    profile = social.merge(_theory_abilities_of(sums), on=["agent", "strategy"])
    profile[ABILITIES] = profile[ABILITIES].astype(float) * RADAR_SCALE  # Table 1's scale: the one place it is set
    profile = profile.rename(columns=dict(zip(ABILITIES, ABILITY_COLUMNS, strict=True)))
    profile = profile.reindex(columns=PROFILE_COLUMNS).astype({c: float for c in ROLE_WIN_RATES + TABLE_2})
    # bots have no strategy: blank, not the social summary's grouping key NO_STRATEGY ("-")
    profile["strategy"] = [None if s != s or s in (None, NO_STRATEGY) else s for s in profile["strategy"]]
    roles = profile[ROLE_WIN_RATES]
    profile["win_rate"] = roles.mean(axis=1, skipna=True)
    profile["roles"] = roles.notna().sum(axis=1)
    abilities = [list(row) for row in profile[ABILITY_COLUMNS].itertuples(index=False)]
    profile[AREA] = [area_percent(values) for values in abilities]
    profile[PAPER_AREA] = [area_paper(values) for values in abilities]
    return profile.sort_values(["win_rate", "agent"], ascending=[False, True], na_position="last",
                               key=fixed_values).reset_index(drop=True)
