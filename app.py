"""Streamlit entry point, served by `python -m engine serve` (`make run`): navigation over the pages in pages/."""

import logging

import streamlit as st

from engine import store
from engine.papers import summaries as paper_summaries  # noqa: F401  (its import registers the papers' summaries)
from engine.store.files import cannot_write, write_refused
from engine.wording import failure
from pages.shared.url_widgets import start_notices

st.set_page_config(page_title="Game Arena for LLMs", layout="wide")
# Streamlit pads the bottom of every page by 10rem (room for a chat input these pages do not have): a blank band
# under the last table. A little room is enough.
st.html("<style>[data-testid='stMainBlockContainer'] { padding-bottom: 2rem; }</style>")

PAGES = [
    st.Page("pages/overview.py", title="Overview", icon=":material/home:", default=True),
    LAUNCH := st.Page("pages/launch.py", title="Launch", icon=":material/rocket_launch:"),
    st.Page("pages/leaderboard.py", title="Leaderboards", icon=":material/leaderboard:"),
    st.Page("pages/abilities.py", title="Abilities", icon=":material/radar:"),
    st.Page("pages/games.py", title="Games", icon=":material/sports_esports:"),
    st.Page("pages/robustness.py", title="Robustness", icon=":material/balance:"),
    st.Page("pages/transcripts.py", title="Transcripts", icon=":material/forum:"),
    st.Page("pages/glossary.py", title="Glossary", icon=":material/menu_book:"),
]


page = st.navigation(PAGES)  # a path no page has opens Overview, with Streamlit's own "Page not found"
start_notices()
db = store.default_db()
# A page that only reads shares one read-only connection among all its queries, opened by the check of the file:
# while runs write, that is one wait for a gap between their flushes instead of a dozen. Not Launch: it stops runs
# and waits for them, and a stopped run's last write must not wait for the page that waits for it.
try:  # a bad file: one line saying what to do, on every page
    if page is LAUNCH:
        store.check_db(db)
        page.run()
    else:
        with store.reading(db, check=True):
            page.run()
except store.DatabaseError as exc:
    st.error(str(exc))
except Exception as exc:  # noqa: BLE001 - no page shows a raw traceback: what failed in one line, the rest in the log
    if reason := write_refused(exc):  # a full disk, a read-only file system: the line the commands print
        st.error(str(cannot_write(getattr(exc, "filename", None) or db, reason)))
    else:
        logging.getLogger("arena.dashboard").exception("the page %s failed", page.title)
        st.error(f"{page.title} could not be drawn ({failure(exc)}); the details are in the dashboard's log.")
