"""Streamlit entry point, served by `python -m engine serve` (`make run`): navigation over the pages in pages/."""

import logging

import streamlit as st

from engine import store
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
]

page = st.navigation(PAGES)


def unknown_page() -> list[str]:
    """A link to a page that is not here (/nosuchpage): Streamlit opens the default page instead, said on it."""
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        wanted = get_script_run_ctx().pages_manager.intended_page_name
    except Exception:  # noqa: BLE001 - Streamlit's internals moved: no notice rather than no page
        return []
    known = {p.url_path for p in PAGES} | {p.title for p in PAGES}
    if not wanted or wanted in known or page.title != PAGES[0].title:
        return []
    return [f"No page '{wanted if len(wanted) <= 40 else wanted[:39] + '…'}': showing {page.title}."]


start_notices(unknown_page())
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
    logging.getLogger("arena.dashboard").exception("the page %s failed", page.title)
    st.error(f"{page.title} could not be drawn ({failure(exc)}); the details are in the dashboard's log.")
