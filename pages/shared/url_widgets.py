"""The dashboard's selection in the URL (st.query_params, so a copied link opens the same view): every widget keeps
its value in `st.query_params[key]`, read once per session; a link naming what is not here says so in a notice at the
top of the page; `filter_bar` is the run, game, preset and date filters every filtered page opens with, and the
switch that leaves out matches with fallback moves.

    url_multiselect(label, options, key, default=None) -> list[str]
    url_selectbox(label, options, key, default=None) -> option
    url_date_range(label, lo, hi, key) -> (date, date)
    url_text(label, key, default="") -> str
    url_toggle(label, key, default=False, help=None) -> bool
    url_int(label, lo, hi, key, default=None) -> int          (a slider)
    filter_bar(options, games=True, report=None, db=None) -> Selection  (and the report's header)
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from engine.store.selection import Selection
from pages.shared.caching import filter_options
from pages.shared.markdown import plain
from pages.shared.report import Report, runs_of, selection_of


def _remember(key: str, value: list[str] | str | None) -> None:
    if value in (None, "", []):
        st.query_params.pop(key, None)
    else:
        st.query_params[key] = value


NOTICE_AREA = "_link_notice_area"  # a session key, reset by every run of a page


def link_notice(text: str) -> None:
    """A notice about the page's link (an unknown page, match or option: what is shown instead) in the area right
    under the page's title (`notice_area`), so it is seen before what the page shows instead; where the page has no
    such area, where it is called. One line of plain text: a link's values come from whoever wrote the link, so
    they must not become markdown or HTML."""
    area = st.session_state.get(NOTICE_AREA)
    (st if area is None else area).warning(plain(text), icon=":material/link_off:")


def start_notices() -> None:
    """Before a page runs (app.py): forget the last run's notice area."""
    st.session_state.pop(NOTICE_AREA, None)


def notice_area() -> None:
    """The place for this run's link notices, right under the title (pages/shared/opening.py)."""
    st.session_state[NOTICE_AREA] = st.container()


def _unknown_in_link(label: str, values: list[str], instead: str) -> None:
    """The link asked for what is not here (a mistyped or stale link, another database), and what is shown
    `instead`, rather than silently showing something else: a `link_notice` at the top of the page."""
    if values:
        quoted = ", ".join(f"'{v if len(v) <= 40 else v[:39] + '…'}'" for v in values)
        link_notice(f"Unknown {label.lower()} {quoted} in the link: {instead}.")


def url_multiselect(label: str, options: list[str], key: str, default: list[str] | None = None) -> list[str]:
    """A multiselect whose choice lives in the URL as repeated `key=` parameters (unknown ones are said, then
    left out)."""
    options = list(options)
    unknown = []
    if key not in st.session_state:
        linked = st.query_params.get_all(key)
        st.session_state[key] = [o for o in linked or default or [] if o in options]
        unknown = [o for o in linked if o not in options]
    chosen = st.multiselect(label, options, key=key)
    _unknown_in_link(label, unknown, "left out")
    _remember(key, chosen)
    return chosen


def url_selectbox(label: str, options: list[Any], key: str, default: Any = None) -> Any:
    """A selectbox whose choice lives in the URL (`key=<str(option)>`); falls back to `default`, then the first
    (a link's unknown value is said)."""
    options = list(options)
    if not options:
        return None
    names = [str(o) for o in options]
    unknown = []
    if key not in st.session_state:
        wanted = st.query_params.get(key)
        fallback = default if default in options else options[0]
        st.session_state[key] = options[names.index(wanted)] if wanted in names else fallback
        unknown = [wanted] if wanted and wanted not in names else []
    chosen = st.selectbox(label, options, key=key)
    _unknown_in_link(label, unknown, f"showing {chosen}")
    _remember(key, str(chosen))
    return chosen


def url_text(label: str, key: str, default: str = "") -> str:
    """A text input kept in the URL as `key=<text>`."""
    if key not in st.session_state:
        st.session_state[key] = st.query_params.get(key, default)
    value = st.text_input(label, key=key)
    _remember(key, value if value != default else None)
    return value


def url_toggle(label: str, key: str, default: bool = False, help: str | None = None) -> bool:  # noqa: A002
    """A checkbox kept in the URL as `key=1` / `key=0` (absent: the default)."""
    if key not in st.session_state:
        st.session_state[key] = {"1": True, "0": False}.get(st.query_params.get(key, ""), default)
    value = st.checkbox(label, key=key, help=help)
    _remember(key, None if value == default else str(int(value)))
    return value


def url_int(label: str, lo: int, hi: int, key: str, default: int | None = None) -> int:
    """An integer slider from lo to hi kept in the URL (`key=<n>`); out-of-range links clamp to the range."""
    fallback = lo if default is None else default
    if key not in st.session_state or not lo <= st.session_state[key] <= hi:
        try:
            wanted = int(st.query_params.get(key, fallback))
        except ValueError:
            wanted = fallback
        st.session_state[key] = min(max(wanted, lo), hi)
    value = st.slider(label, lo, hi, key=key) if hi > lo else lo
    _remember(key, None if value == fallback else str(value))
    return value


def url_date_range(label: str, lo: date, hi: date, key: str) -> tuple[date, date]:
    """A from-to date input kept in the URL as `key=YYYY-MM-DD..YYYY-MM-DD`."""
    if key not in st.session_state:
        start, end = lo, hi
        raw = st.query_params.get(key, "")
        if ".." in raw:
            try:
                start, end = sorted(date.fromisoformat(part) for part in raw.split("..", 1))  # reversed: same days
            except ValueError:
                pass
        st.session_state[key] = (start, end)
    value = st.date_input(label, key=key)
    start, end = (tuple(value) + (None, None))[:2] if isinstance(value, (tuple, list)) else (value, value)
    start, end = start or lo, end or start or hi
    _remember(key, None if (start, end) == (lo, hi) else f"{start.isoformat()}..{end.isoformat()}")
    return start, end


WITHOUT_FALLBACKS_HELP = ("Count only the matches in which every move was a player's own answer: a match where the "
                          "engine played a random or fixed fallback move for any seat (its answer did not parse or was "
                          "illegal) is left out, with its wins and scores. Off: the tables count every match and show "
                          "the wins such moves earned apart (fallback wins).")


def filter_bar(options: pd.DataFrame, games: bool = True, report: Report | None = None,
               db: str | Path | None = None) -> Selection:
    """Run, game, preset and date filters over `queries.filter_options` rows and the switch that leaves out
    matches with fallback moves (`Selection.without_fallbacks`), kept in the URL; `report`'s
    header then states `db`, the filters and the runs they keep."""
    selection = _filter_widgets(options, games)
    if report is not None:  # the matches with fallback moves are counted (a read of every turn) only to leave them out
        counted = filter_options(db, fallbacks=True) if selection.without_fallbacks and db else options
        report.scope(db or "", selection_of(selection), runs_of(selection, counted))
    return selection


def _filter_widgets(options: pd.DataFrame, games: bool) -> Selection:
    if options.empty:
        return Selection()
    names = dict(zip(options["run_id"], options["run_name"].fillna(""), strict=False))
    cols = st.columns(4 if games else 3)
    with cols[0]:
        runs = url_multiselect("Runs", sorted(names), "runs")
    picked_games: list[str] = []
    if games:
        with cols[1]:
            picked_games = url_multiselect("Games", sorted(options["game"].unique()), "games")
    with cols[-2]:
        presets = url_multiselect("Presets", sorted(options["preset"].dropna().unique()), "presets")
    with cols[-1]:
        lo, hi = pd.Timestamp(options["first_day"].min()).date(), pd.Timestamp(options["last_day"].max()).date()
        start, end = url_date_range("Finished between", lo, hi, "dates")
    without_fallbacks = url_toggle("Leave out matches with fallback moves", "without_fallbacks",
                                   help=WITHOUT_FALLBACKS_HELP)
    return Selection(tuple(runs), tuple(picked_games), tuple(presets), None if start == lo else start,
                     None if end == hi else end, without_fallbacks=without_fallbacks)
