"""A paper's own table on a page: its view (engine/suite_tables.py, which `python -m engine scores` prints too), read
from its suite's `TableLayout` (no page knows a suite by its name), with the column groups that would not fit the
window apart and its figures by role under it.

    show_own_table(report, title, board, name, layout)
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from engine.suite_tables import own_table_view, shown_names
from engine.suites.base import ByRole, TableLayout
from pages.shared.report import Report
from pages.shared.tables import fitted_columns, show_wide_table


def show_own_table(report: Report, title: str, board: pd.DataFrame, name: str, layout: TableLayout) -> None:
    """The table on the page (`own_table_view`) with its downloads and in the report: the layout's `aside` groups in
    expanders, its `by_role` figures as a table of their own under it."""
    view = own_table_view(board, layout)
    names = shown_names(board.columns, layout)
    by_role = [names.get(c, c) for c in layout.by_role.columns] if layout.by_role else []
    aside = {label: [names.get(c, c) for c in columns] for label, columns in layout.aside.items()}
    show_wide_table(report, title, board, name, aside, shown=view.drop(columns=[c for c in by_role if c in view]),
                    helps=dict(layout.helps), units=layout.units)
    if layout.by_role:
        show_by_role(report, title, view, layout)


def show_by_role(report: Report, title: str, view: pd.DataFrame, layout: TableLayout) -> None:
    """The figures by role (the `{role}_{figure}` columns of the table as shown) in an expander, a row per agent and
    role it held: four columns that fit, where eight side by side (half of them blank, an agent holding one role)
    ran past a 1400 px window. Each figure under its name with its unit; the table's download holds them as they
    are."""
    by_role: ByRole = layout.by_role
    keys = [*view.columns[:1], *(c for c in ("strategy", "condition") if c in view.columns[1:])]
    figures = shown_names(by_role.figures, layout)
    named = shown_names(by_role.columns, layout)
    rows = [{**{k: row[k] for k in keys}, "role": role,
             **{figures[f]: row.get(named[f"{role}_{f}"], "") for f in by_role.figures}}
            for _, row in view.iterrows() for role in by_role.roles]
    table = pd.DataFrame(rows, columns=[*keys, "role", *figures.values()])
    table = table[table[list(figures.values())].ne("").any(axis=1)].reset_index(drop=True)  # roles never held: no row
    if table.empty:
        return
    with st.expander(by_role.title):
        shown, config = fitted_columns(table, None, dict(by_role.helps))
        st.dataframe(shown, hide_index=True, width="stretch", column_config=config)
    report.table(f"{title}: figures by role", table)
