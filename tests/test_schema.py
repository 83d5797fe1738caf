"""The schema has a version, and a database made by an older version is upgraded in place.

tests/data/schema/v1.duckdb.gz was made by the code of commit 98695bc (schema 1, before versions
existed) playing tests/data/schema/v1_spec.yaml: `python -m engine run v1_spec.yaml --db v1.duckdb`."""

from __future__ import annotations

import asyncio
import gzip
from pathlib import Path

import pytest

from engine import store
from engine.play.runner import run_spec
from engine.play.spec import load_spec

DATA = Path(__file__).parent / "data" / "schema"


@pytest.fixture
def v1_db(tmp_path):
    path = tmp_path / "v1.duckdb"
    path.write_bytes(gzip.decompress((DATA / "v1.duckdb.gz").read_bytes()))
    return path


def columns(db, table: str) -> list[str]:
    return [r[0] for r in store.rows(db, "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
                                         "ORDER BY ordinal_position", [table])]


def version(db) -> int:
    with store.connect(db, read_only=True) as con:
        return store.schema_version(con)


def test_a_version_1_database_is_upgraded_in_place_and_its_run_resumes(v1_db):
    assert version(v1_db) == 1 and "call_errors" not in columns(v1_db, "turns")
    before = store.rows(v1_db, "SELECT match_id, status, seed FROM matches ORDER BY match_id")
    turns_before = store.rows(v1_db, "SELECT count(*) FROM turns")[0][0]
    summary = asyncio.run(run_spec(load_spec(DATA / "v1_spec.yaml"), v1_db, progress=False))
    assert summary.skipped == 4 and summary.played == 0  # the old matches count as done: same run, resumed
    assert version(v1_db) == store.SCHEMA_VERSION
    for table in store.TABLES:
        assert columns(v1_db, table) == [name for name, _ in store.TABLES[table]]
    assert store.rows(v1_db, "SELECT match_id, status, seed FROM matches ORDER BY match_id") == before
    assert store.rows(v1_db, "SELECT count(*), count(call_errors) FROM turns")[0] == (turns_before, 0)
    assert store.rows(v1_db, "SELECT status, pid IS NOT NULL FROM runs") == [("ok", True)]


def test_the_dashboards_check_upgrades_an_old_database_too(v1_db):
    store.check_db(v1_db)
    assert version(v1_db) == store.SCHEMA_VERSION
    store.check_db(v1_db)  # a current database is left as it is
    assert store.rows(v1_db, "SELECT count(*) FROM schema_version")[0][0] == 1


def test_a_pages_shared_connection_upgrades_an_old_database_before_it_reads(v1_db):
    """app.py opens a reading page's one connection with the file check: an older schema is upgraded (a write,
    with the connection closed meanwhile), then every query of the page reads the upgraded file through it."""
    with store.reading(v1_db, check=True):
        assert "call_errors" in columns(v1_db, "turns") and store.count_matches(v1_db) == 4
    assert version(v1_db) == store.SCHEMA_VERSION


def test_the_table_definitions_make_both_the_ddl_and_the_arrow_schemas(db_path):
    store.init_db(db_path)
    for table, cols in store.TABLES.items():
        assert columns(db_path, table) == [name for name, _ in cols]
        assert store.arrow_schema(table).names == [name for name, _ in cols]
    types = dict(store.rows(db_path, "SELECT column_name, data_type FROM information_schema.columns "
                                     "WHERE table_name = 'matches'"))
    assert types["seed"] == "BIGINT" and types["params"] == "JSON"
    assert store.MATCH_SCHEMA.field("seed").type == "int64"
