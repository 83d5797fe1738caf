"""Shared fixtures: a temporary database, a local OpenAI-compatible stub server, spec helpers."""

from __future__ import annotations

import os
import sys

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# The stub server takes any key; litellm's OpenAI route refuses to call without one.
os.environ.setdefault("OPENAI_API_KEY", "stub-key-for-tests")
# Tests start without the response cache (a replayed answer would hide a call); cache tests turn it on.
os.environ["ARENA_CACHE"] = "off"

from engine.papers import summaries as paper_summaries  # noqa: E402, F401  (the papers' summaries, as the entry points register them)
from engine.testing import StubServer  # noqa: E402

FIRST_RUN_MARKS = ("model", "slow")


def pytest_collection_modifyitems(items):
    """A test that reads the first-run database needs the embedded model (runs/quick.yaml seats local/smollm2) and
    waits for that run to be played once per session (minutes on 2 cores): it is marked `model` and `slow` in
    whichever file it is, so `make test-fast` leaves it out while the file's other tests stay in."""
    for item in items:
        if "first_run_db" in getattr(item, "fixturenames", ()):
            for mark in FIRST_RUN_MARKS:
                item.add_marker(mark)


@pytest.fixture(autouse=True)
def _main_module_restored():
    """Streamlit's AppTest installs the page it ran as `sys.modules["__main__"]` and leaves it there; a local
    executor's worker process started by a later test would then run that page again as its main module (and die
    on it), so whether a test passed depended on which tests ran before it."""
    main = sys.modules["__main__"]
    yield
    sys.modules["__main__"] = main


@pytest.fixture
def db_path(tmp_path):
    return tmp_path / "results.duckdb"


@pytest.fixture
def stub():
    """A stub provider on 127.0.0.1; set `stub.responder` to script its replies."""
    with StubServer() as server:
        yield server


@pytest.fixture(scope="session")
def first_run_db(tmp_path_factory):
    """The database `make run` makes on a fresh clone: runs/quick.yaml played once (local/smollm2 included), by
    the same command, in its own process (a browser test's event loop may be running in this one)."""
    import subprocess
    import sys

    from engine import store

    path = tmp_path_factory.mktemp("first_run") / "results.duckdb"
    played = subprocess.run([sys.executable, "-m", "engine", "run", "runs/quick.yaml", "--db", str(path), "--if-empty",
                             "--quiet"], cwd=store.ROOT, capture_output=True, text=True, timeout=1200)
    assert played.returncode == 0, played.stderr[-2000:]
    return path
