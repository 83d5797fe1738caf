"""A page's opening lines, the same on every page that reads matches: its title, a stop with what to play
when the database holds none yet, and (on the pages that filter) the filter bar over the runs there are."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from engine import store
from engine.store.selection import Selection
from pages.shared.caching import filter_options
from pages.shared.report import Report
from pages.shared.url_widgets import filter_bar, notice_area

NO_MATCHES = "No matches yet. Play some with `python -m engine run runs/quick.yaml` (or `make run`)."


def open_page(title: str, db: str | Path, empty: str = NO_MATCHES, caption: str | None = None) -> None:
    """The title (and `caption`); on a database without matches, `empty` and nothing more."""
    st.title(title)
    notice_area()  # what the link asked for that is not here, said first
    if caption:
        st.caption(caption)
    if store.count_matches(db) == 0:
        st.info(empty)
        st.stop()


def open_filtered_page(title: str, db: str | Path, report: Report, games: bool = True,
                       empty: str = NO_MATCHES) -> tuple[pd.DataFrame, Selection]:
    """`open_page`, then the filter bar: the filter options (`queries.filter_options`) and the selection."""
    open_page(title, db, empty)
    options = filter_options(db)
    return options, filter_bar(options, games=games, report=report, db=db)
