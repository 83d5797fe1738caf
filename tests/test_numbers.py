"""The dashboard's one number format (pages/shared/numbers.py), which `readable` and every table view use."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pages.shared import numbers
from pages.shared.numbers import readable


def test_thousands_separators_on_every_number_but_identifiers():
    assert numbers.number(1389.1688) == "1,389.17" and numbers.number(1389) == "1,389"
    assert numbers.number(1389.1688, 0) == "1,389"
    assert numbers.cell(2026, 0, "seed") == "2026" and numbers.cell(12345, 0, "matches") == "12,345"


def test_rates_are_percentages_and_missing_values_blank():
    assert numbers.percent(2 / 3) == "66.7%" and numbers.cell(2 / 3, 2, "win_rate") == "66.7%"
    assert numbers.cell(0.25, 2, "win_lo") == "25.0%"
    for missing in (None, np.nan, pd.NA, float("inf")):
        assert numbers.number(missing) == "" and numbers.percent(missing) == ""


def test_an_interval_reads_value_lo_to_hi_even_when_negative():
    assert numbers.interval(-72.4, -117.0, -12.7, decimals=0) == "-72 [-117 to -13]"
    assert numbers.interval(1389.17, 1230.4, 1467.6, decimals=0) == "1,389 [1,230 to 1,468]"
    assert numbers.interval(0.5, 0.19, 0.81, as_percent=True) == "50.00% [19.00% to 81.00%]"
    assert numbers.interval(0.5, np.nan, np.nan) == "0.50" and numbers.interval(np.nan, 0, 1) == ""


def test_readable_applies_one_format_to_a_table():
    table = pd.DataFrame({"agent": ["a", "b"], "rating": [1389.1688, 1000.0], "win_rate": [2 / 3, None],
                          "matches": [1389, 5], "mean": [0.6666666666666666, 2.5]})
    shown = readable(table)
    assert list(shown["rating"]) == ["1,389.17", "1,000.00"]
    assert list(shown["win_rate"]) == ["66.7%", ""] and list(shown["matches"]) == ["1,389", "5"]
    assert list(shown["mean"]) == ["0.67", "2.50"]


def test_dollars_have_one_format_for_pages_cli_and_logs():
    """2 decimals; a non-zero amount below a cent keeps two significant digits (a call costs fractions of one);
    "unknown" without a price. The pages' `numbers.usd` is the engine's `wording.usd`."""
    from engine.wording import usd

    assert usd(0) == "$0.00" and usd(0.0) == "$0.00" and usd(1234.5) == "$1,234.50" and usd(0.01) == "$0.01"
    assert usd(0.0031) == "$0.0031" and usd(0.00001234) == "$0.000012" and usd(0.5) == "$0.50"
    assert usd(None) == "unknown" and usd(float("nan")) == "unknown"
    for value in (0, 0.0031, 12.345, None, np.nan, pd.NA, np.float64(0.25)):
        assert numbers.usd(value) == usd(None if numbers.missing(value) else float(value))


def test_a_mean_whose_values_are_whole_keeps_its_decimals_and_a_count_does_not():
    """A new user's report: Hanabi's `mean_score (0-10)` read "6" and "0" on the Games page (every value whole, so
    taken for a count), against the one format's 2 decimals for a figure."""
    import pandas as pd

    from engine.present.numbers import readable

    shown = readable(pd.DataFrame({"mean_score (0-10)": [6.0, 0.0], "win rate": [2.0, 3.0],
                                   "matches": [3.0, 40.0], "scores": [5.0, 2.0], "tokens": [100.0, 20.0]}))
    assert shown["mean_score (0-10)"].tolist() == ["6.00", "0.00"] and shown["win rate"].tolist() == ["2.00", "3.00"]
    assert shown["matches"].tolist() == ["3", "40"] and shown["scores"].tolist() == ["5", "2"]
    assert shown["tokens"].tolist() == ["100", "20"]


def test_a_float_columns_cells_read_as_each_cell_alone_would():
    """`readable` formats a float column in one pass (a 1,300-row paper's table took 0.55 s cell by cell): every
    kind of column (a rate, a percentage, a p-value, an identifier, a count, a figure) reads exactly as `cell`."""
    import numpy as np
    import pandas as pd

    from engine.present.numbers import cell, column_cells

    rng = np.random.default_rng(5)
    values = np.concatenate([rng.normal(0, 3000, 200), rng.integers(0, 9, 50).astype(float), [np.nan, np.inf,
                                                                                            -np.inf, 0.0, -0.0]])
    for column in ("win_rate", "area (%)", "p", "p_holm", "seed", "matches", "mean_score (0-10)", "tokens"):
        for dtype in ("float64", "Float64"):
            series = pd.Series(values, dtype=dtype) if dtype == "float64" else pd.Series(
                [None if np.isnan(v) else v for v in values], dtype=dtype)
            for decimals in (0, 2):
                assert column_cells(series, decimals, column) == [
                    cell(v, decimals, column) for v in series.astype(object)], (column, dtype, decimals)


def test_a_float_column_rounds_to_the_one_precision_as_each_value_alone_would():
    """`fixed_values` rounds a column in one pass: the same numbers as `fixed_number` value by value, missing values
    missing, infinities as they are, the column's dtype kept."""
    import numpy as np
    import pandas as pd

    from engine.score.precision import fixed_number, fixed_values

    rng = np.random.default_rng(7)
    values = [*rng.normal(0, 1e4, 100), *(rng.random(50) / 3), 1540.0000000000055, np.inf, -np.inf]
    for series in (pd.Series([*values, np.nan], name="x"), pd.Series([*values, None], dtype="Float64", name="x")):
        rounded = fixed_values(series)
        assert rounded.dtype == series.dtype and rounded.name == "x"
        assert rounded.iloc[:-1].tolist() == [fixed_number(float(v)) for v in values] and pd.isna(rounded.iloc[-1])
