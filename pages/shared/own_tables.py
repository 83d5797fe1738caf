"""A paper's own table on a page: its view (engine/present/suite_tables.py, which `python -m engine scores` and the
static
site show too), read from its suite's `TableLayout` (no page knows a suite by its name), with the column groups
that would not fit the window apart and its figures by role under it.

    show_own_table(report, title, board, name, layout)
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from engine.papers.base import TableLayout
from engine.present.suite_tables import own_table_parts
from pages.shared.report import Report
from pages.shared.tables import fitted_columns, show_wide_table


def show_own_table(report: Report, title: str, board: pd.DataFrame, name: str, layout: TableLayout) -> None:
    """The table on the page (`own_table_parts`) with its downloads and in the report: the layout's `aside` groups
    in expanders, its `by_role` figures as a table of their own under it, in an expander."""
    shown, aside, by_role = own_table_parts(board, layout)
    show_wide_table(report, title, board, name, aside, shown=shown, helps=dict(layout.helps), units=layout.units)
    if not by_role.empty:
        with st.expander(layout.by_role.title):
            table, config = fitted_columns(by_role, None, dict(layout.by_role.helps))
            st.dataframe(table, hide_index=True, width="stretch", column_config=config)
        report.table(f"{title}: figures by role", by_role)
