"""What a page offers to take away: its tables as CSV and Parquet downloads (at the arena's one precision), and the
whole page as one self-contained HTML report whose header says what it was made from and which keeps the page's
meaning: its captions and definitions, its tables as shown ("14.3% (21)", not 0.143) with their columns' definitions,
its charts in the arena's palette, and plotly.js inlined once, so that it opens offline.

    to_parquet(df) -> bytes;  download_table(df, name)
    selection_of(selection) -> dict;  runs_of(selection, options) -> list[str]
    Report(title): .scope(db, selection, runs) .caption(markdown) .markdown(markdown) .text(markdown)
                   .table(title, df, helps) .figure(title, fig) .html() -> str .download(name)
"""

from __future__ import annotations

import html
import io
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from engine.present.column_help import glossary_entries, linked
from engine.present.export.html import markdown_html
from engine.present.palette import painted
from engine.score.precision import fixed, fixed_nested
from engine.store.selection import Selection
from engine.wording import count
from pages.shared.numbers import readable


def to_parquet(df: pd.DataFrame) -> bytes:
    buffer = io.BytesIO()
    df.to_parquet(buffer, index=False)
    return buffer.getvalue()


KEEP_PAGE = "ignore"
"""A download button's click does not rerun the page. A rerun would compute the whole page again while the file is
made, and once it ended Streamlit dropped the click's file maker: on a busy server the download never came."""


def download_table(df: pd.DataFrame, name: str) -> None:
    """CSV and Parquet download buttons for one table, its numbers at the arena's one precision
    (engine/score/precision.py: the same data downloads the same digits)."""
    df = fixed(df)
    left, right = st.columns(2)  # the files are made when clicked: a page shows a dozen tables, its user takes one
    left.download_button("CSV", lambda: df.to_csv(index=False).encode(), f"{name}.csv", "text/csv", key=f"csv_{name}",
                         on_click=KEEP_PAGE)
    right.download_button("Parquet", lambda: to_parquet(df), f"{name}.parquet", "application/octet-stream",
                          key=f"parquet_{name}", on_click=KEEP_PAGE)


def selection_of(selection: Selection) -> dict[str, str]:
    """The filters in words, for a report's header (only those that narrow the view)."""
    dates = (f"{selection.date_from or 'the first'} to {selection.date_to or 'the last'}"
             if selection.date_from or selection.date_to else "")
    named = {"runs": ", ".join(selection.run_ids), "games": ", ".join(selection.games),
             "presets": ", ".join(selection.presets), "finished": dates,
             "fallback moves": "matches with any left out" if selection.without_fallbacks else ""}
    return {k: v for k, v in named.items() if v}


def runs_of(selection: Selection, options: pd.DataFrame) -> list[str]:
    """The runs whose finished matches the filters keep, as `name (run_id): N matches` (without those with
    fallback moves when the selection leaves them out: then `options` holds `filter_options(db, fallbacks=True)`),
    from `queries.filter_options` rows (one per run, game and preset)."""
    if options.empty:
        return []
    rows = options
    for column, values in (("run_id", selection.run_ids), ("game", selection.games), ("preset", selection.presets)):
        if values:
            rows = rows[rows[column].isin(values)]
    if selection.date_from:
        rows = rows[pd.to_datetime(rows["last_day"]).dt.date >= selection.date_from]
    if selection.date_to:
        rows = rows[pd.to_datetime(rows["first_day"]).dt.date <= selection.date_to]
    counted = rows["matches"] - rows["fallback_matches"] if selection.without_fallbacks else rows["matches"]
    per_run = counted.groupby([rows["run_id"], rows["run_name"].fillna("")], sort=True).sum()
    return [f"{name or run_id} ({run_id}): {count(int(n), 'match')}" for (run_id, name), n in per_run.items()]


@dataclass
class Report:
    """The page as it was shown, collected section by section and offered as one HTML file whose header
    says what it was made from: the database, the selection, the runs in it, and when."""

    title: str
    parts: list[str | Callable[[], str] | _Chart] = field(default_factory=list)  # a table, a chart: made when
    # the report is downloaded (most page views download none)
    db: str = ""
    selection: dict[str, str] = field(default_factory=dict)
    runs: list[str] = field(default_factory=list)
    glossed: list[str] = field(default_factory=list)  # the glossary entries its captions link: defined at its end

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
                f"<tr><th>Runs</th><td>{count(len(self.runs), 'run')}<ul>{runs}</ul></td></tr>"
                f"<tr><th>Made</th><td>{made}</td></tr></table>")

    def text(self, markdown: str) -> None:
        """A paragraph of the report only (the page shows it its own way: an expander, a table's tooltips)."""
        self.parts.append(f"<p>{markdown_html(markdown)}</p>")

    def caption(self, markdown: str) -> None:
        """A caption on the page and in the report: what makes a number mean what it says (provisional, partial,
        self-play left out) travels with it."""
        st.caption(markdown)
        self.parts.append(f"<p class='caption'>{markdown_html(markdown)}</p>")
        self.glossed += [entry for entry in linked(markdown) if entry not in self.glossed]

    def markdown(self, markdown: str) -> None:
        """A paragraph on the page and in the report."""
        st.markdown(markdown)
        self.text(markdown)

    def table(self, title: str, df: pd.DataFrame, helps: dict[str, str] | None = None) -> None:
        """The table as the page shows it (`readable` blanks, yes/no and 2 decimals; text already shown, as "14.3%
        (21)", passes as is), each column's definition `helps` in its header's tooltip and listed under it."""
        self.parts.append(lambda: _table_html(title, df, helps))

    def figure(self, title: str, fig) -> None:
        """The chart in the arena's palette (`engine/present/palette.py`, whatever theme drew it on the page) and its
        numbers at the one precision, as the tables'."""
        self.parts.append(_Chart(title, fig.to_dict()))  # as drawn now: the page may draw on the figure after

    def html(self) -> str:
        made, inlined = [], False
        for part in self.parts:  # plotly's script inlined once, before the first chart
            if isinstance(part, _Chart):
                made.append(part.html(inline_plotly=not inlined))
                inlined = True
            else:
                made.append(part if isinstance(part, str) else part())
        entries = glossary_entries()
        defined = "".join(f"<dt><b>{html.escape(entries[a][0])}</b></dt><dd>{markdown_html(entries[a][1])}</dd>"
                          for a in self.glossed if a in entries)
        body = "\n".join(made) + (f"<h2>Glossary</h2><dl class='definitions'>{defined}</dl>" if defined else "")
        return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(self.title)}</title>"
                "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
                "td,th{border:1px solid #ccc;padding:2px 6px}.caption,.definitions{color:#555;font-size:90%}"
                "</style></head>"
                f"<body><h1>{html.escape(self.title)}</h1>{self.header()}{body}</body></html>")

    def download(self, name: str) -> None:
        st.download_button("Download this page as an HTML report", lambda: self.html().encode(), f"{name}.html",
                           "text/html", key=f"report_{name}", on_click=KEEP_PAGE)


@dataclass(frozen=True)
class _Chart:
    """A chart of the report as the page drew it (plotly's dict), in the arena's palette when made."""

    title: str
    drawn: dict

    def html(self, inline_plotly: bool) -> str:
        fig = painted(go.Figure(fixed_nested(self.drawn)))
        return f"<h2>{html.escape(self.title)}</h2>" + fig.to_html(full_html=False, include_plotlyjs=inline_plotly)


def _table_html(title: str, df: pd.DataFrame, helps: dict[str, str] | None) -> str:
    shown = readable(df)
    helps = {str(c): text for c, text in (helps or {}).items() if text and c in shown.columns}
    table = shown.to_html(index=False, na_rep="")
    for column, text in helps.items():  # a header's tooltip, as on the page
        table = table.replace(f"<th>{html.escape(column, quote=False)}</th>",
                              f"<th title='{html.escape(text)}'>{html.escape(column, quote=False)}</th>", 1)
    defined = "".join(f"<li><code>{html.escape(c)}</code>: {html.escape(t)}</li>" for c, t in helps.items())
    return (f"<h2>{html.escape(title)}</h2>" + table
            + (f"<ul class='definitions'>{defined}</ul>" if defined else ""))
