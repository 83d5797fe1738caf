"""A run's progress on the terminal or in a log. On a terminal: tqdm's bar, redrawn in place. Anywhere else (a
log file, `make run | tee`, the Launch page's run log) a bar of carriage returns is noise, and tqdm prints
nothing at all there: `LogProgress` prints a plain line instead, at the start, whenever `interval` seconds
have passed (even while no match finishes: a heartbeat thread), and at the end."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any, TextIO

from engine.wording import count, usd

INTERVAL = 5.0  # seconds between two lines of a log
FIGURES = ("errors", "turns", "tokens", "usd")  # what a run's line counts besides the matches done


class LogProgress:
    """tqdm's `update` / `set_postfix` / `close`, written as one line every `interval` seconds."""

    def __init__(self, total: int, initial: int, name: str, interval: float = INTERVAL, out: TextIO | None = None,
                 clock: Callable[[], float] = time.monotonic, heartbeat: bool = True, shown: tuple[str, ...] = FIGURES):
        self.total, self.done, self.name, self.interval, self.shown = total, initial, name, interval, shown
        self.out, self.clock = out or sys.stdout, clock
        self.figures: dict[str, Any] = {}
        self.started = self.printed = clock()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.write()
        self._beat = threading.Thread(target=self._heartbeat, daemon=True) if heartbeat else None
        if self._beat:
            self._beat.start()

    def line(self) -> str:
        f = self.figures
        figures = {"errors": count(f.get("errors", 0), "error"), "turns": count(f.get("turns", 0), "turn"),
                   "tokens": count(f.get("tokens", 0), "token"), "usd": usd(f.get("usd", 0.0))}
        parts = [f"{self.done:,} of {count(self.total, 'match')} done", *(figures[k] for k in self.shown)]
        return f"{datetime.now():%H:%M:%S} {self.name}: {', '.join(parts)} ({self.clock() - self.started:.0f} s)"

    def write(self) -> None:
        with self._lock:
            self.printed = self.clock()
            print(self.line(), file=self.out, flush=True)

    def tick(self) -> None:
        """A line if the last one is `interval` old."""
        if self.clock() - self.printed >= self.interval:
            self.write()

    def update(self, n: int = 1) -> None:
        self.done += n
        self.tick()

    def set_postfix(self, refresh: bool = False, **figures: Any) -> None:  # noqa: ARG002 - tqdm's signature
        self.figures.update(figures)

    def close(self) -> None:
        self._stop.set()
        if self._beat:
            self._beat.join()
        self.write()

    def _heartbeat(self) -> None:
        while not self._stop.wait(self.interval / 2):
            self.tick()


def match_progress(total: int, initial: int, name: str, enabled: bool, shown: tuple[str, ...] = FIGURES):
    """tqdm's bar when its stream (stderr) is a terminal, else a `LogProgress` on stdout (its line counting the
    `shown` figures); None when not `enabled`."""
    if not enabled:
        return None
    if sys.stderr.isatty():
        from tqdm import tqdm

        return tqdm(total=total, initial=initial, desc=name, unit="match")
    return LogProgress(total, initial, name, shown=shown)
