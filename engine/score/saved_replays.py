"""The TrueSkill replays of the unfiltered selections (every game, each game) saved beside the database with the
tables kept there (`<database>.tables/carried-ratings.json`, engine/score/kept_tables.py), so a new process (the
dashboard after a restart) replays only the matches that finished since. A replay saved by other code (the
engine's, `code_version`), or a file that cannot be read, is replayed from the start.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

from engine.score.kept_tables import carried_path, write_whole
from engine.store.code_version import code_version
from engine.store.selection import ALL, Selection

_WRITING = threading.Lock()


@dataclass
class Replayed:
    """Ratings after the matches up to `last` = (finished_at, match_id): `count` matches whose ids and finish
    times hash to `checksum`, so a later call can tell whether the database only grew after `last`; `generation`,
    the database's write stamp then (`store.generation`), so while it has not moved nothing is read again."""

    ratings: dict[str, tuple[float, float]]
    last: tuple | None
    count: int
    checksum: int
    generation: int | None = None

    def to_json(self) -> dict:
        last = None if self.last is None else [self.last[0].isoformat(), self.last[1]]
        return {"ratings": self.ratings, "last": last, "count": self.count, "checksum": str(self.checksum),
                "generation": self.generation, "code": code_version()}

    @classmethod
    def from_json(cls, data: dict) -> Replayed:
        if data.get("code") != code_version():  # replayed by other code: replayed again
            raise ValueError("a replay saved by another version of the code")
        last = None if data["last"] is None else (datetime.fromisoformat(data["last"][0]), data["last"][1])
        return cls({a: (float(mu), float(sigma)) for a, (mu, sigma) in data["ratings"].items()}, last,
                   int(data["count"]), int(data["checksum"]), data.get("generation"))

    def current(self, generation: int, in_step: bool) -> bool:
        """Whether this replay is of the database as it is: no write since (its generation), and no rows inserted
        around the writer, which bump no generation but leave the summaries out of step (`store.summaries_in_step`)."""
        return in_step and self.generation == generation


def saved_replays_path(db: str | Path) -> Path:
    """Where the replays of the unfiltered selections (every game, each game) outlive the process: beside the
    database, so the first dashboard view after a restart replays only what finished since (the engine's `run`
    command brings it up to date after every run)."""
    return carried_path(db, "ratings")


def saved_replay(selection: Selection) -> bool:
    """Whether the replay of this selection is saved (and kept current by the run command): a first view of
    it costs only the matches since, where any other selection replays all its matches once per process."""
    return _saved_name(selection) is not None


def _saved_name(selection: Selection) -> str | None:
    """The name of a selection worth saving: every finished match, or those of one game; None for the rest."""
    if replace(selection, games=()) != ALL or len(selection.games) > 1:
        return None
    return selection.games[0] if selection.games else "*"


def load_saved(db: str | Path, selection: Selection) -> Replayed | None:
    name = _saved_name(selection)
    try:
        saved = json.loads(saved_replays_path(db).read_text()) if name else {}
        return Replayed.from_json(saved[name]) if name in saved else None
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None  # absent, unreadable or from another version: replay from the start


def save(db: str | Path, selection: Selection, replayed: Replayed) -> None:
    """Add this replay to the saved ones (`write_whole`: a reader never sees half of the file). A read-only folder
    only costs the next process a full replay."""
    name = _saved_name(selection)
    if name is None:
        return
    path = saved_replays_path(db)
    with _WRITING:
        try:
            saved = json.loads(path.read_text()) if path.exists() else {}
        except (OSError, ValueError):
            saved = {}
        saved[name] = replayed.to_json()
        write_whole(path, json.dumps(saved))

