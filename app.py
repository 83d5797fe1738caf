"""Streamlit entry point, served by `python -m engine serve` (`make run`): navigation over the pages in pages/."""

import difflib
import logging

import streamlit as st

from engine import store
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


def meant_page(wanted: str) -> st.Page | None:
    """The page a URL's path names or nearly names, case aside: a page's path or its title in the menu
    ("/leaderboards": the menu's plural for /leaderboard), or a slip of a letter or two ("/transcript")."""
    names = {name.lower(): p for p in PAGES for name in (p.url_path, p.title) if name}
    close = difflib.get_close_matches(wanted.strip("/").lower(), list(names), n=1, cutoff=0.8)
    return names[close[0]] if close else None


def steer_url() -> list[str]:
    """Before `st.navigation` resolves the URL's path: a near miss opens the page it means, and a path near no page
    opens Overview with one notice saying so (Streamlit's own "Page not found" box on top of it said it twice)."""
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        pages_manager = get_script_run_ctx().pages_manager
        wanted = pages_manager.intended_page_name
        if not wanted or pages_manager.intended_page_script_hash or wanted in {p.url_path for p in PAGES}:
            return []
        meant = meant_page(wanted)
        pages_manager.set_script_intent("", meant.url_path if meant else "")
    except Exception:  # noqa: BLE001 - Streamlit's internals moved: its own "Page not found" rather than no page
        return []
    return [] if meant else [f"No page '{wanted if len(wanted) <= 40 else wanted[:39] + '…'}': showing "
                             f"{PAGES[0].title}."]


notices = steer_url()
page = st.navigation(PAGES)
start_notices(notices)
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
