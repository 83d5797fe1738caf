"""Slow scorers computed once per version of the database (MAgIC's profile, WiS' tables, ratings), reused across
reruns and sessions, and the question a page asks before replaying a large selection from scratch."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from engine.present import queries
from engine.wording import count


def _db_version(db: str | Path) -> tuple:
    """Changes whenever a writer commits (the file or its write-ahead log changes)."""
    stamps = []
    for path in (Path(db), Path(f"{db}.wal")):
        stat = path.stat() if path.exists() else None
        stamps.append((stat.st_mtime_ns, stat.st_size) if stat else None)
    return tuple(stamps)


@st.cache_data(show_spinner=False, max_entries=64)
def _cached_call(_fn, name: str, db: str, version: tuple, kwargs: tuple) -> pd.DataFrame:
    """`_fn` is left out of the cache's key (a leading underscore): `name`, its module and name, stands for it."""
    return _fn(Path(db), **dict(kwargs))


def cached(fn, db: str | Path, **kwargs) -> pd.DataFrame:
    """`fn(db, **kwargs)` for scorers that read whole games in pandas (MAgIC's profile, WiS' tables,
    ratings): computed once per version of the database and reused across reruns and sessions."""
    return _cached_call(fn, f"{fn.__module__}.{fn.__qualname__}", str(db), _db_version(db),
                        tuple(sorted(kwargs.items())))


def filter_options(db: str | Path, fallbacks: bool = False) -> pd.DataFrame:
    """`queries.filter_options`, read once per version of the database: every filtered page opens with it, and it
    counts every match (100 ms at 1M matches; with `fallbacks`, every turn: 650 ms)."""
    return cached(queries.filter_options, db, fallbacks=fallbacks)


SLOW_SCORER_LIMIT = 1_500  # matches TrueSkill replays from scratch in ~300 ms (bench/dashboard.py measures the rate)


def slow_scorer_wanted(what: str, options: pd.DataFrame, games: tuple[str, ...] | None, key: str) -> bool:
    """A scorer that must replay a selection from scratch (TrueSkill over a filtered selection, whose replay is not
    saved) takes seconds at 50,000 matches: it runs by itself up to SLOW_SCORER_LIMIT matches of its `games`
    (None: every game; counted from `queries.filter_options` rows), above it on request."""
    rows = options if games is None else options[options["game"].isin(games)]
    matches = int(rows["matches"].sum())
    return matches <= SLOW_SCORER_LIMIT or st.checkbox(f"Compute {what} over {count(matches, 'match')} (slow)", key=key)
