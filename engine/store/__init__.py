"""The results database (DuckDB), one module per job: `schema` (the tables and their columns), `files` (which
file, and whether the arena can use it), `connections` (short-lived connections, waited for while the file is
busy), `upgrades` (an older database brought up to this version), `writer` (runs and finished matches), `summaries`
(the per-agent sums the headline reads, kept in step by the writer) and `reader` (the read helpers the scorers and
pages share). Callers use the names below: `store.query(...)`."""

from engine.store.connections import (
    LONGEST_WAIT,
    READER_MEMORY,
    READER_TIMEOUT,
    connect,
    keeping_open,
    serving_pages,
    stop_reads,
    writer_waiting,
)
from engine.store.files import ROOT, DatabaseError, check_file, default_db
from engine.store.reader import (
    count_matches,
    generation,
    queries_at_once,
    query,
    query_many_rows,
    reading,
    rows,
    stream,
    summaries_in_step,
    temp_table,
)
from engine.store.schema import (
    MATCH_SCHEMA,
    SCHEMA_VERSION,
    TABLES,
    arrow_schema,
    now,
    schema_version,
    to_json,
)
from engine.store.upgrades import check_db, init_db
from engine.store.writer import (
    MatchRecord,
    finish_run,
    match_statuses,
    match_tables,
    rebuild_summaries,
    upsert_run,
    write_match,
    write_matches,
    write_tables,
)

__all__ = [
    "LONGEST_WAIT", "MATCH_SCHEMA", "READER_MEMORY", "READER_TIMEOUT", "ROOT", "SCHEMA_VERSION", "TABLES",
    "DatabaseError", "MatchRecord", "arrow_schema", "check_db", "check_file", "connect", "count_matches",
    "default_db", "finish_run", "generation", "init_db", "keeping_open", "match_statuses", "match_tables", "now",
    "queries_at_once", "query", "query_many_rows", "reading", "rebuild_summaries", "rows", "schema_version",
    "serving_pages", "stop_reads", "stream", "summaries_in_step", "temp_table", "to_json",
    "upsert_run", "write_match", "write_matches", "write_tables", "writer_waiting",
]
