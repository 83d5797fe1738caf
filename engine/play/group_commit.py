"""Group commit: finished matches wait in memory and are written a batch per transaction.

One transaction per match costs a connection, a commit and a checkpoint each, which capped a run's speed
whatever its concurrency. Here the matches that finished during the last second go in together. The flush runs
in a worker thread while the matches go on playing. The connection is closed between flushes, so the dashboard
can read in the gaps. The last flush happens when the run ends or is interrupted.

A kill -9 loses at most the batch not yet flushed: resuming the run plays those matches again. A match the
database already holds `ok` is not written again (`store.write_matches`); one whose stored attempt failed is
replaced.
"""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from pathlib import Path

from engine import store

FLUSH_EVERY_S = 1.0
# Rows (a match's own, its seats', turns' and metrics') that may wait to be written before the run waits for the
# writer: a database held by a reader, or a flush slower than the matches, must not gather a run in memory.
MAX_PENDING_ROWS = 200_000
# The flush thread shares the GIL with the matches the event loop plays (a bot's move never waits). At Python's
# default switch interval each of a flush's few dozen statements waits for the GIL again and again, so a flush under
# play lags the matches and a kill -9 loses more of them. A shorter interval during a run keeps the flush up; it
# stays for its A/B figure on a bots run (bench/switch_interval.py, docs/RUNNING.md).
SWITCH_INTERVAL_S = 0.0005


class GroupCommit:
    """`async with GroupCommit(db) as writer: writer.add(record)`."""

    def __init__(self, db: str | Path, every: float = FLUSH_EVERY_S):
        self.db = db
        self.every = every
        self.flushes = 0
        self.written = 0  # matches that went in (not those the database held `ok` already)
        self._pending: list[store.MatchRecord] = []
        self._pending_rows = 0
        self._take = threading.Lock()   # guards `_pending`
        self._write = threading.Lock()  # one flush at a time: the final one waits for one still in its thread
        self._ticker: asyncio.Task | None = None
        self._switch_interval = sys.getswitchinterval()  # restored when the writer ends

    def add(self, record: store.MatchRecord) -> None:
        with self._take:
            self._pending.append(record)
            self._pending_rows += _rows(record)
        self._raise_if_failed()

    async def wait_for_room(self) -> None:
        """Return once at most MAX_PENDING_ROWS rows wait to be written: the run plays on only as fast as its
        matches are written, so its memory is bounded by its concurrency, not its length."""
        while self._pending_rows > MAX_PENDING_ROWS:
            self._raise_if_failed()
            await asyncio.sleep(0.05)

    def _raise_if_failed(self) -> None:
        if self._ticker is not None and self._ticker.done() and not self._ticker.cancelled():
            self._ticker.result()  # a flush failed (the database is unwritable): stop the run now, not at its end

    def flush(self) -> int:
        """Write everything pending now, in one transaction; returns how many matches went in. A batch that
        fails goes back in front of the pending ones before the error is raised: a flush cancelled mid-thread
        (the run ending) has nobody to hear its error, and the final flush must still write that batch."""
        with self._write:
            with self._take:
                batch, self._pending, self._pending_rows = self._pending, [], 0
            if not batch:
                return 0
            try:
                written = store.write_matches(self.db, batch)
            except BaseException:
                with self._take:
                    self._pending[:0] = batch
                    self._pending_rows += sum(map(_rows, batch))
                raise
            self.flushes += 1
            self.written += written
            return written

    async def _tick(self) -> None:
        while True:
            started = time.monotonic()
            await asyncio.to_thread(self.flush)
            await asyncio.sleep(max(0.0, self.every - (time.monotonic() - started)))

    async def __aenter__(self) -> GroupCommit:
        self._switch_interval = sys.getswitchinterval()
        sys.setswitchinterval(min(self._switch_interval, SWITCH_INTERVAL_S))
        self._ticker = asyncio.create_task(self._tick())
        return self

    async def __aexit__(self, *exc: object) -> None:
        """Stop the ticker and write the rest, also when the run was cancelled (Ctrl-C, the dashboard's
        Cancel): the final flush is synchronous, so a cancelled task still gets its matches saved. A batch
        the ticker failed to write is back in pending: the final flush tries it again and raises if the
        database is still unwritable (a passing failure loses nothing and fails nothing)."""
        if self._ticker is not None:
            self._ticker.cancel()
            try:
                await self._ticker
            except asyncio.CancelledError:
                pass
            except Exception:  # noqa: BLE001 - its batch is retried just below, which raises if it fails again
                pass
        try:
            self.flush()
        finally:
            sys.setswitchinterval(self._switch_interval)


def _rows(record: store.MatchRecord) -> int:
    return 1 + len(record.seats) + len(record.turns) + len(record.metrics)
