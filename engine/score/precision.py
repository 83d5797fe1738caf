"""The one precision every number leaves the arena at: 6 significant digits, in `python -m engine scores` (table,
CSV, JSON), the dashboard's CSV and Parquet downloads and its HTML reports.

DuckDB sums floats in parallel, in whatever order its threads finish, so the same matches can sum to
1540.0000000000055 one time and 1540.000000000006 the next (after a `rescore`, say): rounded to 6 significant
digits both are 1540, and the same data prints the same digits. A scorer also sorts by the rounded number, so that
two agents tied in truth never swap places on noise in the last bits.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

SIGNIFICANT = 6


def fixed_number(value: float) -> float:
    """`value` rounded to SIGNIFICANT significant digits (the nearest float to that decimal); NaN and inf as they
    are."""
    return float(f"{value:.{SIGNIFICANT}g}") if np.isfinite(value) else value


def fixed_values(values: pd.Series) -> pd.Series:
    """A float column rounded by `fixed_number` (missing values stay missing); any other column as it is."""
    if not pd.api.types.is_float_dtype(values):
        return values
    floats = values.to_numpy(dtype=float, na_value=np.nan)  # one pass over plain floats, not a check per cell
    rounded = [float(f"{v:.{SIGNIFICANT}g}") if math.isfinite(v) else v for v in floats]
    return pd.Series(rounded, index=values.index, dtype=values.dtype, name=values.name)


def fixed(table: pd.DataFrame) -> pd.DataFrame:
    """A copy of `table` with every float column rounded by `fixed_number`."""
    table = table.copy()
    for column in table.columns:
        table[column] = fixed_values(table[column])
    return table


def fixed_nested(value: Any) -> Any:
    """Every float inside lists, tuples, mappings and float arrays (a plotly figure's `to_dict()`) rounded by
    `fixed_number`; anything else as it is."""
    if isinstance(value, float | np.floating):
        return fixed_number(float(value))
    if isinstance(value, np.ndarray):
        return [fixed_nested(v) for v in value.tolist()] if value.dtype.kind == "f" else value
    if isinstance(value, list | tuple):
        return [fixed_nested(v) for v in value]
    if isinstance(value, dict):
        return {k: fixed_nested(v) for k, v in value.items()}
    return value
