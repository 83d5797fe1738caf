"""The arena's one number format, of the dashboard's pages and the static site (`python -m engine export`): at
most 2 decimals (counts and ratings whole), thousands separators on every number but identifiers (a seed, a
round), rates as percentages, p-values below 0.01 as "< 0.01", intervals as "value [lo to hi]" (a comma would
read as a thousands separator, a dash as a minus), dollars as the engine writes them ("unknown" without a price),
and a blank for any other missing value (Streamlit would print "None"). `readable` turns a whole table into that
text.

And the one scale of every figure in every output (page, CSV, Parquet, JSON, the CLI, reports): `on_one_scale`
puts each share and rate in percent (0-100) and writes the unit in its column's name ("win_rate (%)"); a table
declares the units of its other figures (`TableLayout.units`)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from engine import wording
from engine.papers.seat_summary import NO_STRATEGY
from engine.score.precision import fixed_values

IDENTIFIERS = {"seed", "repeat", "turn", "round", "seat", "step", "player", "rank", "roles"}  # numbers as names
COUNTS = {"matches", "games", "roles", "seats", "wins", "draws", "moves", "decisions", "scores"}  # whole numbers
# a figure that is a mean or a share keeps its decimals even where every value is whole (Hanabi's mean score "6.00")
AVERAGED = re.compile(r"mean|average|avg|rate|share|score|reward", re.IGNORECASE)


PERCENT = "%"  # the one scale of every share and rate, in every output: 0-100
# shares whose names carry no rate's suffix: a Hold'em action's share of decisions, a round's share of matches
SHARES = ("share", "crowded", "hit", "passed", "win_lo", "win_hi")


def is_rate(column: str) -> bool:
    """A share between 0 and 1 as the scorers compute it (a fraction): win_rate, its interval win_lo / win_hi,
    valid_rate, a vote accuracy, a win probability, ...; not one named with its unit ("share_go (%)")."""
    if column != bare_name(column):
        return False
    return column.endswith(("_rate", "_share", "_wr", "_accuracy", "_prob")) or column.startswith("share_") or (
        column in SHARES)


def unit_of(column: str, units: Mapping[str, str] | None = None) -> str:
    """The unit a column's name states in every output: PERCENT for a share or rate, else the one its table
    declares (`units`: column -> unit; PERCENT there marks a share the scorer gives as a fraction, any other unit
    names the scale the column's numbers are already on), else none."""
    return PERCENT if is_rate(column) else (units or {}).get(column, "")


def with_unit(name: str, unit: str) -> str:
    """A column's name with its unit: "win_rate (%)"; the name alone without one."""
    return f"{name} ({unit})" if unit else name


def unit_names(columns, units: Mapping[str, str] | None = None) -> dict[str, str]:
    """The new name of each column that has a unit, the unit written in it (`unit_of`)."""
    return {column: with_unit(str(column), unit) for column in columns if (unit := unit_of(str(column), units))}


def bare_name(column: str) -> str:
    """A column's name without the unit `with_unit` wrote in it: "win_rate (%)" -> "win_rate" (its definition's
    key)."""
    return re.sub(r" \([^()]*\)$", "", str(column))


def on_one_scale(table: pd.DataFrame, units: Mapping[str, str] | None = None) -> pd.DataFrame:
    """The table as every output holds it (the page, its CSV and Parquet downloads, the report, `python -m engine
    scores` as a table, CSV or JSON): each share and rate as a percentage 0-100, each declared unit, and "%", written
    in its column's name ("win_rate (%)"), so that one figure reads on one scale wherever it appears. A table
    already on it passes unchanged."""
    scaled = table.copy()
    for column in table.columns:
        if unit_of(str(column), units) == PERCENT and pd.api.types.is_numeric_dtype(table[column]) and not (
                pd.api.types.is_bool_dtype(table[column])):
            scaled[column] = table[column] * 100
    return scaled.rename(columns=unit_names(table.columns, units))


def in_percent(column: str) -> bool:
    """A column whose name says its numbers are percentages already (0-100): "win_rate (%)", "area (%)"."""
    return str(column).endswith(f"({PERCENT})")


def missing(value: Any) -> bool:
    return value is None or value is pd.NA or value is pd.NaT or (
        isinstance(value, (float, np.floating)) and not np.isfinite(value))


def number(value: Any, decimals: int = 2, separators: bool = True) -> str:
    """`value` with `decimals` places and thousands separators; blank when missing."""
    if missing(value):
        return ""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}" if separators else str(int(value))
    return f"{float(value):,.{decimals}f}" if separators else f"{float(value):.{decimals}f}"


def percent(value: Any, decimals: int = 1, scale: float = 100) -> str:
    """A share between 0 and 1 as a percentage ("62.5%"), or a number already in percent (`scale` 1); blank when
    missing."""
    return "" if missing(value) else f"{scale * float(value):.{decimals}f}%"


def interval(value: Any, lo: Any, hi: Any, as_percent: bool = False, decimals: int = 2) -> str:
    """"value [lo to hi]"; the value alone when the bounds are missing; blank when the value is."""
    show = (lambda v: percent(v, decimals)) if as_percent else (lambda v: number(v, decimals))
    if missing(value):
        return ""
    return show(value) if missing(lo) or missing(hi) else f"{show(value)} [{show(lo)} to {show(hi)}]"


def p_value(value: Any) -> str:
    """A p-value: 2 decimals, and "< 0.01" below (0.004 is not 0.00); blank when missing."""
    return "" if missing(value) else "< 0.01" if value < 0.01 else f"{value:.2f}"


def usd(value: Any) -> str:
    """Dollars as the engine writes them (`engine.wording.usd`); "unknown" for a missing price (pd.NA too)."""
    return wording.usd(None if missing(value) else float(value))


def cell(value: Any, decimals: int, column: str = "") -> str:
    """One table cell as text: by the column's kind (a rate, an identifier) and the value's type."""
    if missing(value):
        return ""
    if isinstance(value, pd.Timestamp):
        return f"{value:%Y-%m-%d %H:%M:%S}"
    if isinstance(value, (bool, np.bool_, int, np.integer, float, np.floating)):
        if is_rate(column) and not isinstance(value, (bool, np.bool_)):
            return percent(value)
        if in_percent(column) and not isinstance(value, (bool, np.bool_)):
            return percent(value, scale=1)
        if column == "p" or column.startswith("p_"):
            return p_value(value)
        return number(value, decimals, separators=column not in IDENTIFIERS)
    return str(value)


def column_cells(values: pd.Series, decimals: int, column: str) -> list[str]:
    """`cell` of every value of a column, a float column's format chosen once: choosing it cell by cell is slow
    for a large table's tens of thousands of cells."""
    if not pd.api.types.is_float_dtype(values) or column == "p" or column.startswith("p_"):
        return [cell(v, decimals, column) for v in values.astype(object)]
    if is_rate(column):
        def shown(v: float) -> str: return f"{100 * v:.1f}%"
    elif in_percent(column):
        def shown(v: float) -> str: return f"{v:.1f}%"
    elif column in IDENTIFIERS:
        def shown(v: float) -> str: return f"{v:.{decimals}f}"
    else:
        def shown(v: float) -> str: return f"{v:,.{decimals}f}"
    return ["" if not math.isfinite(v) else shown(v) for v in values.to_numpy(dtype=float, na_value=np.nan)]


def readable(df: pd.DataFrame, decimals: dict[str, int] | None = None, default: int = 2) -> pd.DataFrame:
    """The table as text in the one number format: numbers with `default` decimals (or the column's own), counts
    (a float column of whole numbers beyond 1) whole, rates as percentages, yes/no, and a blank for every missing
    value."""
    decimals = decimals or {}
    shown = pd.DataFrame(index=df.index)
    for column in df.columns:
        values = fixed_values(df[column])  # the one precision first: float noise never reaches a rounded digit
        known = values.dropna() if pd.api.types.is_float_dtype(values) else pd.Series([0.5])
        whole = bool(known.map(float.is_integer).all() and (known.abs() > 1).any()  # counts, not 0/1 rates
                     and (bare_name(str(column)) in COUNTS or not AVERAGED.search(str(column))))
        places = decimals.get(column, 0 if whole else default)
        shown[column] = column_cells(values, places, str(column))
    if "strategy" in shown:  # a bot has no strategy: blank, not the scorers' grouping key "-"
        shown["strategy"] = shown["strategy"].replace(NO_STRATEGY, "")
    return shown


def board_text(board: pd.DataFrame) -> pd.DataFrame:
    """A paper's table as text (the pages' and `scores`' table format): every figure but a count with 2 decimals,
    one format a column ("100.00" beside "91.22", never "100")."""
    figures = [c for c in board.columns if pd.api.types.is_float_dtype(board[c]) and bare_name(c) not in COUNTS]
    return readable(board, dict.fromkeys(figures, 2))
