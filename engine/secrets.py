"""Keys live in the environment (or a git-ignored `.env` at the repository root) and nowhere else:
they are never part of a run spec, the database, a log or a page. Every answer and error text an agent
records passes through `redact`: an environment variable named like a secret has every echo of its value
replaced, in whatever form it comes back (engine/key_echoes.py: whole or in part, without its provider prefix, in
another case, split by spaces, line breaks, punctuation or invisible characters, interleaved with a filler,
backwards, shifted round the alphabet (rot13), in look-alike or compatibility letters (Cyrillic, fullwidth), under
escapes (JSON, C, HTML entities, URL percent-encoding, quoted-printable), in base64, base32, base85 or hex), and
so has any token shaped like a provider's key (`sk-...`, Google's `AIza...`, GitHub's `ghp_...`, AWS's
`AKIA...`, a JSON Web Token, a bearer token), whether or not it is in the environment, as it is or under
escapes."""

from __future__ import annotations

import os
import re
from pathlib import Path

from dotenv import dotenv_values

from engine.key_echoes import echo_spans, layers, merged

ROOT = Path(__file__).resolve().parent.parent
_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)", re.IGNORECASE)
# at a word's start whose first letter can start a shape (ſ, the long s, is an s to the ignore-case ones): the
# look-ahead lets the search skip to such a letter, 2.4 times as fast through a GAMA-Bench record as \b alone
_KEY_SHAPE = re.compile(r"(?=[sSrRgGxXpkhAeEbB\u017f])\b(?:" + "|".join((
    r"(?:(?i:sk|rk|gsk|xai)|pk|key|hf)[-_][A-Za-z0-9_\-]{8,}\b",  # OpenAI, Anthropic, Groq, xAI, Hugging Face...
    r"AIza[0-9A-Za-z_\-]{30,}",  # Google (Gemini)
    r"gh[pousr]_[A-Za-z0-9]{30,}",  # GitHub
    r"(?:AKIA|ASIA)[0-9A-Z]{16}\b",  # AWS access key id
    r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",  # a JSON Web Token
    r"(?i:bearer)\s+[A-Za-z0-9._~+/\-]{16,}=*",  # an Authorization header's token
)) + ")")


def _secret_values() -> list[str]:
    return [value for name, value in os.environ.items() if value and len(value) >= 6 and _SECRET_NAME.search(name)]


def redact(text: str) -> str:
    """Replace every echo of a secret-looking environment variable's value (engine/key_echoes.py: whole or in
    part, split, interleaved, backwards, look-alike, escaped, encoded), and key-shaped tokens, by ***. It runs on
    every answer: bench/redact.py times it on 10 kB ones."""
    keys = _secret_values()
    shaped = [(view.starts[found.start()], view.ends[found.end() - 1])
              for view in layers(text) for found in _KEY_SHAPE.finditer(view.text)]  # escaped too
    for start, end in reversed(merged(text, echo_spans(text, keys) + shaped)):
        text = text[:start] + "***" + text[end:]
    return text


def holds_plain_secret(text: str) -> bool:
    """Whether a key-shaped token, or a piece of a secret's value, appears in `text` as it is: the quick look that
    decides whether text no agent of ours wrote (an imported record: 100 kB, where `redact`'s search through every
    form costs about 1 ms a kB) is searched whole. Another party's records hold keys as they were, not ours
    transformed."""
    pieces = {key[i:i + 8] for key in _secret_values() for i in range(0, max(len(key) - 7, 1), 4)}
    return _KEY_SHAPE.search(text) is not None or any(piece in text for piece in pieces)


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
