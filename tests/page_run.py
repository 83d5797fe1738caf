"""Running a dashboard page headless in a test, on a given database, with its URL's query parameters."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest


def run_page(name: str, db: str | Path, monkeypatch, **params: str) -> AppTest:
    """`pages/<name>.py` run once on `db` (through ARENA_DB), as a link holding `params` opens it."""
    monkeypatch.setenv("ARENA_DB", str(db))
    at = AppTest.from_file(f"../pages/{name}.py", default_timeout=60)  # relative to this file, in tests/
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()
