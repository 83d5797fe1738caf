"""Keys live in the environment (or a git-ignored `.env` at the repository root) and nowhere else:
they are never part of a run spec, the database, a log or a page.

Redaction is done where text is written, by `redact_together`: an answer as it arrives (engine/agents/llm.py),
before the game reads it and the response cache keeps it; every text of a match, read together, when its record
is made (engine/store/writer.py, `MatchRecord`), before the database, the pages, an export or the run's output
see it. What it replaces by *** is proportionate to what an endpoint or a model gives back:
- the value of an environment variable named like a secret, whole, without its provider prefix, or in pieces
  of at least FRAGMENT characters that together cover WINDOW of its characters: a key leaked a few
  characters per turn is found in the match's texts read together. Letters are compared in either case.
- a token shaped like a provider's key (`sk-...`, Google's `AIza...`, GitHub's `ghp_...`, AWS's `AKIA...`, a
  JSON Web Token, a bearer token), whether or not it is in the environment.
A key re-encoded (base64, escapes, look-alike letters) is not looked for.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np
from dotenv import dotenv_values

ROOT = Path(__file__).resolve().parent.parent
FRAGMENT = 4  # the shortest piece of a key looked for
WINDOW = 10  # characters of a key its pieces must cover together (about 60 bits of a random key)
_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)", re.IGNORECASE)
# at a word's start whose first letter can start a shape (ſ, the long s, is an s to the ignore-case ones): the
# look-ahead lets the search skip to such a letter
_KEY_SHAPE = re.compile(r"(?=[sSrRgGxXpkhAeEbB\u017f])\b(?:" + "|".join((
    r"(?:(?i:sk|rk|gsk|xai)|pk|key|hf)[-_][A-Za-z0-9_\-]{8,}\b",  # OpenAI, Anthropic, Groq, xAI, Hugging Face...
    r"AIza[0-9A-Za-z_\-]{30,}",  # Google (Gemini)
    r"gh[pousr]_[A-Za-z0-9]{30,}",  # GitHub
    r"(?:AKIA|ASIA)[0-9A-Z]{16}\b",  # AWS access key id
    r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",  # a JSON Web Token
    r"(?i:bearer)\s+[A-Za-z0-9._~+/\-]{16,}=*",  # an Authorization header's token
)) + ")")
_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")  # keeps every text's length
_BUCKETS = 65_521  # a prime
_APART = "\x00"  # between the texts read together: no key holds it, so no piece runs from one text into the next


def _secret_values() -> list[str]:
    return [value for name, value in os.environ.items() if value and len(value) >= 6 and _SECRET_NAME.search(name)]


def _codes(text: str) -> np.ndarray:
    """Each FRAGMENT characters of `text` as one number (7 bits a character: a character beyond ASCII is 0, which
    no character of a key is), so that every piece of every key is looked up in one pass."""
    chars = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    chars = np.where((chars > 0) & (chars < 128), chars, 0)
    codes = np.zeros(max(len(chars) - FRAGMENT + 1, 0), dtype=np.uint32)
    for i in range(FRAGMENT):
        codes = (codes << 7) | chars[i:len(chars) - FRAGMENT + 1 + i]
    return codes


@lru_cache(maxsize=64)
def _pieces(key: str) -> tuple[np.ndarray, dict[int, list[int]]]:
    """The codes of a key's pieces of FRAGMENT characters, lower-cased, and where in the key each starts."""
    folded = key.translate(_LOWER)
    where: dict[int, list[int]] = {}
    for at_key, code in enumerate(_codes(folded).tolist()):
        if folded[at_key:at_key + FRAGMENT].isascii():
            where.setdefault(code, []).append(at_key)
    return np.array(sorted(where), dtype=np.uint32), where


def _among(codes: np.ndarray, pieces: np.ndarray) -> np.ndarray:
    """Whether each code is one of `pieces` (sorted): a binary search, where `np.isin` sorts the codes too."""
    if not len(pieces):  # a key with no run of FRAGMENT ASCII characters
        return np.zeros(len(codes), dtype=bool)
    at = np.minimum(np.searchsorted(pieces, codes), len(pieces) - 1)
    return pieces[at] == codes


@lru_cache(maxsize=16)
def _any_pieces(keys: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The codes of every piece of the keys, and which of _BUCKETS their remainders fall in: a look-up in the latter
    passes over a text's codes about ten times as fast as a search of the former, and lets few through."""
    pieces = np.unique(np.concatenate([_pieces(key)[0] for key in keys]))
    buckets = np.zeros(_BUCKETS, dtype=bool)
    buckets[pieces % _BUCKETS] = True
    return pieces, buckets


def _echoes(found: np.ndarray, codes: np.ndarray, key: str) -> list[tuple[int, int]]:
    """Spans of a lower-cased text that give `key` back, from `found`, the places of the text (`codes`: its
    `_codes`) where a piece of some key starts: the longest runs along the key of FRAGMENT characters or more, kept
    where the runs found cover min(WINDOW, len(key)) consecutive characters of the key."""
    pieces, where = _pieces(key)
    mine = found[_among(codes[found], pieces)]
    hits = [(at, at_key) for at, code in zip(mine.tolist(), codes[mine].tolist(), strict=True)
            for at_key in where[code]]  # (where in the text, where in the key) of every piece found
    runs: list[list[int]] = []  # [text start, text end, key start, key end]
    for at, at_key in sorted(hits, key=lambda hit: (hit[0] - hit[1], hit[0])):
        run = runs[-1] if runs else None
        if run and run[0] - run[2] == at - at_key and at <= run[1] - FRAGMENT + 1:
            run[1], run[3] = at + FRAGMENT, at_key + FRAGMENT
        else:
            runs.append([at, at + FRAGMENT, at_key, at_key + FRAGMENT])
    covered = [False] * len(key)
    for _, _, start, end in runs:
        covered[start:end] = [True] * (end - start)
    stretches, begin = [], None  # the runs of covered characters of the key, long enough
    for i, on in enumerate([*covered, False]):
        if on and begin is None:
            begin = i
        elif not on and begin is not None:
            if i - begin >= min(WINDOW, len(key)):
                stretches.append((begin, i))
            begin = None
    return [(run[0], run[1]) for run in runs if any(a <= run[2] and run[3] <= b for a, b in stretches)]


def redact_together(texts: Sequence[str]) -> list[str]:
    """`texts` (one match's, or one answer) with every key found in them, read together, replaced by ***."""
    joined = _APART.join(texts)
    spans = [found.span() for found in _KEY_SHAPE.finditer(joined)]
    keys = _secret_values()
    for key in keys:  # whole, whatever its characters
        at = joined.find(key)
        while at >= 0:
            spans.append((at, at + len(key)))
            at = joined.find(key, at + 1)
    if keys:
        codes = _codes(joined.lower() if joined.isascii() else joined.translate(_LOWER))
        pieces, buckets = _any_pieces(tuple(keys))
        found = np.flatnonzero(buckets[codes % _BUCKETS])
        found = found[_among(codes[found], pieces)]
        for key in keys if len(found) else ():
            spans += _echoes(found, codes, key)
    if not spans:
        return list(texts)
    out, start = [], 0
    merged = iter(_merged(spans))
    span = next(merged, None)
    for text in texts:
        end = start + len(text)
        parts, done = [], start
        while span is not None and span[0] < end:
            parts += [joined[done:span[0]], "***"]
            done = span[1]
            span = next(merged, None)
        out.append("".join(parts) + joined[done:end])
        start = end + len(_APART)
    return out


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def redact(text: str) -> str:
    """`text` with every key in it replaced by *** (`redact_together` of this text alone)."""
    return redact_together([text])[0]


def holds_plain_secret(text: str) -> bool:
    """Whether a key-shaped token, or a piece of a secret's value, appears in `text` as it is: the quick look that
    decides whether a record no agent of ours wrote is redacted whole."""
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
