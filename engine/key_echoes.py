"""Where a text gives a key back, in whatever form an endpoint or a model echoes it (engine/secrets.py replaces
what this finds by ***).

The text is searched in several *views*, each character of a view remembering the span of the text it came from:
the text itself; the text with its escape layers decoded (JSON and C escapes, HTML entities, URL
percent-encoding, quoted-printable: layer under layer, e.g. `&#92;u0073`); and every second or third character
of the latter (a key interleaved with a filler). A view is searched on its *skeleton*: its letters and digits, lower-
cased, each character folded to the ASCII one it stands for (compatibility forms such as fullwidth `ｓ`, letters
with accents or a stroke, look-alikes such as Cyrillic `ѕ`, a small capital `ꜱ` or a regional indicator `🇸`,
other scripts' digits, Unicode's invisible tag characters). Any WINDOW consecutive characters of a
key's own skeleton found there mark an echo, followed as far as it goes, read forwards, backwards or shifted
round the alphabet (rot13 or any other Caesar shift): so the whole key, the key without its provider prefix, its
first or last part, and the key split by spaces, line breaks, punctuation or invisible characters are all one
span of the text, from its first character to its last. An echo read in a derived way (shifted, or interleaved)
must hold a few letters: digits alone come by chance (a count in every other character).

An encoded echo is found either by decoding the text, where a run of the encoding can be told apart: every run of
base64 (either alphabet, wrapped over lines or not, from any of its first four characters), base32 or hex (bare,
`0x`, with any separators) is decoded and its bytes searched the same way (so UTF-16's zero bytes drop out) -- or,
where it cannot (base85's alphabet is most of the printable characters), by encoding the key: its Ascii85 and
base85 forms at each of the four byte alignments it may start at, 15 characters (12 bytes of the key) of which
mark an echo. Either way the encoded run is the span; and decoded bytes that read as text are searched as a text
in turn, so an encoding inside another (base64 of JSON escapes, hex of base64) is found too.
"""

from __future__ import annotations

import base64
import binascii
import html
import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

WINDOW = 10  # consecutive characters of a key that mark an echo of it (about 50 bits of a random key)
PROBE = 7  # characters looked up every few places of a skeleton (Probes.step): a WINDOW-long echo holds one
STRIDES = (2, 3)  # every 2nd or 3rd character: a key interleaved with one or two filler characters
DERIVED_LETTERS = 4  # letters an echo read shifted or interleaved must hold (a hex key's ten characters do, mostly)
_LAYERS = 3  # escape layers decoded, one under another
_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_BYTES_SKELETON = (bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", b"abcdefghijklmnopqrstuvwxyz"),
                   bytes(c for c in range(256) if chr(c) not in _ALNUM))
# Greek, Cyrillic and Armenian letters drawn like a Latin one (from Unicode's confusables, UTS #39); other
# look-alikes are found by their names (_LATIN_LOOK_ALIKE, _DIGIT_LOOK_ALIKE), compatibility forms by NFKD
_LOOK_ALIKES = str.maketrans("αβεηικμνορτυχγΑΒΕΖΗΙΚΜΝΟΡΤΥΧ" "асԁеһіјӏоԛрѕԝхуүАВСЕНІЈКМОРЅТХУҮԚԜ" "օսցոհզ",
                             "abehikmvoptuxyabezhikmnoptyx" "acdehijloqpswxyyabcehijkmopstxyyqw" "ougnhq")
_LATIN_LOOK_ALIKE = re.compile(r"(?:[A-Z -]* )?(?:LATIN|REGIONAL INDICATOR SYMBOL)(?: [A-Z]+)*? LETTER "
                               r"(?:SMALL CAPITAL |DOTLESS |SCRIPT )?([A-Z])(?: WITH .*)?")  # ᴋ, ø, 🅰, 🇦
_DIGITS = ("ZERO", "ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE")
_DIGIT_LOOK_ALIKE = re.compile(rf"(?:[A-Z -]* )?DIGIT ({'|'.join(_DIGITS)})")  # ➊, ١ (Arabic-Indic)
_TAGS = range(0xE0020, 0xE007F)  # Unicode's tag characters: invisible, each standing for an ASCII one

# the escape layers: a run of byte escapes of one kind (read as UTF-8), a code point, an HTML entity, a C escape
# (the lookahead lets the search skip the text between them fast)
_ESCAPE = re.compile(r"(?=[%\\=&])(?:" + "|".join((
    r"(?P<bytes>(?:%[0-9A-Fa-f]{2})+|(?:\\x[0-9A-Fa-f]{2})+|(?:\\[0-7]{1,3})+|(?:=[0-9A-F]{2}|=\r?\n)+)",
    r"(?P<code>\\u\{[0-9A-Fa-f]{1,6}\}|\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8})",
    r"(?P<entity>&(?:#[xX][0-9A-Fa-f]{1,6}|#[0-9]{1,7}|[A-Za-z][A-Za-z0-9]{1,31});?)",
    r"(?P<char>\\[nrtfb\"'/\\])",
)) + ")")
_BYTE_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})|\\x([0-9A-Fa-f]{2})|\\([0-7]{1,3})|=([0-9A-F]{2})|=\r?\n")
_C_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "f": "\f", "b": "\b"}

# base64 or base32 (letters, digits, + / - _), possibly wrapped over lines, as MIME and PEM write it
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_-]{12,}(?:\r?\n[A-Za-z0-9+/_-]+)*={0,6}")
_BASE32 = re.compile(r"[A-Z2-7]+")
_HEX_RUN = re.compile(r"(?:0x|\\x|%)?[0-9A-Fa-f]{2}(?:[\s,:;-]*(?:0x|\\x|%)?[0-9A-Fa-f]{2}){5,}")
# the characters of Ascii85 and of base85 (RFC 1924, Python's b85encode), as runs of a text
_A85_RUN = re.compile(r"<~[!-u]+~>|[!-u]+")  # Adobe's delimiters with it
_B85_RUN = re.compile(r"[0-9A-Za-z!#$%&()*+\-;<=>?@^_`{|}~]+")
_B85_GROUPS = 3  # groups of 5 characters (4 bytes each) of a key's base85 that mark an echo
_NESTED = 2  # encodings decoded one inside another (base64 of hex, hex of JSON escapes...)
_CONTROLS = [chr(c) for c in (*range(9), 11, 12, *range(14, 32), 127)]


class View(NamedTuple):
    """A reading of a text: its characters, and the span of the text each came from (start, end)."""
    text: str
    starts: Sequence[int]
    ends: Sequence[int]


class _Folds(dict):
    """`str.translate`'s table from a character to the ASCII letters and digits it stands for, lower-cased (none
    for punctuation, spaces, marks): worked out the first time a character is seen, then kept."""

    def __missing__(self, code: int) -> str:
        folded = []
        shown = chr(code - 0xE0000 if code in _TAGS else code)
        for n in unicodedata.normalize("NFKD", shown).translate(_LOOK_ALIKES):  # an accent's mark drops out
            name = unicodedata.name(n, "")
            if n.isascii():
                folded.append(n.lower() if n.isalnum() else "")
            elif found := _LATIN_LOOK_ALIKE.fullmatch(name):
                folded.append(found.group(1).lower())
            elif found := _DIGIT_LOOK_ALIKE.fullmatch(name):
                folded.append(str(_DIGITS.index(found.group(1))))
        self[code] = "".join(folded)
        return self[code]


_FOLDS = _Folds({code: chr(code).lower() if chr(code) in _ALNUM else "" for code in range(128)})


def bones(text: str) -> str:
    """`text`'s skeleton, without where each character stood (the fast path: most texts hold no echo)."""
    return text.translate(_FOLDS)


def skeleton(text: str) -> tuple[str, list[int]]:
    """`text`'s skeleton (its letters and digits, folded to ASCII and lower-cased) and where each stood in `text`."""
    return text.translate(_FOLDS), [i for i, c in enumerate(text) for _ in _FOLDS[ord(c)]]


# --- the views: the escape layers decoded, and strided readings


def _utf8_chars(values: list[int], spans: list[tuple[int, int]]):
    """(character, span) of escaped bytes read as UTF-8, a byte that is not part of a character as itself."""
    i = 0
    while i < len(values):
        lead = values[i]
        size = 1 if lead < 0xC0 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
        try:
            char = bytes(values[i:i + size]).decode("utf-8")
        except UnicodeDecodeError:
            char, size = chr(lead), 1
        yield char, (spans[i][0], spans[i + size - 1][1])
        i += size


def _decoded(found: re.Match) -> tuple[str, list[tuple[int, int]] | None]:
    """What one escape (or run of byte escapes) stands for, and each of its characters' span in the text (None:
    each the whole escape's)."""
    kind, raw, at = found.lastgroup, found.group(), found.start()
    if kind == "bytes":
        values, spans = [], []
        for byte in _BYTE_ESCAPE.finditer(raw):
            digits = next((g for g in byte.groups() if g is not None), None)
            if digits is not None:  # a soft line break of quoted-printable stands for nothing
                values.append(int(digits, 8 if byte.group(3) else 16) & 0xFF)
                spans.append((at + byte.start(), at + byte.end()))
        chars = list(_utf8_chars(values, spans))
        return "".join(char for char, _ in chars), [span for _, span in chars]
    if kind == "code":
        point = int(raw[2:].strip("{}"), 16)
        return (chr(point) if point <= 0x10FFFF else raw), None
    if kind == "entity":
        return html.unescape(raw), None  # an unknown name stays as it is
    return _C_ESCAPES.get(raw[1], raw[1]), None


def unescaped(view: View) -> View | None:
    """`view` with one layer of escapes decoded (None if it holds none)."""
    chars: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    done = 0
    for found in _ESCAPE.finditer(view.text):
        text, spans = _decoded(found)
        if text == found.group():
            continue
        chars += (view.text[done:found.start()], text)
        starts.extend(view.starts[done:found.start()])
        ends.extend(view.ends[done:found.start()])
        if spans is None:
            starts += [view.starts[found.start()]] * len(text)
            ends += [view.ends[found.end() - 1]] * len(text)
        else:
            starts += [view.starts[start] for start, _ in spans]
            ends += [view.ends[end - 1] for _, end in spans]
        done = found.end()
    if not done:
        return None
    chars.append(view.text[done:])
    starts.extend(view.starts[done:])
    ends.extend(view.ends[done:])
    return View("".join(chars), starts, ends)


def _layers(text: str) -> tuple[View, ...]:
    """The text as it is and, if it holds escapes, with its escape layers decoded."""
    plain = View(text, range(len(text)), range(1, len(text) + 1))
    deepest = plain
    for _ in range(_LAYERS):
        decoded = unescaped(deepest)
        if decoded is None:
            break
        deepest = decoded
    return (plain,) if deepest is plain else (plain, deepest)


layers = lru_cache(maxsize=1)(_layers)  # redact reads a text's twice: for a key's echoes, and for key-shaped tokens


def strided(view: View) -> list[View]:
    """Every second or third character of `view`, from each place: a key interleaved with a filler. Each
    character's span reaches over the filler after it, so an echo's last filler goes with it."""
    views = []
    for stride in STRIDES:
        for skip in range(stride):
            starts, ends = view.starts[skip::stride], view.ends[skip + stride - 1::stride]
            if len(ends) < len(starts):  # the last character has less filler after it than the others
                ends = [*ends, view.ends[-1]]
            views.append(View(view.text[skip::stride], starts, ends))
    return views


# --- a key's readings, and where a skeleton runs along one


def _shifted(key: str, shift: int) -> str:
    """A skeleton's letters shifted round the alphabet (a Caesar cipher; rot13 is 13), its digits kept."""
    return "".join(chr((ord(c) - 97 + shift) % 26 + 97) if c.isalpha() else c for c in key)


class Probes(NamedTuple):
    """Every PROBE characters of every reading of the keys: where in which reading, how long an echo of it must
    run, and whether the reading is shifted round the alphabet."""
    size: int
    step: int
    at: dict[str, list[tuple[str, int, int, bool]]]


@lru_cache(maxsize=16)
def probes(key_bones: tuple[str, ...]) -> Probes:
    """The probes of the keys' skeletons (the same keys on every call of redact: worked out once)."""
    size = min(PROBE, WINDOW, *map(len, key_bones))
    step = min(min(WINDOW, len(key)) - size + 1 for key in key_bones)
    at: dict[str, list[tuple[str, int, int, bool]]] = {}
    for key in key_bones:
        width = min(WINDOW, len(key))
        # shift 0 last: a reading its shifts also give (a key of digits) counts as unshifted
        readings = {_shifted(forward, shift): shift > 0 for shift in range(25, -1, -1) for forward in (key, key[::-1])}
        for reading, shifted in readings.items():
            for j in range(len(reading) - size + 1):
                at.setdefault(reading[j:j + size], []).append((reading, j, width, shifted))
    return Probes(size, step, at)


def holds_echo(skeleton_text: str, found: Probes) -> bool:
    """Whether a skeleton may run along a key's reading (a probe is in it; `runs_along` says how far)."""
    places = range(0, len(skeleton_text) - found.size + 1, found.step)
    return not found.at.keys().isdisjoint(skeleton_text[i:i + found.size] for i in places)


def runs_along(skeleton_text: str, found: Probes, strided_view: bool = False) -> list[tuple[int, int]]:
    """Spans of a skeleton that run along one of the keys' readings for its WINDOW characters or more. Read in a
    derived way (shifted round the alphabet, or in every second or third character of a text) an echo must hold
    DERIVED_LETTERS letters: digits shift with no letter, and any text's every other character counts up or down
    now and then (`u>=1e9?9:u>=1e8?8:...` reads 98...)."""
    spans = []
    for i in range(0, len(skeleton_text) - found.size + 1, found.step):
        for reading, j, width, shifted in found.at.get(skeleton_text[i:i + found.size], ()):
            start, end, k_start, k_end = i, i + found.size, j, j + found.size
            while start > 0 and k_start > 0 and skeleton_text[start - 1] == reading[k_start - 1]:
                start, k_start = start - 1, k_start - 1
            while end < len(skeleton_text) and k_end < len(reading) and skeleton_text[end] == reading[k_end]:
                end, k_end = end + 1, k_end + 1
            letters = end - start - sum(map(str.isdigit, skeleton_text[start:end]))
            if end - start >= width and (letters >= DERIVED_LETTERS or not (shifted or strided_view)):
                spans.append((start, end))
    return spans


# --- encoded runs: decoded where the text tells them apart, the key encoded where it cannot


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
    for skip in range(8 if _BASE32.fullmatch(upper) else 0):
        part = upper[skip:]
        try:
            out.append(base64.b32decode(part[:len(part) // 8 * 8]))
        except (binascii.Error, ValueError):
            pass
    return out


def _holds_echo(raw: bytes, found: Probes, keys: list[str], nested: int) -> bool:
    """Whether decoded bytes give a key back: in their skeleton, or (if they read as text and `nested` allows)
    in any form echo_spans finds in a text, another encoding included."""
    raw_bones = raw.translate(*_BYTES_SKELETON).decode()
    if holds_echo(raw_bones, found) and runs_along(raw_bones, found):
        return True
    if not nested or len(raw) < 8:
        return False
    try:  # bytes decoded by chance are seldom UTF-8, and hardly ever without control characters
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    controls = sum(map(text.count, _CONTROLS))
    return controls * 10 <= len(text) and bool(_echoes(_layers(text), keys, found, nested - 1))


def _decoded_runs(text: str, found: Probes, keys: list[str], nested: int,
                  checked: dict[tuple[str, str], bool]) -> list[tuple[int, int]]:
    """Spans of base64, base32 or hex runs of `text` whose bytes hold an echo (`checked`: the runs already
    decoded, in another view of the same text, and whether they do)."""
    spans = []
    for pattern, decodings in ((_BASE64_RUN, _base_decodings), (_HEX_RUN, _hex_decodings)):
        for run in pattern.finditer(text):
            seen = (pattern.pattern, run.group())  # a run of hex digits is one of base64's letters too
            if seen not in checked:
                checked[seen] = any(_holds_echo(raw, found, keys, nested) for raw in decodings(run.group()))
            if checked[seen]:
                spans.append(run.span())
    return spans


@lru_cache(maxsize=16)
def _base85_pieces(keys: tuple[str, ...]) -> tuple[tuple[re.Pattern, frozenset[str], frozenset[str]], ...]:
    """Every _B85_GROUPS groups of each key's Ascii85 and base85 forms (UTF-8 and UTF-16), at each of the four
    byte alignments the key may start at, with the run of a text such a piece lies in; and every 10 characters
    of those forms (a piece holds one of them at a fifth place of any text: a text without one is passed over)."""
    pieces: dict[re.Pattern, tuple[set[str], set[str]]] = {_A85_RUN: (set(), set()), _B85_RUN: (set(), set())}
    for key in keys:
        for raw in (key.encode(), key.encode("utf-16-le")):
            for skip in range(4):
                body = raw[skip:][:(len(raw) - skip) // 4 * 4]
                for run, encode in ((_A85_RUN, base64.a85encode), (_B85_RUN, base64.b85encode)):
                    encoded = encode(body).decode()
                    pieces[run][0].update(encoded[g:g + 5 * _B85_GROUPS]
                                          for g in range(0, len(encoded) - 5 * _B85_GROUPS + 1, 5))
                    pieces[run][1].update(encoded[i:i + 10] for i in range(len(encoded) - 9))
    return tuple((run, frozenset(whole), frozenset(samples)) for run, (whole, samples) in pieces.items())


def _base85_runs(text: str, keys: tuple[str, ...]) -> list[tuple[int, int]]:
    """Spans of the runs of `text` that hold a piece of a key's Ascii85 or base85 form."""
    spans = []
    for run, pieces, samples in _base85_pieces(keys):
        if samples.isdisjoint(text[i:i + 10] for i in range(0, len(text) - 9, 5)):
            continue
        hits = []
        for piece in pieces:
            at = text.find(piece)
            while at >= 0:
                hits.append(at)
                at = text.find(piece, at + 1)
        if hits:
            spans += [whole.span() for whole in run.finditer(text) if any(whole.start() <= at < whole.end()
                                                                          for at in hits)]
    return spans


def echo_spans(text: str, keys: list[str]) -> list[tuple[int, int]]:
    """Spans of `text` (start, end) that give one of `keys` back, plain, escaped, interleaved or encoded;
    overlapping spans merged."""
    keys = [k for k in keys if len(bones(k)) >= 6]
    if not keys:
        return []
    return merged(text, _echoes(layers(text), keys, probes(tuple(sorted({bones(k) for k in keys}))), _NESTED))


def _echoes(readable: tuple[View, ...], keys: list[str], found: Probes, nested: int) -> list[tuple[int, int]]:
    """Spans of a text (its layers) that give a key back, in `nested` more encodings under the last one too."""
    spans = []
    for view, is_strided in [(view, False) for view in readable] + [(view, True) for view in strided(readable[-1])]:
        if holds_echo(bones(view.text), found):
            view_bones, where = skeleton(view.text)
            spans += [(view.starts[where[a]], view.ends[where[b - 1]])
                      for a, b in runs_along(view_bones, found, is_strided)]
    checked: dict[tuple[str, str], bool] = {}
    for view in readable:
        encoded = _decoded_runs(view.text, found, keys, nested, checked) + _base85_runs(view.text, tuple(sorted(keys)))
        spans += [(view.starts[a], view.ends[b - 1]) for a, b in encoded]
    return spans


def merged(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans of `text` in order, overlapping or touching ones merged, none ending in whitespace."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        while end > start and text[end - 1].isspace():  # an interleaved key's last filler: the space after it
            end -= 1
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out
