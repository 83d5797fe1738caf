"""The version of the code that computes a derived table: a hash of the engine's Python source. The tables kept
beside a database (`<db>.tables/`, `<db>.ratings.json`) are keyed on it, so a changed scorer shows on the next view
of an existing database after a `git pull`, with no version constant to remember."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

ENGINE = Path(__file__).resolve().parent.parent


@functools.cache
def code_version() -> str:
    """A short hash of every `.py` file of the engine, by path and content, as this process imported them."""
    digest = hashlib.sha256()
    for path in sorted(ENGINE.rglob("*.py")):
        digest.update(path.relative_to(ENGINE).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]
