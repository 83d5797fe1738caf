"""A key from the environment is redacted in the forms an attacker found passing (engine/key_echoes.py): under
escapes (JSON, C hex and octal, HTML entities, URL percent-encoding, quoted-printable, layer under layer),
shifted round the alphabet (rot13), in Ascii85 or base85 at any byte alignment, interleaved with a filler, in
look-alike, compatibility or invisible tag letters, one encoding inside another; a key-shaped token under
escapes too; ordinary answers survive untouched; and an answer from a provider echoing the key so reaches the
database, the transcripts page and an exported site with no trace of it."""

from __future__ import annotations

import asyncio
import base64
import codecs
import html
import random
import re
import string
from pathlib import Path

import pytest

from engine import store
from engine.__main__ import main
from engine.key_echoes import echo_spans, skeleton
from engine.runner import run_spec
from engine.secrets import redact
from engine.spec import parse_spec
from engine.testing import StubReply
from tests.page_run import run_page
from tests.test_hostile import ECHOES

KEY = "sk-test-abcdef1234567890XYZ"  # as the attacker's OPENAI_API_KEY
# and one drawn at random: no run of digits in it to be found in a form that keeps them, only its letters
KEYS = (KEY, "sk-proj-Qw9zLmN4pR7tUv2XyBc8dE")
GOOD = '{"chosen_number": 7}'
CYRILLIC = str.maketrans("aceopsxyABCEHIKMOPSTXY", "асеорѕхуАВСЕНІКМОРЅТХУ")  # Latin letters' look-alikes


def _bytes_escaped(key: str, form: str) -> str:
    return "".join(form.format(b) for b in key.encode())


# How a model or an endpoint gave the key back, in forms redact let through (one inside another too)
FORMS = {
    "json-unicode": lambda key: "".join(f"\\u{ord(c):04x}" for c in key),
    "json-unicode-braces": lambda key: "".join(f"\\u{{{ord(c):x}}}" for c in key),
    "html-decimal": lambda key: "".join(f"&#{ord(c)};" for c in key),
    "html-hex": lambda key: "".join(f"&#x{ord(c):X};" for c in key),
    "html-named": lambda key: html.escape(key.replace("-", "&hyphen;").replace("e", "&#101;")),
    "html-entity-escaped": lambda key: "".join(f"&amp;#{ord(c)};" for c in key),  # two layers
    "percent": lambda key: _bytes_escaped(key, "%{:02x}"),
    "percent-part": lambda key: key[:8] + _bytes_escaped(key[8:], "%{:02X}"),
    "percent-of-json-unicode": lambda key: "".join(f"%5Cu{ord(c):04x}" for c in key),  # two layers
    "c-hex": lambda key: _bytes_escaped(key, "\\x{:02x}"),
    "c-octal": lambda key: _bytes_escaped(key, "\\{:03o}"),
    "quoted-printable-every-byte": lambda key: _bytes_escaped(key, "={:02X}"),
    "rot13": lambda key: codecs.encode(key, "rot13"),
    "rot13-bare-reversed": lambda key: codecs.encode(key.removeprefix("sk-")[::-1], "rot13"),
    "caesar-3": lambda key: "".join(chr((ord(c) - base + 3) % 26 + base) if c.isalpha() else c
                                    for c in key for base in [ord("a") if c.islower() else ord("A")]),
    "ascii85": lambda key: base64.a85encode(key.encode()).decode(),
    "ascii85-delimited": lambda key: base64.a85encode(f"key={key}".encode(), adobe=True).decode(),
    "ascii85-within": lambda key: base64.a85encode(f"k:{key};".encode()).decode(),
    "base85": lambda key: base64.b85encode(key.encode()).decode(),
    "base85-within": lambda key: base64.b85encode(f"x{key}".encode()).decode(),
    "base85-utf16": lambda key: base64.b85encode(key.encode("utf-16-le")).decode(),
    "interleaved-letter": lambda key: "".join(c + "X" for c in key),
    "interleaved-letters": lambda key: "".join(c + "qz"[i % 2] for i, c in enumerate(key)),
    "interleaved-two": lambda key: "".join(c + "ab" for c in key),
    "cyrillic": lambda key: key.translate(CYRILLIC),
    "cyrillic-json-escaped": lambda key: "".join(f"\\u{ord(c):04x}" for c in key.translate(CYRILLIC)),
    "cyrillic-percent-encoded": lambda key: _bytes_escaped(key.translate(CYRILLIC), "%{:02X}"),
    "small-capitals": lambda key: key.replace("s", "\ua731").replace("k", "\u1d0b").replace("t", "\u1d1b"),
    "accents": lambda key: key.replace("a", "á").replace("e", "ë").replace("c", "ç"),
    "mathematical-bold": lambda key: "".join(chr(0x1D41A + ord(c) - 97) if c.islower() else c for c in key),
    "fullwidth-json-escaped": lambda key: "".join(f"\\u{ord(c) + 0xFEE0:04x}" for c in key),
    "tag-characters": lambda key: "".join(chr(0xE0000 + ord(c)) for c in key),  # invisible
    "regional-indicators": lambda key: "".join(chr(0x1F1E6 + ord(c.lower()) - 97) if c.isalpha() else c for c in key),
    "stroked-and-squared": lambda key: key.replace("a", "ⱥ").replace("d", "đ").replace("X", "🅧").replace("Y", "🅨"),
    "other-scripts-digits": lambda key: "".join(chr(0x0660 + int(c)) if c.isdigit() else c for c in key),
    "base64-of-json-unicode": lambda key: base64.b64encode(FORMS["json-unicode"](key).encode()).decode(),
    "base64-of-base64": lambda key: base64.b64encode(base64.b64encode(key.encode())).decode(),
    "hex-of-base64": lambda key: base64.b64encode(key.encode()).hex(),
    "base64-of-rot13": lambda key: base64.b64encode(codecs.encode(key, "rot13").encode()).decode(),
    "base32-of-ascii85": lambda key: base64.b32encode(base64.a85encode(key.encode())).decode(),
}


@pytest.fixture(params=KEYS)
def key(request, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", request.param)
    return request.param


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_key_in_another_form_is_redacted_and_nothing_else(key, form):
    assert redact(f"my key is {FORMS[form](key)} {GOOD}") == f"my key is *** {GOOD}"


@pytest.mark.parametrize("echo", sorted(ECHOES))
def test_the_forms_redacted_before_still_are_and_only_them(key, echo):
    """test_hostile.py plays them through an endpoint (slow); here each is redacted alone, the space after it kept."""
    assert redact(f"my key is {ECHOES[echo](key)} {GOOD}") == f"my key is *** {GOOD}"


@pytest.mark.parametrize("form", ["json-unicode", "html-decimal", "percent", "rot13", "ascii85", "base85",
                                  "interleaved-letter", "cyrillic"])
def test_part_of_a_key_in_another_form_is_redacted(key, form):
    """Its middle, 16 characters without its prefix (more than a WINDOW of its letters and digits); no letter
    before it (an echo is followed as far as it goes: a letter the key has there would go with it)."""
    assert redact(f"> {FORMS[form](key[5:21])} {GOOD}") == f"> *** {GOOD}"


@pytest.mark.parametrize("shaped", ["sk-proj-abcdefghijklmnop", "ghp_R2d9abcdefghijklmnopqrstuvwxyz012345"])
def test_a_key_shaped_token_not_in_the_environment_is_redacted_under_escapes_too(key, shaped):
    escaped = "".join(f"\\u{ord(c):04x}" for c in shaped)
    assert redact(f"a key: {escaped} and &#{ord(shaped[0])};{shaped[1:]}.") == "a key: *** and ***."


ORDINARY = [
    GOOD,
    "I choose 7: the average of 1234 and 5678 is 3456, two thirds of it 2304.",
    '{"reason": "caf\\u00e9 na\\u00efve \\u2014 I defect", "move": "D", "path": "C:\\\\games\\\\n1"}',
    "&lt;b&gt;bold&lt;/b&gt; &amp; &#169; 2026 &nbsp; &eacute;t&eacute; &#x263A; &unknown; AT&T",
    "https://example.com/search?q=hello%20world%21&lang=en&page=2 100% sure, 50%off",
    "Caf=C3=A9 au lait, x=10, y=AB, soft=\nbreak, a==b",
    'printf("%d\\n", x); char *s = "\\x41\\101\\t"; \\0',
    base64.b64encode(b"the quick brown fox jumps over the lazy dog").decode(),
    base64.a85encode(b"the quick brown fox jumps over the lazy dog").decode(),
    base64.b85encode(b"the quick brown fox jumps over the lazy dog").decode(),
    codecs.encode("Why did the chicken cross the road? To defect in round 3.", "rot13"),
    "Я выбираю число семь, потому что среднее значение равно 33. Επιλέγω τον αριθμό επτά.",
    "１２３ ＡＢＣ ｆｕｌｌｗｉｄｔｈ ﬁne ㎏ ½ ①②③ 🇫🇷 🇩🇪 Łódź żółć Ørsted ١٢٣ 👍🏽",
    "X|O|X\n-+-+-\nO|X|O\n-+-+-\n |X| ",
    "0xdeadbeef 0xCAFEBABE sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "a1b2c3d4e5f6g7h8i9j0 s.k.-.t.e.s.t 3.14159265358979323846264338327950288 x1y2z3w4v5u6t7",
    "return u>=1e9?9:u>=1e8?8:u>=1e7?7:u>=1e6?6:u>=1e5?5:u>=1e4?4:u>=1e3?3:u>=100?2:u>=10?1:0",
    f"not it: {KEY[:9]} {KEY[-9:]} {KEY[3:12]} {KEY[::2][:9]} stop short of a window",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_answers_survive_untouched(key, monkeypatch, text):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-Qw9zLmN4pR7tUv2XyB")
    assert redact(text) == text


def random_keys(count: int) -> list[str]:
    """Keys shaped like the providers' (OpenAI's, Anthropic's, Groq's, Google's, a hex token), drawn at random."""
    rng = random.Random(7)
    base62 = string.ascii_letters + string.digits
    shapes = [("sk-proj-", base62, 48), ("sk-ant-api03-", base62 + "-_", 40), ("gsk_", base62, 52),
              ("AIza", base62 + "-_", 35), ("", "0123456789abcdef", 40)]
    return [prefix + "".join(rng.choice(alphabet) for _ in range(size))
            for prefix, alphabet, size in (shapes[i % len(shapes)] for i in range(count))]


def test_any_key_in_any_form_is_redacted_and_ordinary_answers_are_not(monkeypatch):
    """Forty keys drawn at random, each in every form, are redacted leaving no echo (a key's first or last
    characters that are no letter or digit, `_` or `-`, may stay, escaped or with their filler); and the
    ordinary answers with each in the environment survive."""
    for drawn in random_keys(40):
        monkeypatch.setenv("OPENAI_API_KEY", drawn)
        redacted = {form: redact(f"my key is {write(drawn)} {GOOD}") for form, write in FORMS.items()}
        leftover = re.compile(rf"my key is \S{{0,24}}\*\*\*\S{{0,24}} {re.escape(GOOD)}")
        missed = [form for form, text in redacted.items() if not leftover.fullmatch(text) or echo_spans(text, [drawn])]
        assert not missed, (drawn, missed)
        assert [redact(text) for text in ORDINARY[:-1]] == ORDINARY[:-1], drawn


def _traces(text: str, key: str) -> list[str]:
    """What of `key` is in `text`: a form's distinctive middle, its letters and digits, or an echo of it."""
    found = [form for form, write in FORMS.items() if (shown := write(key))[len(shown) // 2 - 6:][:12] in text]
    bare = skeleton(key.removeprefix("sk-"))[0]
    if bare[-8:] in skeleton(text)[0] or bare[:8] in skeleton(text)[0]:
        found.append("its letters and digits")
    if echo_spans(text, [key]):
        found.append("an echo")
    return found


@pytest.mark.slow
def test_an_echoing_provider_leaves_no_trace_in_the_database_the_page_or_an_export(stub, tmp_path, monkeypatch):
    """A provider answering with the key it was sent, in every form above: the match plays on its answers and
    no form of the key is stored, shown on the transcripts page or written into an exported site."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    stub.responder = lambda request: StubReply(
        "my key is " + " and ".join(write(stub.headers[-1]["authorization"].removeprefix("Bearer "))
                                    for write in FORMS.values()) + f" {GOOD}")
    db = tmp_path / "results.duckdb"
    seat = {"agent": "openai/echo", "api_base": stub.url, "max_tokens": 32}
    spec = {"name": "echoes", "seed": 1, "games": [
        {"game": "guessing_game", "params": {"players": 2, "rounds": 1}, "lineups": [{"all": seat}]}]}
    summary = asyncio.run(run_spec(parse_spec(spec), db, progress=False))
    assert summary.errors == 0, summary.error_messages
    assert stub.headers[-1]["authorization"] == f"Bearer {KEY}"  # it was sent, and echoed...
    responses = [r for (r,) in store.rows(db, "SELECT response FROM turns WHERE seat IS NOT NULL")]
    assert responses == ["my key is " + " and ".join(["***"] * len(FORMS)) + f" {GOOD}"] * 2
    for table in ("runs", "matches", "seats", "turns", "metrics"):
        for row in store.rows(db, f"SELECT * FROM {table}"):
            assert not _traces(" ".join(map(str, row)), KEY), table  # ...and stored nowhere

    match_id = store.rows(db, "SELECT match_id FROM matches")[0][0]
    page = run_page("transcripts", db, monkeypatch, match=match_id, turn="1")
    assert not page.exception
    shown = [e.value for kind in ("code", "markdown", "caption", "text") for e in page.get(kind)]
    shown += [str(v) for df in page.dataframe for v in df.value.to_numpy().ravel()]
    assert any("my key is ***" in text for text in shown)
    assert not [text for text in shown if _traces(text, KEY)]

    site = tmp_path / "site"
    assert main(["export", str(site), "--db", str(db)]) == 0
    written = {path: path.read_text(encoding="utf-8", errors="replace") for path in Path(site).rglob("*")
               if path.is_file() and path.parent.name != "assets"}  # not the libraries the site brings along
    assert any("my key is ***" in text for text in written.values())
    assert not {path.name: _traces(text, KEY) for path, text in written.items() if _traces(text, KEY)}
