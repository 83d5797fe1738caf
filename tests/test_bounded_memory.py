"""Bounded memory: the WiS scorers hand pandas one row per agent and role, never the seats (at 79k games
the seats were 1 GB as a frame); the dashboard's RSS at scale is printed by bench/dashboard.py."""

from __future__ import annotations

import asyncio

from engine import store
from engine.metrics import wis
from engine.runner import run_spec
from engine.spec import parse_spec


def test_the_wis_scorers_read_aggregates_not_seats(db_path, monkeypatch):
    mixed = ["bot:random", "bot:letters", "bot:letters", "bot:random", "bot:letters", "bot:letters"]
    raw = {"name": "wis", "seed": 1, "repeats": 8, "games": [
        {"game": "undercover", "preset": "wis", "lineups": [{"all": "bot:letters"}, mixed]}]}
    asyncio.run(run_spec(parse_spec(raw), db_path, progress=False))
    n_seats = store.rows(db_path, "SELECT count(*) FROM seats")[0][0]
    largest = []
    real_query = store.query

    def counting(db, sql, params=None):
        frame = real_query(db, sql, params)
        largest.append(len(frame))
        return frame

    monkeypatch.setattr(store, "query", counting)
    board = wis.leaderboard(db_path)
    figures = wis.figures_by_role(db_path)
    assert n_seats == 16 * 6 and len(board) == 2 and len(figures) == 2 * 3
    assert max(largest) <= 2 * 3  # two agents, three roles: the seats stayed in DuckDB
    assert board["games"].sum() == n_seats and figures.loc[figures.role == "all", "games"].sum() == n_seats
