"""Keys live in the environment (or a git-ignored `.env` at the repository root) and nowhere else:
they are never part of a run spec, the database, a log or a page. Every answer and error text an agent
records passes through `redact`, which also catches a key in the forms an endpoint or a model echoes it:
without its provider prefix (`sk-`, `sk-ant-api03-`...), in another case, with invisible characters
(zero-width spaces and joiners, soft hyphens...) or line breaks and spaces between its characters, written
backwards, or encoded in base64 (standard or URL-safe, at any byte offset of what was encoded) or hex (with or
without `%`, `\\x`, `:` or spaces between the bytes)."""

from __future__ import annotations

import base64
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
_BETWEEN = f"[{INVISIBLE}\\s]*"  # what may stand between an echoed key's characters
ENCODED_TAIL = 16  # the characters of a key's encoding that mark an encoded echo (96 bits or more)
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_-]{16,}={0,2}")
_HEX_RUN = re.compile(r"(?:%|\\x)?[0-9A-Fa-f]{2}(?:(?:%|\\x|[:\s-])?[0-9A-Fa-f]{2}){7,}")


def redact(text: str) -> str:
    """Replace the value of every secret-looking environment variable, and key-shaped tokens, by ***."""
    for name, value in os.environ.items():
        if value and len(value) >= 6 and _SECRET_NAME.search(name):
            text = _redact_value(text, value)
            text = _redact_value(text[::-1], value)[::-1]
            text = _redact_encoded(text, value)
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
    return re.compile(_BETWEEN.join(re.escape(c) for c in value[-TAIL:]), re.IGNORECASE)


def _redact_value(text: str, value: str) -> str:
    """`text` with every echo of the secret `value` replaced by ***: its tail found, then followed back over as
    much of the value's beginning as the text holds (the whole value, or the value without its prefix), over
    invisible characters and white space between its characters but not before its first."""
    spans = []
    for found in _tail_pattern(value).finditer(text):
        start, left, at = found.start(), len(value) - len(value[-TAIL:]), found.start()
        while at > 0 and left > 0:
            before = text[at - 1]
            if before.lower() == value[left - 1].lower():
                left, at, start = left - 1, at - 1, at - 1
            elif _INVISIBLE_CHAR.fullmatch(before) or before.isspace():
                at -= 1
            else:
                break
        spans.append((start, found.end()))
    for start, end in reversed(spans):
        text = text[:start] + "***" + text[end:]
    return text


@lru_cache(maxsize=64)
def _encoded_tails(value: str) -> tuple[tuple[str, ...], str]:
    """What marks `value` encoded: the last ENCODED_TAIL characters of its base64 at each of the three byte offsets
    it may start at in what was encoded (each only the characters its own bytes decide), in both alphabets; and
    the last ENCODED_TAIL digits of its hex."""
    raw = value.encode()
    tails = []
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + raw).decode()
        core = encoded[(8 * offset + 5) // 6:(8 * (offset + len(raw))) // 6]
        tails += [core[-ENCODED_TAIL:], core[-ENCODED_TAIL:].replace("+", "-").replace("/", "_")]
    return tuple(tails), raw.hex()[-ENCODED_TAIL:]


def _redact_encoded(text: str, value: str) -> str:
    """`text` with every base64 or hex run that holds an encoding of `value` replaced by ***."""
    base64_tails, hex_tail = _encoded_tails(value)

    def base64_run(run: re.Match[str]) -> str:
        return "***" if any(tail in run.group() for tail in base64_tails) else run.group()

    def hex_run(run: re.Match[str]) -> str:
        digits = re.sub(r"[^0-9a-f]", "", run.group().lower().replace("\\x", ""))
        return "***" if hex_tail in digits else run.group()

    return _HEX_RUN.sub(hex_run, _BASE64_RUN.sub(base64_run, text))


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
