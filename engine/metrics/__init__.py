"""Scorers: each suite module (`gamabench`, `magic`, `llmarena`, `wis`) defines
`leaderboard(db) -> pandas.DataFrame`, the suite's table as its paper defines it, computed from
the turn log and the metrics table (never stored)."""

from __future__ import annotations

import importlib
from pathlib import Path

SUITES = ("gamabench", "magic", "llmarena", "wis")


def leaderboard(suite: str, db: str | Path):
    if suite not in SUITES:
        raise ValueError(f"unknown suite '{suite}' (known: {', '.join(SUITES)})")
    try:
        module = importlib.import_module(f"engine.metrics.{suite}")
    except ModuleNotFoundError as exc:
        if exc.name == f"engine.metrics.{suite}":
            raise ValueError(f"the '{suite}' suite has no scorer yet") from None
        raise
    return module.leaderboard(Path(db))
