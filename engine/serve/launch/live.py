"""Inside a launched run's process: progress at the level of turns. The database only learns of a match when
it ends (a match is written whole), so while long LLM matches play, this process counts each decision's
turn, tokens and dollars (told by the runner, from here or from Ray's workers) and rewrites a small JSON file
beside the run's log (and a line in the log) at most once per `interval`; the Launch page reads both while
the run plays."""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from engine.play.playing import TurnNote
from engine.wording import count, usd


@dataclass
class TurnTally:
    """Decisions made so far by this process (a resumed run counts again from zero)."""

    path: Path
    interval: float = 1.0
    turns: int = 0
    llm_turns: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    unpriced_calls: int = 0
    reasks: int = 0
    fallbacks: int = 0
    matches_started: int = 0
    status: str = "playing"
    _matches: set[str] = field(default_factory=set, repr=False)
    _written: float = field(default=0.0, repr=False)

    def record(self, note: TurnNote) -> None:
        self.turns += 1
        if note.match_id not in self._matches:
            self._matches.add(note.match_id)
            self.matches_started = len(self._matches)
        if note.llm:
            self.llm_turns += 1
            self.tokens_in += note.tokens_in or 0  # None: the provider gave no believable count
            self.tokens_out += note.tokens_out or 0
            if note.cost_usd is None:
                self.unpriced_calls += 1
            else:
                self.cost_usd += note.cost_usd
        self.reasks += note.retries
        self.fallbacks += int(note.fallback)
        if time.monotonic() - self._written >= self.interval:
            self.write()

    def figures(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if not k.startswith("_") and k not in ("path", "interval")}

    def line(self) -> str:
        unpriced = f" + {count(self.unpriced_calls, 'unpriced call')}" if self.unpriced_calls else ""
        return (f"{datetime.now():%H:%M:%S} {self.status}: {count(self.turns, 'turn')} in "
                f"{count(self.matches_started, 'match')}, {count(self.tokens_in + self.tokens_out, 'token')}, "
                f"{usd(self.cost_usd)}{unpriced}, {count(self.reasks, 're-ask')}, {count(self.fallbacks, 'fallback')}")

    def write(self, status: str | None = None) -> None:
        """Replace the progress file (atomically: a reader never sees half of it) and log one line."""
        self.status = status or self.status
        self._written = time.monotonic()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_suffix(".tmp")
        partial.write_text(json.dumps(self.figures() | {"updated_at": datetime.now().isoformat(timespec="seconds")}),
                           encoding="utf-8")
        os.replace(partial, self.path)
        print(self.line(), flush=True)


def read_progress(path: Path) -> dict[str, Any] | None:
    """The last figures a run's process wrote, or None (never launched from here, or not started yet)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
