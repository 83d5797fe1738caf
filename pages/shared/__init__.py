"""What makes a dashboard view shareable: its selection in the URL (st.query_params, so a copied
link opens the same view), its tables as CSV and Parquet downloads, and the whole page as one
self-contained HTML report (tables and plotly figures, plotly.js inlined once).

Signatures (every widget keeps its value in `st.query_params[key]`, read once per session):
    url_multiselect(label, options, key, default=None) -> list[str]
    url_selectbox(label, options, key, default=None) -> option
    url_date_range(label, lo, hi, key) -> (date, date)
    url_text(label, key, default="") -> str
    url_toggle(label, key, default=False, help=None) -> bool
    url_int(label, lo, hi, key, default=None) -> int          (a slider)
    filter_bar(options, games=True, report=None, db=None) -> Selection  (and the report's header)
    cached(fn, db, **kwargs) -> DataFrame;  slow_scorer_wanted(what, options, games, key) -> bool
    to_parquet(df) -> bytes;  download_table(df, name);  show_table(report, title, df, name)
    show_wide_table(report, title, df, name, aside);  win_rates_view(agent_figures rows) -> DataFrame
    readable(df) -> DataFrame  (the one number format: pages/shared/numbers.py)
    links.transcripts_link(selection, game, agent, variant) -> str;  links.linked_selection(get_all, game)
    selection_of(filters) -> dict;  runs_of(filters, options) -> list[str]
    Report(title): .scope(db, selection, runs) .text(markdown) .table(title, df) .figure(title, fig)
                   .html() -> str .download(name)
"""

from __future__ import annotations

import html
import importlib
import io
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from engine.metrics.magic import ROLE_WIN_RATES, TABLE_2
from engine.selection import Selection
from engine.suites import Scorer
from engine.wording import count
from pages.shared import numbers


# ---------------------------------------------------------------- selection in the URL
def _remember(key: str, value: list[str] | str | None) -> None:
    if value in (None, "", []):
        st.query_params.pop(key, None)
    else:
        st.query_params[key] = value


def url_multiselect(label: str, options: list[str], key: str, default: list[str] | None = None) -> list[str]:
    """A multiselect whose choice lives in the URL as repeated `key=` parameters."""
    options = list(options)
    if key not in st.session_state:
        wanted = st.query_params.get_all(key) or (default or [])
        st.session_state[key] = [o for o in wanted if o in options]
    chosen = st.multiselect(label, options, key=key)
    _remember(key, chosen)
    return chosen


def url_selectbox(label: str, options: list[Any], key: str, default: Any = None) -> Any:
    """A selectbox whose choice lives in the URL (`key=<str(option)>`); falls back to `default`, then the first."""
    options = list(options)
    if not options:
        return None
    names = [str(o) for o in options]
    if key not in st.session_state:
        wanted = st.query_params.get(key)
        fallback = default if default in options else options[0]
        st.session_state[key] = options[names.index(wanted)] if wanted in names else fallback
    chosen = st.selectbox(label, options, key=key)
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
                start, end = (date.fromisoformat(part) for part in raw.split("..", 1))
            except ValueError:
                pass
        st.session_state[key] = (start, end)
    value = st.date_input(label, key=key)
    start, end = (tuple(value) + (None, None))[:2] if isinstance(value, (tuple, list)) else (value, value)
    start, end = start or lo, end or start or hi
    _remember(key, None if (start, end) == (lo, hi) else f"{start.isoformat()}..{end.isoformat()}")
    return start, end


def filter_bar(options: pd.DataFrame, games: bool = True, report: Report | None = None,
               db: str | Path | None = None) -> Selection:
    """Run, game, preset and date filters over `queries.filter_options` rows, kept in the URL; `report`'s
    header then states `db`, the filters and the runs they keep."""
    filters = _filter_widgets(options, games)
    if report is not None:
        report.scope(db or "", selection_of(filters), runs_of(filters, options))
    return filters


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
    return Selection(tuple(runs), tuple(picked_games), tuple(presets), None if start == lo else start,
                   None if end == hi else end)


# ---------------------------------------------------------------- slow scorers, once per database version
def _db_version(db: str | Path) -> tuple:
    """Changes whenever a writer commits (the file or its write-ahead log changes)."""
    stamps = []
    for path in (Path(db), Path(f"{db}.wal")):
        stat = path.stat() if path.exists() else None
        stamps.append((stat.st_mtime_ns, stat.st_size) if stat else None)
    return tuple(stamps)


@st.cache_data(show_spinner=False, max_entries=64)
def _cached_call(module: str, name: str, db: str, version: tuple, kwargs: tuple) -> pd.DataFrame:
    return getattr(importlib.import_module(module), name)(Path(db), **dict(kwargs))


def cached(fn, db: str | Path, **kwargs) -> pd.DataFrame:
    """`fn(db, **kwargs)` for scorers that read whole games in pandas (MAgIC's profile, WiS' tables,
    ratings): computed once per version of the database and reused across reruns and sessions. `fn` may be
    a function or a suite's `Scorer`."""
    if isinstance(fn, Scorer):
        fn = fn.resolve()
    return _cached_call(fn.__module__, fn.__name__, str(db), _db_version(db), tuple(sorted(kwargs.items())))


SLOW_SCORER_LIMIT = 1_500  # matches TrueSkill replays from scratch in ~300 ms (bench/dashboard.py measures the rate)


def slow_scorer_wanted(what: str, options: pd.DataFrame, games: tuple[str, ...] | None, key: str) -> bool:
    """A scorer that must replay a selection from scratch (TrueSkill over a filtered selection, whose replay is not
    saved) takes seconds at 50,000 matches: it runs by itself up to SLOW_SCORER_LIMIT matches of its `games`
    (None: every game; counted from `queries.filter_options` rows), above it on request."""
    rows = options if games is None else options[options["game"].isin(games)]
    matches = int(rows["matches"].sum())
    return matches <= SLOW_SCORER_LIMIT or st.checkbox(f"Compute {what} over {count(matches, 'match')} (slow)", key=key)


# ---------------------------------------------------------------- downloads
def to_parquet(df: pd.DataFrame) -> bytes:
    buffer = io.BytesIO()
    df.to_parquet(buffer, index=False)
    return buffer.getvalue()


def download_table(df: pd.DataFrame, name: str) -> None:
    """CSV and Parquet download buttons for one table."""
    left, right = st.columns(2)
    left.download_button("CSV", df.to_csv(index=False).encode(), f"{name}.csv", "text/csv", key=f"csv_{name}")
    right.download_button("Parquet", to_parquet(df), f"{name}.parquet", "application/octet-stream",
                          key=f"parquet_{name}")


def selection_of(filters: Selection) -> dict[str, str]:
    """The filters in words, for a report's header (only those that narrow the view)."""
    dates = (f"{filters.date_from or 'the first'} to {filters.date_to or 'the last'}"
             if filters.date_from or filters.date_to else "")
    named = {"runs": ", ".join(filters.run_ids), "games": ", ".join(filters.games),
             "presets": ", ".join(filters.presets), "finished": dates}
    return {k: v for k, v in named.items() if v}


def runs_of(filters: Selection, options: pd.DataFrame) -> list[str]:
    """The runs whose finished matches the filters keep, as `name (run_id): N matches`, from
    `queries.filter_options` rows (one per run, game and preset)."""
    if options.empty:
        return []
    rows = options
    for column, values in (("run_id", filters.run_ids), ("game", filters.games), ("preset", filters.presets)):
        if values:
            rows = rows[rows[column].isin(values)]
    if filters.date_from:
        rows = rows[pd.to_datetime(rows["last_day"]).dt.date >= filters.date_from]
    if filters.date_to:
        rows = rows[pd.to_datetime(rows["first_day"]).dt.date <= filters.date_to]
    kept = rows.groupby(["run_id", rows["run_name"].fillna("")], sort=True)["matches"].sum()
    return [f"{name or run_id} ({run_id}): {count(int(n), 'match')}" for (run_id, name), n in kept.items()]


@dataclass
class Report:
    """The page as it was shown, collected section by section and offered as one HTML file whose header
    says what it was made from: the database, the selection, the runs in it, and when."""

    title: str
    parts: list[str] = field(default_factory=list)
    db: str = ""
    selection: dict[str, str] = field(default_factory=dict)
    runs: list[str] = field(default_factory=list)
    _plotly_inlined: bool = False

    def scope(self, db: str | Path, selection: dict[str, str] | None = None, runs: list[str] | None = None) -> None:
        """What the page shows: its database, the selection in words (empty: everything) and the runs it covers."""
        self.db, self.selection, self.runs = str(db), dict(selection or {}), list(runs or [])

    def header(self) -> str:
        made = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
        selection = "; ".join(f"{k}: {v}" for k, v in self.selection.items()) or "everything in the database"
        runs = "".join(f"<li>{html.escape(r)}</li>" for r in self.runs)
        return ("<table class='scope'>"
                f"<tr><th>Database</th><td>{html.escape(self.db or 'not stated')}</td></tr>"
                f"<tr><th>Selection</th><td>{html.escape(selection)}</td></tr>"
                f"<tr><th>Runs</th><td>{len(self.runs)}<ul>{runs}</ul></td></tr>"
                f"<tr><th>Made</th><td>{made}</td></tr></table>")

    def text(self, markdown: str) -> None:
        self.parts.append(f"<p>{html.escape(markdown)}</p>")

    def table(self, title: str, df: pd.DataFrame) -> None:
        self.parts.append(f"<h2>{html.escape(title)}</h2>" + df.to_html(index=False, na_rep="", float_format="%.3f"))

    def figure(self, title: str, fig) -> None:
        self.parts.append(f"<h2>{html.escape(title)}</h2>" + fig.to_html(
            full_html=False, include_plotlyjs=not self._plotly_inlined))
        self._plotly_inlined = True

    def html(self) -> str:
        body = "\n".join(self.parts)
        return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(self.title)}</title>"
                "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
                "td,th{border:1px solid #ccc;padding:2px 6px}</style></head>"
                f"<body><h1>{html.escape(self.title)}</h1>{self.header()}{body}</body></html>")

    def download(self, name: str) -> None:
        st.download_button("Download this page as an HTML report", self.html().encode(), f"{name}.html",
                           "text/html", key=f"report_{name}")


def readable(df: pd.DataFrame, decimals: dict[str, int] | None = None, default: int = 2) -> pd.DataFrame:
    """The table as text for the page in the one number format (pages/shared/numbers.py): numbers with `default`
    decimals (or the column's own), counts (a float column of whole numbers beyond 1) whole, rates as
    percentages, yes/no, and a blank for every missing value."""
    decimals = decimals or {}
    shown = pd.DataFrame(index=df.index)
    for column in df.columns:
        values = df[column]
        known = values.dropna() if pd.api.types.is_float_dtype(values) else pd.Series([0.5])
        whole = bool(known.map(float.is_integer).all() and (known.abs() > 1).any())  # counts, not 0/1 rates
        places = decimals.get(column, 0 if whole else default)
        shown[column] = [numbers.cell(v, places, str(column)) for v in values.astype(object)]
    return shown


def show_table(report: Report, title: str, df: pd.DataFrame, name: str, shown: pd.DataFrame | None = None,
               column_config: dict | None = None) -> None:
    """A table on the page (as `readable` text unless `shown` is given), in the report, and as CSV/Parquet
    downloads of the numbers themselves."""
    display = readable(df) if shown is None else shown
    st.dataframe(display, hide_index=True, width="stretch", column_config=column_config)
    download_table(df, name)
    report.table(title, display)


MEAN_ROLE_WIN_RATE = "mean role win rate"  # MAgIC's Table 1 "win rate": not the win rate of engine/headline.py
# MAgIC's profile beyond the abilities, shown apart so that the table fits a 1400 px window
MAGIC_ASIDE = {"The seven role win rates": ROLE_WIN_RATES, "MAgIC's Table 2": TABLE_2}


def show_wide_table(report: Report, title: str, df: pd.DataFrame, name: str, aside: dict[str, list[str]],
                    shown: pd.DataFrame | None = None) -> None:
    """A table too wide for a 1400 px window (MAgIC's profile: 20 columns and more): its first column pinned and
    each group of `aside` columns (title -> columns) in an expander beside the first, so the page shows what
    matters; the downloads hold every column."""
    display = readable(df) if shown is None else shown
    first = display.columns[0]
    pinned = {first: st.column_config.TextColumn(first, pinned=True)}
    apart = {c for columns in aside.values() for c in columns}
    show_table(report, title, df, name, shown=display[[c for c in display.columns if c not in apart]],
               column_config=pinned)
    for label, columns in aside.items():
        present = [c for c in columns if c in display.columns]
        if present:
            with st.expander(label):
                st.dataframe(display[[first, *present]], hide_index=True, width="stretch", column_config=pinned)


def win_rates_view(rows: pd.DataFrame) -> pd.DataFrame:
    """`engine.headline.agent_figures` rows as every page shows them (one definition, one look): agent, contested
    matches, seats, wins, draws, the win rate with its interval, valid moves, fallback wins, cost per match."""
    return pd.DataFrame({
        "agent": rows["agent"], "matches": rows["matches"].map(numbers.number),
        "seats": rows["seats"].map(numbers.number), "wins": rows["wins"].map(numbers.number),
        "draws": rows["draws"].map(numbers.number),
        "win rate (95% CI)": [numbers.interval(*v, as_percent=True, decimals=1)
                              for v in zip(rows["win_rate"], rows["win_lo"], rows["win_hi"], strict=True)],
        "valid moves": rows["valid_rate"].map(numbers.percent),
        "fallback wins": rows["fallback_wins"].map(numbers.number),
        "cost / match": rows["cost_per_match"].map(numbers.usd)})
