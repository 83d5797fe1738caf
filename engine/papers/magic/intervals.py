"""How much each of MAgIC's seven abilities rests on: per challenger and ability, the challenger's seats behind it
(`n`: its matches of the games the ability is read from) and the 95% Wilson interval of the rate it is
(docs/METRICS.md). Every ability is a share of counted chances, on the profile's 0-100 scale:

- Judgement: right votes of the votes cast as a voter (non-chameleon, civilian), seats as a voter;
- Reasoning: right belief items of those asked, seats in Chameleon and Undercover;
- Deception: games won as chameleon or undercover of those played (the interval is that share's, shifted by the
  ability's fixed 0.25 x guess term and clipped to 0-100), seats as chameleon or undercover;
- Self-awareness: right role-probe answers of those asked, seats in Chameleon and Undercover;
- Cooperation: cost-sharing games agreed of those played; Coordination: agreed splits the challenger proposed of
  those agreed (n: its agreed games); Rationality: rational decisions of the chances (n: Prisoner's Dilemma and
  Public Good seats).

The interval counts each vote, item, probe or decision as its own trial: those of one match are not independent,
so it is narrower than the match-level uncertainty, and `n` says how many matches it rests on.
The counts are the profile's own (`social.challenger_figures` with `abilities.THEORY_SUMS`), so the rates
are the profile's abilities to the bit.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from engine import store
from engine.papers.magic.abilities import THEORY_METRICS, THEORY_SUMS
from engine.papers.magic.games import SOCIAL, THEORY
from engine.papers.magic.radar import ABILITIES, RADAR_SCALE
from engine.papers.magic.social import (
    AUTHORS,
    SOCIAL_METRICS,
    SOCIAL_SUMS,
    challenger_figures,
    deception_guess,
    ratios,
    seat_in,
)
from engine.papers.registry import get_suite
from engine.papers.seat_summary import NO_STRATEGY
from engine.score import stats
from engine.score.kept_tables import kept_per_state
from engine.store.selection import ALL, Selection

INTERVAL_COLUMNS = ["agent", "strategy", "ability", "value", "n", "trials", "low", "high"]
_SOCIAL_SEAT = " OR ".join(seat_in(variant) for variant in SOCIAL)
SEAT_SUMS = {"voter_seats": "sum(seated) FILTER (WHERE role IN ('non-chameleon', 'civilian'))",
             "social_seats": f"sum(seated) FILTER (WHERE {_SOCIAL_SEAT})"}


def _counts(sums: pd.DataFrame, reasoning: dict[tuple[str, str], tuple[int, int]]) -> dict[str, tuple]:
    """Ability -> (right, chances, seats) per challenger, as Series over `sums`' index."""
    items = [reasoning.get(key, (0, 0)) for key in sums.index]
    right = pd.Series([r for r, _ in items], index=sums.index, dtype=float)
    asked = pd.Series([a for _, a in items], index=sums.index, dtype=float)
    return {
        "Judgement": (sums["votes_correct"], sums["votes_cast"], sums["voter_seats"]),
        "Reasoning": (right, asked, sums["social_seats"]),
        "Deception": (sums["special_flag_not_0"], sums["special_games"], sums["special_games"]),
        "Self-awareness": (sums["role_probes_correct"], sums["role_probes"], sums["social_seats"]),
        "Cooperation": (sums["agreement"], sums["sharing"], sums["sharing"]),
        "Coordination": (sums["proposal_agreed"], sums["agreement"], sums["agreement"]),
        "Rationality": (sums["rational_moves"], sums["rational_chances"], sums["prisoner"] + sums["public"]),
    }


def profile_scope(selection: Selection = ALL) -> Selection:
    """The matches MAgIC's profile reads of `selection` (`Suite.leaderboard`: its contested matches of its games):
    the intervals' scope, so that they rest on the profile's own matches."""
    suite = get_suite("magic")
    scope = replace(selection, contested=not suite.self_play)
    return scope.within(suite.variants) if suite.narrow else scope


def share_interval(right, chances, shift) -> tuple[np.ndarray, np.ndarray]:
    """The 95% Wilson interval of the shares right / chances (arrays alike), shifted by `shift` (Deception's fixed
    guess term) and clipped to [0, 1]: an ability lies on the 0-100 scale, and the shift can carry a bound past it."""
    low, high = stats.wilson_interval(right, chances)
    shift = np.asarray(shift, dtype=float)
    return np.clip(low + shift, 0, 1), np.clip(high + shift, 0, 1)


@kept_per_state
def ability_intervals(db: str | Path, selection: Selection = ALL, missing_suspicion: str = AUTHORS) -> pd.DataFrame:
    """One row per challenger (agent, strategy: blank for a bot) and ability, in `ABILITIES`' order: the ability
    (`value`, 0-100, NaN without a chance), `n` the challenger's seats behind it, `trials` the votes, items, probes,
    games or decisions it is a share of, and `low`, `high` its 95% Wilson interval on the same scale, clipped to
    0-100."""
    with store.reading(db):
        sums, reasoning = challenger_figures(db, selection, SOCIAL + THEORY, SOCIAL_METRICS + THEORY_METRICS,
                                             SOCIAL_SUMS | THEORY_SUMS | SEAT_SUMS, missing_suspicion)
    if sums.empty:
        return pd.DataFrame(columns=INTERVAL_COLUMNS)
    rows = []
    for ability, (right, chances, seats) in _counts(sums, reasoning).items():
        shift = deception_guess(sums) if ability == "Deception" else 0.0
        low, high = share_interval(right, chances, shift)
        part = pd.DataFrame({"ability": ability, "value": ratios(right, chances) + shift, "n": seats.astype(int),
                             "trials": chances.astype(int), "low": low, "high": high}, index=sums.index)
        part[["value", "low", "high"]] *= RADAR_SCALE
        rows.append(part.reset_index())
    table = pd.concat(rows, ignore_index=True)
    table.loc[table["trials"] == 0, ["value", "low", "high"]] = np.nan
    table["strategy"] = [None if s in (None, NO_STRATEGY) else s for s in table["strategy"]]  # as the profile's
    table["ability"] = pd.Categorical(table["ability"], categories=ABILITIES, ordered=True)
    table = table.sort_values(["agent", "strategy", "ability"], na_position="first", kind="stable")
    return table.astype({"ability": str}).reset_index(drop=True)[INTERVAL_COLUMNS]
