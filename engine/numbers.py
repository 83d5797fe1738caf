"""The arena's one number format, of the dashboard's pages and the static site (`python -m engine export`): at
most 2 decimals (counts and ratings whole), thousands separators on every number but identifiers (a seed, a
round), rates as percentages, p-values below 0.01 as "< 0.01", intervals as "value [lo to hi]" (a comma would
read as a thousands separator, a dash as a minus), dollars as the engine writes them ("unknown" without a price),
and a blank for any other missing value (Streamlit would print "None"). `readable` turns a whole table into that
text."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from engine import wording
from engine.metrics.magic_social import NO_STRATEGY
from engine.precision import fixed_values

IDENTIFIERS = {"seed", "repeat", "turn", "round", "seat", "step", "player", "rank", "roles"}  # numbers as names


def is_rate(column: str) -> bool:
    """A share between 0 and 1, shown as a percentage: win_rate, its interval win_lo / win_hi, valid_rate, ..."""
    return column.endswith(("_rate", "_share", "_wr")) or column in ("win_lo", "win_hi")


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


def percent(value: Any, decimals: int = 1) -> str:
    """A share between 0 and 1 as a percentage ("62.5%"); blank when missing."""
    return "" if missing(value) else f"{100 * float(value):.{decimals}f}%"


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
        if column == "p" or column.startswith("p_"):
            return p_value(value)
        return number(value, decimals, separators=column not in IDENTIFIERS)
    return str(value)


def readable(df: pd.DataFrame, decimals: dict[str, int] | None = None, default: int = 2) -> pd.DataFrame:
    """The table as text in the one number format: numbers with `default` decimals (or the column's own), counts
    (a float column of whole numbers beyond 1) whole, rates as percentages, yes/no, and a blank for every missing
    value."""
    decimals = decimals or {}
    shown = pd.DataFrame(index=df.index)
    for column in df.columns:
        values = fixed_values(df[column])  # the one precision first: float noise never reaches a rounded digit
        known = values.dropna() if pd.api.types.is_float_dtype(values) else pd.Series([0.5])
        whole = bool(known.map(float.is_integer).all() and (known.abs() > 1).any())  # counts, not 0/1 rates
        places = decimals.get(column, 0 if whole else default)
        shown[column] = [cell(v, places, str(column)) for v in values.astype(object)]
    if "strategy" in shown:  # a bot has no strategy: blank, not the scorers' grouping key "-"
        shown["strategy"] = shown["strategy"].replace(NO_STRATEGY, "")
    return shown
