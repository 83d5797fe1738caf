"""How a table looks on every page: each header's tooltip, the definition engine/present/column_help.py gives; columns
as wide as their content so a table fits a 1400 px window, the table with its downloads and its place in the page's
report, and a table too wide for the window with column groups apart (the win rates' one look is
engine/present/suite_tables.py's, the static site's too).

    fitted_columns(display, config, helps, fill) -> (display, config)
    show_table(report, title, df, name, shown=None, helps=None);  show_wide_table(report, title, df, name, aside)
    tooltips(config) -> dict;  compact_lineup(lineup) -> str;  glossed(text, term) -> str
    headline_note(suite, counted, self_play), own_table_caption(suite), pool_caption(pool, game) -> str: captions
    column_definitions(helps): a table's column definitions, folded under it
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from typing import Any

import pandas as pd
import streamlit as st

from engine.present.captions import glossed
from engine.present.column_help import (
    defined,
)
from engine.present.numbers import on_one_scale
from pages.shared.markdown import plain
from pages.shared.numbers import readable
from pages.shared.report import Report, download_table

# a lineup's seats ("a, b, b"), split where a comma is not inside an agent's "(t=1.0, prompt v2)"
SEAT_SEPARATOR = re.compile(r", (?![^(]*\))")


def compact_lineup(lineup: str | None) -> str:
    """A lineup with the same agent in seats in a row named once with how many ("bot:equilibrium, bot:random ×9"),
    seat order kept, a winner's mark after its agent ("bot:random (won) ×2"): a ten-seat lineup fits the match
    lists' column (Overview, Transcripts)."""
    seats = SEAT_SEPARATOR.split(lineup) if isinstance(lineup, str) and lineup else []  # none: blank
    return ", ".join(seat if n == 1 else f"{seat} ×{n}"
                     for seat, n in ((s, len(list(g))) for s, g in itertools.groupby(seats)))


def column_definitions(helps: Mapping[str, str]) -> None:
    """The definitions of a table's columns, folded under it (its headers' tooltips hold them too, and the report
    lists them under its copy of the table): a caption of a line per column buried what mattered."""
    if helps:
        with st.expander("Column definitions"):
            st.markdown("\n".join(f"- **{plain(column)}**: {text}" for column, text in helps.items()))


CUT_HINT = "A cell cut short (…) reads whole on a double click."
TABLE_PX = 936  # a table's room in a 1400 px window (938 measured in Chromium)
CHAR_PX, PAD_PX, MAX_COLUMN_PX = 6.5, 26, 320  # px per character of the table font (5.8 measured), padding


def column_width(column: pd.Series, label: str) -> int:
    """Pixels that show a column's longest cell and its label whole (no "mean role wi..."), at most MAX_COLUMN_PX:
    numbers keep narrow columns, and only long text (a lineup, an error) is cut, visibly, with its full text on
    hover."""
    longest = max([len(label), *(len(str(v)) for v in column.head(500))])
    return min(round(CHAR_PX * longest) + PAD_PX, MAX_COLUMN_PX)


def fitted_columns(display: pd.DataFrame, column_config: dict | None, helps: Mapping[str, str] | None = None,
                   fill: tuple[str, ...] = (), least: int = 100) -> tuple[pd.DataFrame, dict]:
    """The table with its link columns first (an "open" link past the right edge is never seen) and the first
    column pinned, each column as wide as its content (`column_width`) unless its config sets a width, and the
    definitions `helps` (column -> text) as its header's tooltip. The long texts named in `fill` (a lineup, an
    error) share evenly what the others leave of TABLE_PX, each at least `least` px: the table fits its window,
    and a cut cell reads whole on a double click."""
    config = {k: dict(v) if isinstance(v, dict) else {"label": v} for k, v in (column_config or {}).items()}
    links = [c for c in display.columns if config.get(c, {}).get("type_config", {}).get("type") == "link"]
    display = display[links + [c for c in display.columns if c not in links]]
    for position, column in enumerate(display.columns):
        own = config.setdefault(column, {})
        own["width"] = own.get("width") or column_width(display[column], str(own.get("label") or column))
        own["help"] = own.get("help") or defined(column, helps)
        own["pinned"] = own.get("pinned") or position == 0
    filled = [c for c in fill if c in display.columns]
    if filled:
        left = TABLE_PX - sum(config[c]["width"] for c in display.columns if c not in filled)
        for column in filled:
            config[column]["width"] = max(left // len(filled), least)
    return display, with_cut_hints(display, narrowed_to_fit(display, config))


def with_cut_hints(display: pd.DataFrame, config: dict) -> dict:
    """`config` with CUT_HINT in the header tooltip of each column narrower than its longest cell: a cell cut at
    1400 px ("custom: players=3…") says how to read it whole."""
    for column in display.columns:
        width = config[column]["width"]
        if isinstance(width, int) and width < column_width(display[column], str(config[column].get("label") or column)):
            config[column]["help"] = " ".join(t for t in (config[column].get("help"), CUT_HINT) if t)
    return config


def narrowed_to_fit(display: pd.DataFrame, config: dict) -> dict:
    """`config` with its widest columns narrowed to one common width until the table fits TABLE_PX, none narrower
    than its label (a long agent name or run name is cut, whole on hover, so that the last column, LLMArena's
    `$/match`, is not past the window's edge); a table that cannot fit so keeps its widths (`scrolls` says so)."""
    widths = {c: config[c]["width"] for c in display.columns if isinstance(config[c]["width"], int)}
    labels = {c: column_width(pd.Series([], dtype=object), str(config[c].get("label") or c)) for c in widths}
    if sum(widths.values()) <= TABLE_PX or sum(labels.values()) > TABLE_PX:
        return config
    cap = max(widths.values())
    while sum(max(min(w, cap), labels[c]) for c, w in widths.items()) > TABLE_PX:
        cap -= 1
    for column, width in widths.items():
        config[column]["width"] = max(min(width, cap), labels[column])
    return config


def scrolls(config: dict) -> bool:
    """Whether a fitted table is still wider than its room in a 1400 px window (more columns than their labels
    fit): the page says so under it."""
    return sum(own["width"] for own in config.values() if isinstance(own.get("width"), int)) > TABLE_PX


def tooltips(config: Mapping[str, dict]) -> dict[str, str]:
    """The header tooltips of a `fitted_columns` config (column -> definition): what a report lists under the
    table."""
    return {column: own.get("help") for column, own in config.items() if own.get("help")}


def match_link_column(match_ids: pd.Series, help: str) -> Any:  # noqa: A002 - Streamlit's own name
    """The column of `links.match_link`s of a match list, read as the match ids themselves (the link is the id:
    one column, not two)."""
    return st.column_config.LinkColumn("match", display_text=r"match=(.+)", width=column_width(match_ids, "match"),
                                       help=help)


def show_table(report: Report, title: str, df: pd.DataFrame, name: str, shown: pd.DataFrame | None = None,
               column_config: dict | None = None, helps: Mapping[str, str] | None = None,
               fill: tuple[str, ...] = (), units: Mapping[str, str] | None = None) -> None:
    """A table on the page (as `readable` text unless `shown` is given) that fits its columns (`fitted_columns`,
    the long texts `fill` sharing what the others leave), in the report, and as CSV/Parquet downloads of the
    numbers themselves: page and downloads on one scale, shares in percent and the units (`units`: column -> unit)
    in the headers (`numbers.on_one_scale`)."""
    df = on_one_scale(df, units)
    display, config = fitted_columns(readable(df) if shown is None else shown, column_config, helps, fill=fill)
    st.dataframe(display, hide_index=True, width="stretch", column_config=config)
    if scrolls(config):
        report.caption(glossed(f"{len(display.columns)} columns, more than a 1400 px window shows with their names "
                               "whole: scroll the table sideways (the downloads hold every column).", "columns"))
    download_table(df, name)
    report.table(title, display, helps=tooltips(config))


def show_wide_table(report: Report, title: str, df: pd.DataFrame, name: str, aside: Mapping[str, list[str]],
                    shown: pd.DataFrame | None = None, helps: Mapping[str, str] | None = None,
                    units: Mapping[str, str] | None = None) -> None:
    """A table too wide for a 1400 px window (MAgIC's profile: 20 columns and more): its first column pinned and
    each group of `aside` columns (title -> columns, as shown) in an expander beside the first, so the page shows
    what matters; the downloads hold every column."""
    display = readable(on_one_scale(df, units)) if shown is None else shown
    first = display.columns[0]
    apart = {c for columns in aside.values() for c in columns}
    # the fill: "custom: players=3, rounds=1" cut where it must, whole on a double click
    show_table(report, title, df, name, shown=display[[c for c in display.columns if c not in apart]], helps=helps,
               fill=("setting",), units=units)
    for label, columns in aside.items():
        present = [c for c in columns if c in display.columns]
        if present:
            with st.expander(label):
                part, config = fitted_columns(display[[first, *present]], None, helps)
                st.dataframe(part, hide_index=True, width="stretch", column_config=config)
            report.table(f"{title}: {label}", part, helps=tooltips(config))
