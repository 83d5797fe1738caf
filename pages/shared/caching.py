"""The filter options every page opens with, kept per database state beside the database (the file layer,
engine/score/kept_tables.py: Streamlit's own cache is not used, so nothing a page shows is older than the code and
the database), and the question a page asks before replaying a large selection from scratch."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from engine.present import queries
from engine.score.kept_tables import kept_per_state
from engine.wording import count

# every filtered page opens with them, and they count every match (with `fallbacks`, every turn)
filter_options = kept_per_state(queries.filter_options)

SLOW_SCORER_LIMIT = 1_500  # matches TrueSkill replays from scratch in ~300 ms (bench/dashboard.py measures the rate)


def slow_scorer_wanted(what: str, options: pd.DataFrame, games: tuple[str, ...] | None, key: str) -> bool:
    """A scorer that must replay a selection from scratch (TrueSkill over a filtered selection, whose replay is not
    saved) takes seconds at 50,000 matches: it runs by itself up to SLOW_SCORER_LIMIT matches of its `games`
    (None: every game; counted from `queries.filter_options` rows), above it on request."""
    rows = options if games is None else options[options["game"].isin(games)]
    matches = int(rows["matches"].sum())
    return matches <= SLOW_SCORER_LIMIT or st.checkbox(f"Compute {what} over {count(matches, 'match')} (slow)", key=key)
