"""Keys live in the environment (or a git-ignored `.env` at the repository root) and nowhere else:
they are never part of a run spec, the database, a log or a page. Every answer and error text an agent
records passes through `redact`, which also catches a key in the forms an endpoint or a model echoes it:
without its provider prefix (`sk-`, `sk-ant-api03-`...), in another case, or with invisible characters
(zero-width spaces and joiners, soft hyphens...) between its characters."""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path

from dotenv import dotenv_values

ROOT = Path(__file__).resolve().parent.parent
_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)", re.IGNORECASE)
_KEY_SHAPE = re.compile(r"\b(sk|rk|pk|key|hf|gsk|xai)[-_][A-Za-z0-9_\-]{8,}\b")
# Characters that show as nothing: soft hyphens, zero-width spaces and joiners, bidi marks, variation selectors
INVISIBLE = ("\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f"
             "\ufe00-\ufe0f\ufeff")
_INVISIBLE_CHAR = re.compile(f"[{INVISIBLE}]")
TAIL = 12  # a key's last characters that mark an echo of it; an echo without the prefix still ends with them


def redact(text: str) -> str:
    """Replace the value of every secret-looking environment variable, and key-shaped tokens, by ***."""
    for name, value in os.environ.items():
        if value and len(value) >= 6 and _SECRET_NAME.search(name):
            text = _redact_value(text, value)
    return _KEY_SHAPE.sub("***", text)


# a URL carrying a credential: a password in its user part (`https://user:pass@host`) or a query parameter named
# like one (`?api_key=...`, `&token=...`), the way proxies and Azure endpoints are often written down
_URL_CREDENTIAL = re.compile(r"//[^/@\s]*:[^/@\s]+@|[?&][\w-]*(key|token|secret|password|sig)[\w-]*=[^&\s]+",
                             re.IGNORECASE)


def secret_in(text: str) -> str:
    """Why `text` holds what must stay in the environment (empty if nothing does): the value of a secret-looking
    environment variable, a key-shaped token, or a URL carrying a credential."""
    if _URL_CREDENTIAL.search(text):
        return "a URL with a credential in it"
    if redact(text) != text:
        return "a key, or the value of a secret environment variable"
    return ""


@lru_cache(maxsize=64)
def _tail_pattern(value: str) -> re.Pattern[str]:
    """The last TAIL characters of `value`, in any case, with any invisible characters between them."""
    return re.compile(f"[{INVISIBLE}]*".join(re.escape(c) for c in value[-TAIL:]), re.IGNORECASE)


def _redact_value(text: str, value: str) -> str:
    """`text` with every echo of the secret `value` replaced by ***: its tail found, then followed back over as
    much of the value's beginning as the text holds (the whole value, or the value without its prefix)."""
    spans = []
    for found in _tail_pattern(value).finditer(text):
        start, left = found.start(), len(value) - len(value[-TAIL:])
        while start > 0 and left > 0:
            before = text[start - 1]
            if _INVISIBLE_CHAR.fullmatch(before) or before.lower() == value[left - 1].lower():
                left -= 0 if _INVISIBLE_CHAR.fullmatch(before) else 1
                start -= 1
            else:
                break
        spans.append((start, found.end()))
    for start, end in reversed(spans):
        text = text[:start] + "***" + text[end:]
    return text


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
