"""Hostile endpoints, on a raw socket server (no http.server: it decides byte by byte what goes out).

The model string picks the behaviour: `trickle` sends a valid reply a byte at a time, never silent
long enough for a read timeout; `flood` answers 2 MB; `liar` claims 3e9 prompt tokens; `echo...` puts
the caller's API key in its answer (as it is, without its prefix, upper-cased, in pieces); `hang` reads the
request and never answers. A `-once` suffix misbehaves on the first call of each turn only. Every match must
end within its deadline: the failed calls counted on the turn and retried, or the match in error, never a
hang or a crash."""

from __future__ import annotations

import asyncio
import json
import socket
import sqlite3
import threading
import time

import pytest

from engine import store
from engine.agents.llm import LLMAgent, load_litellm
from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.testing import StubReply

pytestmark = pytest.mark.slow

DEADLINE = 1.0
RETRIES = 1
GOOD = '{"chosen_number": 7}'
KEY = "sk-hostile-test-0123456789abcdef"


# How an endpoint or a model gave the key back (the probe's echoes): what redaction is proportionate to
ECHOES = {
    "echo": lambda key: key,
    "echo-bare": lambda key: key.removeprefix("sk-"),
    "echo-upper": str.upper,
    "echo-split-lines": lambda key: "\n".join(key[i:i + 5] for i in range(0, len(key), 5)),
    "echo-head": lambda key: key[:-3],
    "echo-middle": lambda key: key[5:25],
    "echo-dashes": lambda key: "-".join(key[i:i + 4] for i in range(0, len(key), 4)),
}


def traces(text: str, key: str, window: int = 10) -> list[str]:
    """The pieces of `key` of `window` characters that `text` holds, in either case."""
    folded, key = text.lower(), key.lower()
    return [key[i:i + window] for i in range(len(key) - window + 1) if key[i:i + window] in folded]


def _body(content: str, prompt_tokens: float = 10) -> bytes:
    return json.dumps({
        "id": "x", "object": "chat.completion", "created": 0, "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 5, "total_tokens": 15},
    }).encode()


def _head(length: int) -> bytes:
    return f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {length}\r\n\r\n".encode()


class HostileServer:
    """Answers POST /v1/chat/completions according to the model name; counts calls per behaviour."""

    def __init__(self):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.calls: dict[str, int] = {}
        self.seen: set[str] = set()
        self.lock = threading.Lock()
        self.open = True
        threading.Thread(target=self._serve, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"

    def _serve(self) -> None:
        while self.open:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        with conn:
            try:
                while self.open:
                    request = self._read_request(conn)
                    if request is None:
                        return
                    self._answer(conn, request)
            except OSError:  # the client gave up on us: that is the point
                return

    @staticmethod
    def _read_request(conn: socket.socket) -> dict | None:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                return None
            data += chunk
        head, body = data.split(b"\r\n\r\n", 1)
        headers = dict(line.split(": ", 1) for line in head.decode().split("\r\n")[1:] if ": " in line)
        length = int({k.lower(): v for k, v in headers.items()}.get("content-length", 0))
        while len(body) < length:
            body += conn.recv(65536)
        return json.loads(body) | {"_auth": {k.lower(): v for k, v in headers.items()}.get("authorization", "")}

    def _answer(self, conn: socket.socket, request: dict) -> None:
        model = request["model"]
        question = json.dumps(request["messages"])
        with self.lock:
            self.calls[model] = self.calls.get(model, 0) + 1
            asked_before = question in self.seen
            self.seen.add(question)
        behaviour = model.removesuffix("-once")
        if model.endswith("-once") and asked_before:  # the retry of the same question is answered well
            behaviour = "good"
        if behaviour == "hang":
            while self.open:
                time.sleep(0.05)
            return
        if behaviour == "trickle":
            body = _body(GOOD + " " * 2000)
            conn.sendall(_head(len(body)))
            for byte in body:
                if not self.open:
                    return
                conn.sendall(bytes([byte]))
                time.sleep(0.02)
            return
        key = request["_auth"].removeprefix("Bearer ")
        content = {"flood": "x" * 2_000_000}.get(behaviour, GOOD)
        if behaviour in ECHOES:
            content = f"my key is {ECHOES[behaviour](key)} {GOOD}"
        body = _body(content, prompt_tokens=3e9 if behaviour == "liar" else 10)
        conn.sendall(_head(len(body)) + body)

    def close(self) -> None:
        self.open = False
        self.sock.close()


@pytest.fixture
def hostile():
    server = HostileServer()
    yield server
    server.close()


@pytest.fixture
def key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    return KEY


def strict_agent(spec, limits=None, **_):
    return LLMAgent(spec, limits, timeout=DEADLINE, connect_timeout=0.5, first_byte_timeout=0.5,
                    transport_retries=RETRIES, backoff_base=0.01, backoff_cap=0.02, max_answer_chars=100_000)


def play(url: str, model: str, db, decisions: int = 2):
    seat = {"agent": f"openai/{model}", "api_base": url, "temperature": 0.0}
    raw = {"name": model, "seed": 1, "games": [{"game": "guessing_game",  # the key echoed in prose around the JSON
                                                  "params": {"players": 2, "rounds": 1, "reading": "lenient"},
                                                  "lineups": [{"all": seat}]}]}
    load_litellm()  # its import (seconds, once) is not part of a call
    start = time.monotonic()
    summary = asyncio.run(run_spec(parse_spec(raw), db, progress=False, agent_factory=strict_agent))
    return summary, time.monotonic() - start


def decisions_of(db):
    return store.query(db, "SELECT response, tokens_in, cost_usd, call_errors, cached FROM turns "
                           "WHERE seat IS NOT NULL ORDER BY turn")


# one call per attempt, every attempt cut at the deadline, a short backoff between them; twice that on a loaded
# machine (5.4 s against 5.0 in a CI run beside other work) is still far from what no deadline would take (a trickled
# answer takes 42 s a call, a hang forever)
WORST_CASE = 2 * ((RETRIES + 1) * DEADLINE + 3.0)


@pytest.mark.parametrize("model", ["hang", "trickle", "flood"])
def test_an_endpoint_that_always_misbehaves_errors_the_match_within_its_deadline(hostile, db_path, model):
    summary, elapsed = play(hostile.url, model, db_path)
    assert summary.errors == 1
    assert elapsed < WORST_CASE
    error = store.rows(db_path, "SELECT error FROM matches")[0][0]
    assert ("Timeout" if model != "flood" else "the cap on an answer") in error
    # retried, then gave up: the agent says so (on a loaded machine a call can time out before the server has read
    # it, so the server's count is only a bound); the other seat's calls may be cut short by the deadline
    assert f"failed after {RETRIES + 1} attempt(s)" in error, error
    assert hostile.calls.get(model, 0) <= 2 * (RETRIES + 1)


@pytest.mark.parametrize("model", ["hang-once", "trickle-once", "flood-once"])
def test_a_misbehaving_call_is_counted_on_the_turn_and_retried(hostile, db_path, model):
    summary, elapsed = play(hostile.url, model, db_path)
    assert summary.errors == 0, summary.error_messages
    assert elapsed < WORST_CASE + DEADLINE
    turns = decisions_of(db_path)
    assert list(turns["call_errors"]) == [1, 1] and (turns["response"] == GOOD).all()


def test_a_provider_lying_about_usage_is_recorded_as_unknown_not_a_crash(hostile, db_path):
    summary, _ = play(hostile.url, "liar", db_path)
    assert summary.errors == 0, summary.error_messages
    turns = decisions_of(db_path)
    assert turns["tokens_in"].isna().all() and turns["cost_usd"].isna().all()


def test_a_cached_reply_that_broke_a_write_cannot_break_it_again(hostile, tmp_path, monkeypatch):
    cache = tmp_path / "responses.sqlite"
    monkeypatch.setenv("ARENA_CACHE", str(cache))
    summary, _ = play(hostile.url, "good", tmp_path / "first.duckdb")
    assert summary.errors == 0
    with sqlite3.connect(cache) as con:  # what the cache held before counts were checked
        con.execute("UPDATE responses SET tokens_in = 3000000000, cost_usd = 1e300")
    summary, _ = play(hostile.url, "good", tmp_path / "second.duckdb")
    assert summary.errors == 0, summary.error_messages
    turns = decisions_of(tmp_path / "second.duckdb")
    assert turns["cached"].all() and turns["tokens_in"].isna().all()
    assert hostile.calls["good"] == 2  # the second run replayed the cache


def test_a_key_echoed_in_an_answer_reaches_neither_the_cache_nor_the_database(hostile, tmp_path, monkeypatch, key):
    cache = tmp_path / "responses.sqlite"
    monkeypatch.setenv("ARENA_CACHE", str(cache))
    db = tmp_path / "results.duckdb"
    summary, _ = play(hostile.url, "echo", db)
    assert summary.errors == 0, summary.error_messages
    assert hostile.calls["echo"] == 2
    responses = list(decisions_of(db)["response"])
    assert all("my key is ***" in r for r in responses)
    for path in (db, cache):
        assert KEY.encode() not in path.read_bytes()
    with sqlite3.connect(cache) as con:
        assert all(KEY not in text for (text,) in con.execute("SELECT text FROM responses"))


@pytest.mark.parametrize("echo", sorted(set(ECHOES) - {"echo"}))
def test_a_key_echoed_in_another_form_is_redacted_before_the_cache_and_the_database(hostile, tmp_path, monkeypatch,
                                                                                    key, echo):
    cache = tmp_path / "responses.sqlite"
    monkeypatch.setenv("ARENA_CACHE", str(cache))
    db = tmp_path / "results.duckdb"
    summary, _ = play(hostile.url, echo, db)
    assert summary.errors == 0, summary.error_messages
    responses = list(decisions_of(db)["response"])
    assert len(responses) == 2 and all(r.startswith("my key is ***") and r.endswith(f" {GOOD}") for r in responses)
    with sqlite3.connect(cache) as con:
        cached = [text for (text,) in con.execute("SELECT text FROM responses")]
    stored = [str(v) for row in store.rows(db, "SELECT * FROM turns") for v in row]
    assert cached and not [text for text in cached + stored if traces(text, KEY)]


@pytest.mark.parametrize("count", [12.5, "12", "many", [1]])
def test_an_odd_token_count_is_stored_as_unknown_and_the_match_plays(stub, db_path, count):
    """litellm refused a whole OpenAI-style answer over a count of 12.5 (retried, then the match errored)."""
    stub.responder = lambda request: StubReply(GOOD, prompt_tokens=count, completion_tokens=count)
    raw = {"name": "odd", "seed": 1, "games": [{"game": "guessing_game", "params": {"players": 2, "rounds": 1},
                                                "lineups": [{"all": {"agent": "openai/m", "api_base": stub.url}}]}]}
    summary = asyncio.run(run_spec(parse_spec(raw), db_path, progress=False, agent_factory=strict_agent))
    assert summary.errors == 0, summary.error_messages
    turns = decisions_of(db_path)
    assert list(turns["response"]) == [GOOD] * 2 and (turns["call_errors"] == 0).all()
    assert turns["tokens_in"].isna().all() and turns["cost_usd"].isna().all()
    assert store.rows(db_path, "SELECT tokens_out FROM turns WHERE seat IS NOT NULL") == [(None,), (None,)]
