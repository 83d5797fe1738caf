"""Running a dashboard page headless in a test, on a given database, with its URL's query parameters."""

from __future__ import annotations

from pathlib import Path

from streamlit.runtime.pages_manager import PagesManager
from streamlit.testing.v1 import AppTest


def run_page(name: str, db: str | Path, monkeypatch, **params: str) -> AppTest:
    """`pages/<name>.py` run once on `db` (through ARENA_DB), as a link holding `params` opens it."""
    monkeypatch.setenv("ARENA_DB", str(db))
    at = AppTest.from_file(f"../pages/{name}.py", default_timeout=60)  # relative to this file, in tests/
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


class ServedNavigation(PagesManager):
    """Pages as `streamlit run app.py` serves them: app.py runs on every load and its `st.navigation` runs the page.

    Beside app.py lies the `pages/` folder, so Streamlit starts in its old page-folder mode; the server leaves it
    for good once app.py calls `st.navigation`, but AppTest goes back to it on every run and then runs a page
    chosen by `switch_page` bare, without app.py around it. Patched over AppTest's PagesManager (process-wide, or
    with monkeypatch), it keeps AppTest where the served dashboard is."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        PagesManager.uses_pages_directory = False


def serve_like_the_dashboard(monkeypatch=None) -> None:
    """From now on (until monkeypatch undoes it), AppTest on app.py runs pages through app.py."""
    from streamlit.testing.v1 import app_test

    if monkeypatch is None:
        app_test.PagesManager = ServedNavigation
    else:
        monkeypatch.setattr(app_test, "PagesManager", ServedNavigation)
