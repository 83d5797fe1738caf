"""MAgIC's ability profile (seed 000 §3.3, App. A.2; formulas of ../shared/SPEC.md): per challenger, the
seven abilities, the overall win rate and the radar polygon's area, from ONE function the CLI
(`python -m engine scores --suite magic`) and the dashboard both call.

- Judgement, Reasoning, Deception, Self-awareness and the four social role win rates come from
  Chameleon and Undercover (`magic_social.social_abilities`).
- Cooperation = successful cost-sharing games / games; Coordination = successful games whose agreed
  split the challenger had proposed / successful games; Rationality = (defect decisions + rounds where
  it invested the least) / (PD decisions + public-good decisions), from the metrics the games store.
- Win rate = the mean of the seven role win rates (chameleon, non-chameleon, undercover, civilian,
  cost sharing = success rate, prisoner, public good = share of games won); `roles` says how many of
  the seven it averages when some games were not played.
A figure whose games are missing is NaN, never 0, and so is the area unless all seven abilities exist.
The challenger of a match is the one seat whose agent and strategy differ from the others' (the
competition setting); in self-play every seat counts.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from engine.metrics.magic_social import NO_STRATEGY, social_abilities, social_seats

ABILITIES = ["Judgement", "Reasoning", "Deception", "Self-awareness", "Cooperation", "Coordination", "Rationality"]
SOCIAL_ABILITY_COLUMNS = {"judgement": "Judgement", "reasoning": "Reasoning", "deception": "Deception",
                          "self_awareness": "Self-awareness"}
ROLE_WIN_RATES = ["chameleon_wr", "non_chameleon_wr", "undercover_wr", "civilian_wr", "cost_sharing_wr",
                  "prisoner_wr", "public_good_wr"]
THEORY_GAMES = ("cost_sharing", "prisoners_dilemma", "magic_public_good")
PROFILE_COLUMNS = ["agent", "strategy", *ABILITIES, "win_rate", "roles", "area", *ROLE_WIN_RATES]


def radar_area(values: list[float]) -> float:
    """Area of the polygon of `values` on equally spaced axes; NaN if any value is missing."""
    if not values or any(v != v for v in values):
        return float("nan")
    wedge = math.sin(2 * math.pi / len(values)) / 2
    return wedge * sum(a * b for a, b in zip(values, values[1:] + values[:1], strict=True))


def _ratio(num: float, den: float) -> float:
    return float(num) / float(den) if den else float("nan")


def _sum(rows: pd.DataFrame, name: str) -> float:
    return float(rows[name].fillna(0).sum()) if name in rows else 0.0


def theory_abilities(db: str | Path) -> pd.DataFrame:
    """Per challenger: Cooperation, Coordination, Rationality and the three game-theory win rates."""
    columns = ["agent", "strategy", "Cooperation", "Coordination", "Rationality", "cost_sharing_wr",
               "prisoner_wr", "public_good_wr"]
    games = ", ".join(f"'{g}'" for g in THEORY_GAMES)
    seats = social_seats(db, f"m.game IN ({games})")
    if seats.empty:
        return pd.DataFrame(columns=columns)
    seats = seats[seats["challenger"]]
    rows = []
    for (agent, strategy), mine in seats.groupby(["agent", "strategy"], sort=True):
        sharing = mine[mine["game"] == "cost_sharing"]
        prisoner = mine[mine["game"] == "prisoners_dilemma"]
        public = mine[mine["game"] == "magic_public_good"]
        rational = mine[mine["game"].isin(["prisoners_dilemma", "magic_public_good"])]
        rows.append({
            "agent": agent, "strategy": strategy,
            "Cooperation": _ratio(_sum(sharing, "agreement"), len(sharing)),
            "Coordination": _ratio(_sum(sharing, "proposal_agreed"), _sum(sharing, "agreement")),
            "Rationality": _ratio(_sum(rational, "rational_moves"), _sum(rational, "rational_chances")),
            "cost_sharing_wr": _ratio(_sum(sharing, "agreement"), len(sharing)),
            "prisoner_wr": _ratio(prisoner["won"].fillna(False).astype(bool).sum(), len(prisoner)),
            "public_good_wr": _ratio(public["won"].fillna(False).astype(bool).sum(), len(public)),
        })
    return pd.DataFrame(rows, columns=columns)


def ability_profile(db: str | Path) -> pd.DataFrame:
    """One row per challenger (agent label and strategy): the seven abilities, the win rate, the
    number of role win rates it averages, the radar area, and the seven role win rates."""
    social = social_abilities(db).rename(columns=SOCIAL_ABILITY_COLUMNS)
    theory = theory_abilities(db)
    if social.empty and theory.empty:
        return pd.DataFrame(columns=PROFILE_COLUMNS)
    frames = [f for f in (social, theory) if not f.empty]
    profile = frames[0] if len(frames) == 1 else frames[0].merge(frames[1], on=["agent", "strategy"], how="outer")
    profile = profile.reindex(columns=PROFILE_COLUMNS).astype({c: float for c in ABILITIES + ROLE_WIN_RATES})
    profile["strategy"] = profile["strategy"].fillna(NO_STRATEGY)
    roles = profile[ROLE_WIN_RATES]
    profile["win_rate"] = roles.mean(axis=1, skipna=True)
    profile["roles"] = roles.notna().sum(axis=1)
    profile["area"] = [radar_area(list(row)) for row in profile[ABILITIES].itertuples(index=False)]
    return profile.sort_values(["win_rate", "agent"], ascending=[False, True], na_position="last").reset_index(
        drop=True)


def leaderboard(db: str | Path) -> pd.DataFrame:
    """`python -m engine scores --suite magic`: the ability profile."""
    return ability_profile(db)
