"""Bounded memory: the WiS scorers hand pandas one row per agent and role, never the seats (at 79k games
the seats were 1 GB as a frame); the dashboard's RSS at scale is printed by bench/dashboard.py."""

from __future__ import annotations

import asyncio

import pytest

from engine import store
from engine.papers.wis import scores as wis
from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.store import connections

pytestmark = pytest.mark.slow


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


def test_the_magic_scorers_read_aggregates_not_seats(db_path, monkeypatch):
    """MAgIC's profile and its social half: one row per challenger leaves DuckDB as a frame or list; read from
    the log, the seat summary's rows (belief probes included) are computed by its parts (`agent_figures.LOGGED_PART`
matches each)."""
    from engine.papers.magic import abilities as magic
    from engine.papers.magic import social as magic_social
    from engine.score import agent_figures

    def hero(bot, label):
        return {"challenger": {"agent": bot, "label": label}, "others": "bot:letters"}

    raw = {"name": "magic", "seed": 2, "repeats": 3, "games": [
        {"game": "chameleon", "lineups": [hero("bot:letters", "A"), hero("bot:random", "B")]},
        {"game": "undercover", "preset": "magic", "lineups": [hero("bot:letters", "A")]},
        {"game": "prisoners_dilemma", "lineups": [{"challenger": {"agent": "bot:random", "label": "B"},
                                                   "others": "bot:tit_for_tat"}]}]}
    asyncio.run(run_spec(parse_spec(raw), db_path, progress=False))
    n_seats = store.rows(db_path, "SELECT count(*) FROM seats")[0][0]
    largest, parts = [], []
    real_query, real_rows, real_part_rows = store.query, store.rows, agent_figures._part_rows

    def counting(real):
        def call(db, sql, params=None):
            out = real(db, sql, params)
            largest.append(len(out))
            return out
        return call

    def counted_part(*args):
        parts.append(args[0])
        return real_part_rows(*args)

    monkeypatch.setattr(store, "query", counting(real_query))
    monkeypatch.setattr(store, "rows", counting(real_rows))
    monkeypatch.setattr(agent_figures, "_part_rows", counted_part)
    monkeypatch.setattr(store, "summaries_in_step", lambda db: False)  # the seat summary's rows from the log
    profile = magic.ability_profile(db_path)
    social = magic_social.social_abilities(db_path)
    assert n_seats > 50 and sorted(profile.agent) == sorted(social.agent) == ["A · bot:letters", "B · bot:random"]
    assert max(largest) <= 2, "the seats stayed in DuckDB: one row per challenger came out"
    assert "seat_summary" in parts and profile["Reasoning (0-100)"].notna().all()


def test_the_negotiation_scorers_read_aggregates_not_seats(db_path, monkeypatch):
    """LLMArena's Bargain and Bid tables: one row per agent and strategy leaves DuckDB, never the seats."""
    from engine.papers.llmarena.negotiation import bargain_table, bid_table

    raw = {"name": "nego", "seed": 3, "repeats": 6, "games": [
        {"game": "bid", "lineups": [["bot:equilibrium", "bot:truthful"], ["bot:truthful", "bot:truthful"]]},
        {"game": "bargain", "lineups": [["bot:fair", "bot:always_accept"], ["bot:greedy", "bot:greedy"]]}]}
    asyncio.run(run_spec(parse_spec(raw), db_path, progress=False))
    largest = []
    real_query, real_rows = store.query, store.rows

    def counting(real):
        def call(db, sql, params=None):
            out = real(db, sql, params)
            largest.append(len(out))
            return out
        return call

    monkeypatch.setattr(store, "query", counting(real_query))
    monkeypatch.setattr(store, "rows", counting(real_rows))
    bid, bargain = bid_table(db_path).set_index("agent"), bargain_table(db_path).set_index("agent")
    assert max(largest) <= 3, "one row per agent came out of DuckDB, not the 24 seats of each game"
    assert bid["games"].to_dict() == {"bot:truthful": 18, "bot:equilibrium": 6}
    assert bid.loc["bot:truthful", "bid_deviation"] == 1.0 and bid.loc["bot:truthful", "bid_deviation_median"] == 1.0
    assert bid["win_rate"].sum() == pytest.approx(1.0)  # over the contested matches only: self-play left out
    assert bargain.loc["bot:greedy", "games"] == 12 and bargain.loc["bot:greedy", "agreement_rate"] == 0.0
    assert bargain.index[0] == "bot:fair" and 0 < bargain.loc["bot:fair", "reward_share"] <= 1  # best reward first


def test_a_readers_block_cache_is_bounded(db_path, monkeypatch):
    """DuckDB caches what it reads up to 80% of the machine's memory unless told otherwise: a dashboard page scanning
    a large turn log would keep it all (bench/dashboard.py prints the dashboard's RSS on 200k matches)."""
    monkeypatch.delenv(connections.READER_MEMORY_ENV, raising=False)  # a served dashboard's bound: another test's
    store.init_db(db_path)
    with store.connect(db_path, read_only=True) as con:
        limit = con.execute("SELECT current_setting('memory_limit')").fetchone()[0]
    assert limit == "244.1 MiB", limit  # store.READER_MEMORY, 256 MB, as DuckDB prints it
