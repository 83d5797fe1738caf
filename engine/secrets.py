"""Keeping keys out of the database, logs and pages: every error text an agent records passes here."""

from __future__ import annotations

import os
import re

_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD)", re.IGNORECASE)
_KEY_SHAPE = re.compile(r"\b(sk|rk|pk|key|hf|gsk|xai)[-_][A-Za-z0-9_\-]{8,}\b")


def redact(text: str) -> str:
    """Replace the value of every secret-looking environment variable, and key-shaped tokens, by ***."""
    for name, value in os.environ.items():
        if value and len(value) >= 6 and _SECRET_NAME.search(name):
            text = text.replace(value, "***")
    return _KEY_SHAPE.sub("***", text)
