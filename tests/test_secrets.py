"""Redaction (engine/secrets.py) is proportionate: a key from the environment whole, without its provider prefix, in
either case, or in pieces that together give ten of its characters (a key leaked four characters per turn, read
over the whole match), and key-shaped tokens; ordinary answers survive untouched. And every path a provider's
text takes to a table, a file or a page (an answer, a 429 with an odd `Retry-After`, a 5xx body, an exception
raised while handling a failure, a timeout, the match's deadline) passes that redaction: a stub echoing the key
leaves it in no table, the response cache, the run's output, the transcripts page or an exported site."""

from __future__ import annotations

import asyncio
import random
import sqlite3
import string
from pathlib import Path

import pytest

from engine import store
from engine.agents import llm
from engine.agents.llm import LLMAgent
from engine.cli.main import main
from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.secrets import redact, redact_together
from engine.testing import StubReply
from tests.page_run import run_page
from tests.test_hostile import ECHOES, traces

KEY = "sk-hostile-test-0123456789abcdef"  # 32 characters: eight pieces of four
GOOD = '{"chosen_number": 7}'
PIECES = [KEY[i:i + 4] for i in range(0, len(KEY), 4)]


@pytest.fixture
def key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    return KEY


@pytest.mark.parametrize("echo", sorted(ECHOES))
def test_a_key_whole_without_its_prefix_in_another_case_or_split_is_redacted(key, echo):
    redacted = redact(f"my key is {ECHOES[echo](key)} {GOOD}")
    assert redacted.startswith("my key is ***") and redacted.endswith(f" {GOOD}") and not traces(redacted, key)


def test_a_key_leaked_a_few_characters_per_turn_is_redacted_over_the_match(key):
    """Each answer alone holds four characters of the key, under the ten that mark one; the match's answers read
    together hold all of it."""
    answers = [f"part {i}: {piece} {GOOD}" for i, piece in enumerate(PIECES)]
    assert [redact(answer) for answer in answers] == answers
    assert redact_together(answers) == [f"part {i}: *** {GOOD}" for i in range(len(PIECES))]
    assert redact_together(answers[:2]) == answers[:2]  # eight characters: short of the ten


@pytest.mark.parametrize("shaped", ["sk-proj-abcdefghijklmnop", "ghp_R2d9abcdefghijklmnopqrstuvwxyz012345",
                                    "AKIAABCDEFGHIJKLMNOP", "Bearer abcdefghijklmnop0123"])
def test_a_key_shaped_token_not_in_the_environment_is_redacted(key, shaped):
    assert redact(f"a key: {shaped} here") == "a key: *** here"


def test_a_short_secret_is_redacted_whole_and_its_pieces_with_it(monkeypatch):
    monkeypatch.setenv("GROQ_API_KEY", "gsk-abc9")  # shorter than the ten characters a piece must give
    monkeypatch.setenv("SERVICE_TOKEN", "tok-7f3a")
    assert redact("keys gsk-abc9 and tok-7f3a") == "keys *** and ***"
    assert redact("not gsk-abc or 7f3a") == "not gsk-abc or 7f3a"  # short of the whole key
    assert redact("tok-7f3a, then 7f3a") == "***, then ***"  # once it is given, a piece of it goes too
    monkeypatch.setenv("DB_PASSWORD", "пароль-тест")  # no run of four ASCII characters: found whole
    assert redact("it is пароль-тест.") == "it is ***."


ORDINARY = [
    GOOD,
    "I choose 7: the average of 1234 and 5678 is 3456, two thirds of it 2304.",
    '{"reason": "caf\\u00e9 na\\u00efve \\u2014 I defect", "move": "D", "path": "C:\\\\games\\\\n1"}',
    "&lt;b&gt;bold&lt;/b&gt; &amp; &#169; 2026 &nbsp; AT&T https://example.com/search?q=hello%20world",
    "Я выбираю число семь. Επιλέγω τον αριθμό επτά. １２３ ＡＢＣ Łódź 👍🏽",
    "X|O|X\n-+-+-\nO|X|O\n-+-+-\n |X| ",
    "0xdeadbeef sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    f"not it: {KEY[:9]} and {KEY[-9:]}, each short of ten characters",
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


def test_any_key_in_any_of_its_forms_is_redacted_and_ordinary_answers_are_not(monkeypatch):
    for drawn in random_keys(40):
        monkeypatch.setenv("OPENAI_API_KEY", drawn)
        missed = [echo for echo, write in ECHOES.items() if traces(redact(f"my key is {write(drawn)} {GOOD}"), drawn)]
        assert not missed, (drawn, missed)
        assert [redact(text) for text in ORDINARY[:-1]] == ORDINARY[:-1], drawn


# What the stub does for each model: every path a provider's text takes to what the arena writes
def _odd_retry_after(n: int, key: str) -> StubReply:  # the call after it must be made: it is no error
    return StubReply(f"slow down, {key}", status=429, headers={"Retry-After": "soon"}) if n == 1 else StubReply(GOOD)


PATHS = {
    "odd-retry-after": _odd_retry_after,
    "server-error": lambda n, key: StubReply(f"upstream failed for {key}", status=503),
    "handler-raises": lambda n, key: StubReply(f"handler food {key}", status=429),
    "timeout-then-error": lambda n, key: StubReply(GOOD, delay=1.0) if n == 1 else
    StubReply(f"overloaded: {key}", status=503),
    "deadline": lambda n, key: StubReply(f"try later, {key.removeprefix('sk-')}", status=503, delay=0.4),
    "fragments": lambda n, key: StubReply(f"part: {PIECES[(n - 1) % len(PIECES)]} {GOOD}"),
    "echo": lambda n, key: StubReply(f"my key is {key}, or {key.removeprefix('sk-').upper()} {GOOD}"),
}
FAILING = {"server-error", "handler-raises", "timeout-then-error", "deadline"}


def quick_agent(spec, limits=None, **_):
    """Test-sized waits; the `deadline` seat retries on until the match's deadline cuts it."""
    retries = 100 if spec.agent.endswith("/deadline") else 2
    return LLMAgent(spec, limits, timeout=5.0, first_byte_timeout=0.3, transport_retries=retries,
                    backoff_base=0.01, backoff_cap=0.02)


@pytest.mark.slow
def test_no_failure_path_leaves_the_key_in_a_table_a_file_or_a_page(stub, tmp_path, monkeypatch, capfd, key):
    calls: dict[str, int] = {}

    def provider(request):
        model = request["model"].removeprefix("openai/")
        calls[model] = calls.get(model, 0) + 1
        return PATHS[model](calls[model], stub.headers[-1]["authorization"].removeprefix("Bearer "))

    read_wait = llm.retry_after

    def raising_handler(exc):  # what raised inside the retry handler once: the failure's text in its message
        if "handler food" in str(exc):
            raise RuntimeError(f"could not read the wait of {exc}")
        return read_wait(exc)

    monkeypatch.setattr(llm, "retry_after", raising_handler)
    monkeypatch.setenv("ARENA_CACHE", str(tmp_path / "responses.sqlite"))
    stub.responder = provider
    seat = {"api_base": stub.url, "max_tokens": 32}
    spec = {"name": "leaks", "seed": 1, "match_deadline_s": 3, "games": [
        # the stub wraps its answer in prose around the key: the arena's lenient reading finds it there
        {"game": "guessing_game", "params": {"players": 2, "rounds": 1, "reading": "lenient"},
         "lineups": [{"all": seat | {"agent": f"openai/{model}"}} for model in PATHS if model != "fragments"]},
        {"game": "guessing_game", "params": {"players": 2, "rounds": 4, "reading": "lenient"},
         "lineups": [{"all": seat | {"agent": "openai/fragments"}}]}]}
    db = tmp_path / "results.duckdb"
    summary = asyncio.run(run_spec(parse_spec(spec), db, progress=False, agent_factory=quick_agent))
    assert stub.headers[-1]["authorization"] == f"Bearer {KEY}"  # it was sent, and echoed...

    matches = dict(store.rows(db, "SELECT s.agent, m.status FROM matches m JOIN seats s USING (match_id) "
                                  "WHERE s.seat = 0"))
    assert matches == {f"openai/{model}": "error" if model in FAILING else "ok" for model in PATHS}
    assert summary.errors == len(FAILING)
    retried = store.rows(db, "SELECT sum(t.call_errors) FROM turns t JOIN seats s ON s.match_id = t.match_id "
                             "AND s.seat = t.seat WHERE s.agent = 'openai/odd-retry-after'")[0][0]
    assert retried >= 1  # the 429 with `Retry-After: soon` was waited on and asked again

    leaks = {}
    for table in ("runs", "matches", "seats", "turns", "metrics"):
        leaks |= {f"{table} row {i}": found for i, row in enumerate(store.rows(db, f"SELECT * FROM {table}"))
                  if (found := traces(" ".join(map(str, row)), KEY))}
    said = store.rows(db, "SELECT t.response FROM turns t JOIN seats s ON s.match_id = t.match_id AND s.seat = t.seat "
                          "WHERE s.agent = 'openai/fragments' ORDER BY t.turn")
    together = " ".join(text for (text,) in said)
    assert len(said) == len(PIECES) and together.count("part: ***") == len(PIECES)
    leaks |= {"the fragments' answers together": [piece for piece in PIECES if piece in together]} if any(
        piece in together for piece in PIECES) else {}
    cache = (tmp_path / "responses.sqlite").read_bytes().decode("utf-8", errors="replace")
    with sqlite3.connect(tmp_path / "responses.sqlite") as con:
        cache += " ".join(text for (text,) in con.execute("SELECT text FROM responses"))
    leaks |= {"the response cache": found} if (found := traces(cache, KEY)) else {}
    output = capfd.readouterr()
    log = "\n".join([output.out, output.err, *summary.error_messages])
    leaks |= {"the run's output": found} if (found := traces(log, KEY)) else {}

    for match_id, error in store.rows(db, "SELECT match_id, error FROM matches WHERE status = 'error'"):
        assert "***" in error or "deadline" in error, error
        page = run_page("transcripts", db, monkeypatch, match=match_id)
        assert not page.exception
        shown = [str(e.value) for kind in ("code", "markdown", "caption", "text", "error") for e in page.get(kind)]
        shown += [str(v) for df in page.dataframe for v in df.value.to_numpy().ravel()]
        leaks |= {f"the transcripts page of {match_id}": found} if (found := traces(" ".join(shown), KEY)) else {}

    site = tmp_path / "site"
    assert main(["export", str(site), "--db", str(db)]) == 0
    for path in Path(site).rglob("*"):
        if path.is_file() and path.parent.name != "assets":  # not the libraries the site brings along
            found = traces(path.read_text(encoding="utf-8", errors="replace"), KEY)
            leaks |= {f"the exported {path.name}": found} if found else {}
    assert not leaks  # ...and kept nowhere

