"""Keys live in the environment (or a git-ignored `.env` at the repository root) and nowhere else:
they are never part of a run spec, the database, a log or a page. Every error text an agent records
passes through `redact`."""

from __future__ import annotations

import os
import re
from pathlib import Path

from dotenv import dotenv_values

ROOT = Path(__file__).resolve().parent.parent
_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)", re.IGNORECASE)
_KEY_SHAPE = re.compile(r"\b(sk|rk|pk|key|hf|gsk|xai)[-_][A-Za-z0-9_\-]{8,}\b")


def redact(text: str) -> str:
    """Replace the value of every secret-looking environment variable, and key-shaped tokens, by ***."""
    for name, value in os.environ.items():
        if value and len(value) >= 6 and _SECRET_NAME.search(name):
            text = text.replace(value, "***")
    return _KEY_SHAPE.sub("***", text)


def load_dotenv(path: str | Path | None = None) -> list[str]:
    """Put the `.env` file's variables in the environment without overriding real ones.
    Returns the names it set (never the values)."""
    path = Path(path) if path is not None else ROOT / ".env"
    if not path.is_file():
        return []
    added = []
    for name, value in dotenv_values(path, encoding="utf-8").items():  # python-dotenv's reading of the file
        if name not in os.environ and value is not None:
            os.environ[name] = value
            added.append(name)
    return added
