"""Where a text gives a key back, in whatever form an endpoint or a model echoes it (engine/secrets.py replaces
what this finds by ***).

A key's echo is found on the text's *skeleton*: its ASCII letters and digits (after NFKC, so fullwidth letters
count), lower-cased, each remembering where in the text it stood. Any WINDOW consecutive characters of a key's own
skeleton found there, forwards or backwards, mark an echo, followed as far as it goes: so the whole key, the key
without its provider prefix, its first or last part, and the key split by spaces, line breaks, dashes, dots,
quotes or invisible characters are all one span of the text, from its first character to its last. An encoded
echo is found by decoding: every run of base64 (either alphabet, wrapped over lines or not, from any of its first
four characters), base32 or hex (bare, `0x`, `\\x`, `%`, with any separators) is decoded and its bytes searched
the same way (their skeleton: so UTF-16's zero bytes drop out), and the whole run is the span.
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from functools import lru_cache

WINDOW = 10  # consecutive characters of a key that mark an echo of it (about 50 bits of a random key)
_ALNUM = re.compile(r"[A-Za-z0-9]")
# base64 or base32 (letters, digits, + / - _), possibly wrapped over lines, as MIME and PEM write it
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_-]{12,}(?:\r?\n[A-Za-z0-9+/_-]+)*={0,6}")
_HEX_RUN = re.compile(r"(?:0x|\\x|%)?[0-9A-Fa-f]{2}(?:[\s,:;-]*(?:0x|\\x|%)?[0-9A-Fa-f]{2}){5,}")


def skeleton(text: str) -> tuple[str, list[int]]:
    """`text`'s ASCII letters and digits, lower-cased, and where each stood in `text`."""
    if text.isascii():
        found = list(_ALNUM.finditer(text))
        return "".join(m.group() for m in found).lower(), [m.start() for m in found]
    chars, where = [], []
    for i, c in enumerate(text):
        for n in unicodedata.normalize("NFKC", c):
            if n.isascii() and n.isalnum():
                chars.append(n.lower())
                where.append(i)
    return "".join(chars), where


def _skeleton_spans(bones: str, key: str) -> list[tuple[int, int]]:
    """Spans of `bones` (a skeleton) that run along `key` (another) for WINDOW characters or more."""
    width = min(WINDOW, len(key))
    spans = []
    for j in range(len(key) - width + 1):
        window = key[j:j + width]
        at = bones.find(window)
        while at >= 0:
            start, end, k_start, k_end = at, at + width, j, j + width
            while start > 0 and k_start > 0 and bones[start - 1] == key[k_start - 1]:
                start, k_start = start - 1, k_start - 1
            while end < len(bones) and k_end < len(key) and bones[end] == key[k_end]:
                end, k_end = end + 1, k_end + 1
            spans.append((start, end))
            at = bones.find(window, at + 1)
    return spans


@lru_cache(maxsize=64)
def _windows(key: str) -> frozenset[str]:
    """Every WINDOW characters of a key's skeleton, forwards and backwards."""
    width = min(WINDOW, len(key))
    return frozenset(reading[j:j + width] for reading in (key, key[::-1]) for j in range(len(key) - width + 1))


def holds_echo(bones: str, keys: list[str]) -> bool:
    """Whether a skeleton runs along one of the keys' skeletons, forwards or backwards, for WINDOW characters."""
    for key in keys:
        width, windows = min(WINDOW, len(key)), _windows(key)
        if any(bones[i:i + width] in windows for i in range(len(bones) - width + 1)):
            return True
    return False


def _hex_decodings(run: str) -> list[bytes]:
    """What a run of hex digits may encode, read from its first digit and from its second."""
    digits = re.sub(r"0x|\\x|[^0-9A-Fa-f]", "", run)
    return [bytes.fromhex(digits[skip:][:(len(digits) - skip) // 2 * 2]) for skip in (0, 1)]


def _base_decodings(run: str) -> list[bytes]:
    """What a run of base64 (either alphabet) or base32 may encode, read from each of its first characters (the
    encoded text may start mid-run), each decoding that succeeds."""
    packed = re.sub(r"\s", "", run).rstrip("=")
    out = []
    body = packed.replace("-", "+").replace("_", "/")
    for skip in range(4):
        part = body[skip:]
        try:
            out.append(base64.b64decode(part[:len(part) // 4 * 4], validate=True))
        except (binascii.Error, ValueError):
            pass
    upper = packed.upper()
    for skip in range(8):
        part = upper[skip:]
        try:
            out.append(base64.b32decode(part[:len(part) // 8 * 8]))
        except (binascii.Error, ValueError):
            pass
    return out


def echo_spans(text: str, keys: list[str]) -> list[tuple[int, int]]:
    """Spans of `text` (start, end) that give one of `keys` back, plain or encoded; overlapping spans merged."""
    key_bones = [b for b in (skeleton(k)[0] for k in keys) if len(b) >= 6]
    if not key_bones:
        return []
    bones, where = skeleton(text)
    spans = [(where[a], where[b - 1] + 1) for key in key_bones for reading in (key, key[::-1])
             for a, b in _skeleton_spans(bones, reading)]
    for pattern, decodings in ((_BASE64_RUN, _base_decodings), (_HEX_RUN, _hex_decodings)):
        for run in pattern.finditer(text):
            if any(holds_echo(skeleton(raw.decode("latin-1"))[0], key_bones) for raw in decodings(run.group())):
                spans.append(run.span())
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged
