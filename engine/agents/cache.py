"""Our own response cache (litellm's disk cache breaks on a hit here): an SQLite file, by default
`.cache/responses.sqlite` at the repository root, `$ARENA_CACHE` to move it, `ARENA_CACHE=off` to
turn it off.

An entry is keyed on the model, its endpoint, the exact messages, the sampling parameters and the
sample key (match seed, seat, turn): re-running a spec replays every answer for free, a changed
prompt or temperature misses, and a killed run that is resumed re-asks nothing already answered
(every answer is stored the moment it arrives, not when its match ends). Not the results database:
DuckDB allows one writer per file. WAL mode lets several runs share the file.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.agents.usage import call_cost, token_count
from engine.secrets import ROOT

DEFAULT_PATH = ROOT / ".cache" / "responses.sqlite"
OFF = {"", "0", "off", "none", "false", "no"}

SCHEMA = """
CREATE TABLE IF NOT EXISTS responses(
  key TEXT PRIMARY KEY, model TEXT NOT NULL, text TEXT NOT NULL, tokens_in INTEGER NOT NULL,
  tokens_out INTEGER NOT NULL, cost_usd REAL, created_at REAL NOT NULL)
"""


@dataclass(frozen=True)
class CachedReply:
    text: str
    tokens_in: int | None  # None: unknown (kept as -1 in the file, whose columns are NOT NULL)
    tokens_out: int | None
    cost_usd: float | None  # what the answer cost when it was first bought


def _known(count: int | None) -> int:
    return -1 if count is None else count


def cache_key(model: str, api_base: str | None, messages: list[dict[str, Any]], params: dict[str, Any],
              sample: tuple[int, int, int]) -> str:
    payload = {"model": model, "api_base": api_base, "messages": messages, "params": params, "sample": list(sample)}
    return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


class ResponseCache:
    """One SQLite connection per process and file, used from worker threads one at a time."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False, isolation_level=None)
        self._set_up(time.monotonic() + 30.0)

    def _set_up(self, deadline: float) -> None:
        """WAL mode and the table. Processes opening a new file at once (a run's workers) can be told 'database is
        locked' at once, without SQLite's busy wait, while another switches the file to WAL: try again."""
        while True:
            try:
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=NORMAL")
                self._db.execute(SCHEMA)
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def get(self, key: str) -> CachedReply | None:
        with self._lock:
            row = self._db.execute(
                "SELECT text, tokens_in, tokens_out, cost_usd FROM responses WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        text, tokens_in, tokens_out, cost_usd = row
        # checked again on the way out: an entry cached before the checks existed must not break a write
        return CachedReply(text, token_count(tokens_in), token_count(tokens_out), call_cost(cost_usd))

    def put(self, key: str, model: str, reply: CachedReply) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?, ?, ?)",
                (key, model, reply.text, _known(reply.tokens_in), _known(reply.tokens_out), reply.cost_usd,
                 time.time()))

    async def aget(self, key: str) -> CachedReply | None:
        return await asyncio.to_thread(self.get, key)

    async def aput(self, key: str, model: str, reply: CachedReply) -> None:
        await asyncio.to_thread(self.put, key, model, reply)

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT count(*) FROM responses").fetchone()[0]


_open: dict[Path, ResponseCache] = {}
_open_lock = threading.Lock()


def open_cache(path: str | Path) -> ResponseCache:
    """The process's cache for `path` (one connection per file)."""
    resolved = Path(path).resolve()
    with _open_lock:
        if resolved not in _open:
            _open[resolved] = ResponseCache(resolved)
        return _open[resolved]


_shared: tuple[Any] | None = None


@contextmanager
def shared(cache: Any) -> Iterator[None]:
    """Inside the block, `cache` (or None: no cache) is this process's cache whatever `$ARENA_CACHE` says here:
    a Ray worker answers from its driver's cache (`engine.play.ray_executor.RemoteCache`)."""
    global _shared
    before, _shared = _shared, (cache,)
    try:
        yield
    finally:
        _shared = before


def cache_from_env() -> ResponseCache | None:
    """The cache `$ARENA_CACHE` names (default `.cache/responses.sqlite`), or None when it says off."""
    if _shared is not None:
        return _shared[0]
    setting = os.environ.get("ARENA_CACHE")
    if setting is None:
        return open_cache(DEFAULT_PATH)
    if setting.strip().lower() in OFF:
        return None
    return open_cache(setting)
