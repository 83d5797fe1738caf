"""The tables and their columns, written once: the DDL and the Arrow schemas the writer appends with both come
from here, with the schema version an upgrade brings an older database to and the form values are stored in."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import duckdb
import pyarrow as pa

from engine.store.summary_keys import BY_DAY

TABLES: dict[str, tuple[tuple[str, str], ...]] = {
    "runs": (
        ("run_id", "VARCHAR"), ("name", "VARCHAR"), ("spec", "JSON"), ("source", "VARCHAR"), ("status", "VARCHAR"),
        ("created_at", "TIMESTAMP"), ("finished_at", "TIMESTAMP"), ("n_matches", "INTEGER"), ("n_done", "INTEGER"),
        ("pid", "INTEGER"), ("host", "VARCHAR"), ("heartbeat_at", "TIMESTAMP")),
    "matches": (
        ("match_id", "VARCHAR"), ("run_id", "VARCHAR"), ("game", "VARCHAR"), ("preset", "VARCHAR"),
        ("params", "JSON"), ("seed", "BIGINT"), ("repeat", "INTEGER"), ("status", "VARCHAR"), ("error", "VARCHAR"),
        ("started_at", "TIMESTAMP"), ("finished_at", "TIMESTAMP"), ("outcome", "JSON"), ("worker", "VARCHAR"),
        ("rules_version", "INTEGER"), ("mirror", "BOOLEAN"), ("deal", "VARCHAR")),
    "seats": (
        ("match_id", "VARCHAR"), ("seat", "INTEGER"), ("player", "VARCHAR"), ("agent", "VARCHAR"), ("role", "VARCHAR"),
        ("prompt_version", "VARCHAR"), ("strategy", "VARCHAR"), ("temperature", "DOUBLE"), ("score", "DOUBLE"),
        ("won", "BOOLEAN"), ("rank", "INTEGER"), ("label", "VARCHAR"), ("max_tokens", "INTEGER"),
        ("agent_name", "VARCHAR")),
    "turns": (
        ("match_id", "VARCHAR"), ("turn", "INTEGER"), ("round", "INTEGER"), ("phase", "VARCHAR"), ("seat", "INTEGER"),
        ("prompt", "JSON"), ("response", "VARCHAR"), ("action", "JSON"), ("legal", "BOOLEAN"), ("fallback", "BOOLEAN"),
        ("retries", "INTEGER"), ("error", "VARCHAR"), ("state", "JSON"), ("reward", "DOUBLE"), ("tokens_in", "INTEGER"),
        ("tokens_out", "INTEGER"), ("cost_usd", "DOUBLE"), ("latency_ms", "DOUBLE"), ("cached", "BOOLEAN"),
        ("call_errors", "INTEGER")),
    "metrics": (("match_id", "VARCHAR"), ("seat", "INTEGER"), ("name", "VARCHAR"), ("value", "DOUBLE")),
    # the papers' own tables, reference rows marked by their source (engine/papers/published.py fills it)
    "published": (("suite", "VARCHAR"), ("source", "VARCHAR"), ("model", "VARCHAR"), ("strategy", "VARCHAR"),
                  ("name", "VARCHAR"), ("value", "DOUBLE")),
    # what the headline tables sum, per run x game x params x preset x agent (engine/store/summaries.py)
    "agent_summary": (
        ("run_id", "VARCHAR"), ("game", "VARCHAR"), ("params", "JSON"), ("preset", "VARCHAR"),
        ("several", "BOOLEAN"), ("label", "VARCHAR"), ("temperature", "DOUBLE"), ("prompt_version", "VARCHAR"),
        ("max_tokens", "INTEGER"), ("agent_name", "VARCHAR"), ("matches", "BIGINT"), ("seats", "BIGINT"),
        ("wins", "BIGINT"), ("draws", "BIGINT"), ("draws_shared", "BIGINT"), ("score_sum", "DOUBLE"),
        ("score_weight", "DOUBLE"), ("decisions", "BIGINT"), ("valid", "BIGINT"), ("fallback_wins", "BIGINT"),
        ("cost", "DOUBLE"), ("unpriced", "BIGINT"), ("fallbacks", "BOOLEAN"), ("illegal", "BIGINT")),
    # per the same keys and a metric: the matches of the agent scored by it, the sum and sum of squares of its
    # score per match (the mean of its seats' values there): what `headline.scores` averages
    "metric_summary": (
        ("run_id", "VARCHAR"), ("game", "VARCHAR"), ("params", "JSON"), ("preset", "VARCHAR"),
        ("several", "BOOLEAN"), ("label", "VARCHAR"), ("temperature", "DOUBLE"), ("prompt_version", "VARCHAR"),
        ("max_tokens", "INTEGER"), ("agent_name", "VARCHAR"), ("name", "VARCHAR"), ("matches", "BIGINT"),
        ("total", "DOUBLE"),
        ("squares", "DOUBLE"), ("fallbacks", "BOOLEAN")),
    # per the same keys (without `several`: a pair is two agents) and a kind of match (`kind`, its comparisons
    # hashed) and pair of agents (`a_*` the lesser identity, `b_*`): the seat pairs, `a`'s score summed over them,
    # the match's comparisons in all, and the matches of that kind: what the Bradley-Terry fit reads
    "pairwise_summary": (
        ("run_id", "VARCHAR"), ("game", "VARCHAR"), ("params", "JSON"), ("preset", "VARCHAR"),
        ("together", "BOOLEAN"), ("kind", "UBIGINT"), ("a_label", "VARCHAR"), ("a_temperature", "DOUBLE"),
        ("a_prompt_version", "VARCHAR"), ("a_max_tokens", "INTEGER"), ("a_agent_name", "VARCHAR"),
        ("b_label", "VARCHAR"), ("b_temperature", "DOUBLE"), ("b_prompt_version", "VARCHAR"),
        ("b_max_tokens", "INTEGER"), ("b_agent_name", "VARCHAR"),
        ("pairs", "BIGINT"), ("score_sum", "DOUBLE"), ("comparisons", "BIGINT"), ("matches", "BIGINT")),
    # every agent seated (its name, `seats.agent_name`, with its label and settings) in any match, ok or not, and its
    # seats: the agents a list offers, read without scanning the seats
    "agent_settings": (("label", "VARCHAR"), ("temperature", "DOUBLE"), ("prompt_version", "VARCHAR"),
                       ("max_tokens", "INTEGER"), ("agent_name", "VARCHAR"), ("seats", "BIGINT")),
    # per run, over every attempt stored (ok or errored: an errored match's calls were made and paid for): the
    # matches, those errored, and the tokens, dollars and calls without a price of their seated turns, what Launch's
    # runs panel shows (`engine.serve.launch.processes.progress`) without summing every turn
    "run_totals": (("run_id", "VARCHAR"), ("matches", "BIGINT"), ("errors", "BIGINT"), ("tokens", "BIGINT"),
                   ("usd", "DOUBLE"), ("unpriced_calls", "BIGINT")),
    # per `ok` match and agent (its label and settings, its strategy): the match's keys a selection filters by and
    # the agent's score there (`seats` it held; the match's γ-Bench score where it held every seat, else the mean of
    # its seats' scores), what the Robustness page compares: one filtered scan instead of joining the log
    "match_scores": (
        ("match_id", "VARCHAR"), ("run_id", "VARCHAR"), ("game", "VARCHAR"), ("preset", "VARCHAR"),
        ("params", "JSON"), ("seed", "BIGINT"), ("repeat", "INTEGER"), ("finished_at", "TIMESTAMP"),
        ("label", "VARCHAR"), ("prompt_version", "VARCHAR"), ("temperature", "DOUBLE"), ("strategy", "VARCHAR"),
        ("max_tokens", "INTEGER"), ("agent_name", "VARCHAR"), ("seats", "INTEGER"), ("score", "DOUBLE")),
    # the papers' summaries this database keeps (engine/store/summary_registry.py): a process that has not
    # registered one of them may not write here
    "kept_summaries": (("name", "VARCHAR"),),
    # one row: the writes so far (a cache keys on it), the `ok` matches the summaries count and the version of the code
    # that computed them (`summaries.summaries_code`)
    "generation": (("generation", "BIGINT"), ("summarized", "BIGINT"), ("summaries_code", "VARCHAR")),
}
# the summaries a date range sums, kept by the day their matches finished too (engine/store/summary_keys.py BY_DAY)
TABLES |= {by_day: (*TABLES[table], ("day", "DATE")) for table, by_day in BY_DAY.items()}
# Version 1 had no version table; 2 added runs.pid/host/heartbeat_at and turns.call_errors; 3 added
# matches.worker (who played the match: `<host>:<pid>`, or `ray:<node>:<pid>`); 4 the published table; 5
# seats.max_tokens (a model's answer length cap: it changes its answers);
# 6 matches.rules_version (the version of its game's rules the match was played under, `Game.rules_version`); 7
# MAgIC's published rows on the 0-100 scale with the radar's area in both units; 8 the summaries (agent_summary,
# metric_summary, generation: engine/store/summaries.py), built from the log by the upgrade; 9 their `fallbacks` key
# (whether the match had a fallback move: the filter leaving those matches out sums them too), pairwise_summary (the
# pairwise outcomes the Bradley-Terry fit reads) and agent_settings, built likewise; 10 seat_summary (per seat,
# role, strategy and challenger: what the Who is Spy and MAgIC boards add up, MAgIC's Reasoning items included); 11
# gamabench_summary (per agent, strategy, study and repeat: what γ-Bench's table adds up); 12 pairwise_summary
# rebuilt, its rows no longer comparing teammates (a seat pair of one role) ranked apart; 13 run_totals (Launch's runs
# panel) and match_scores (the Robustness page), built likewise; 14 agent_summary.illegal (LLMArena's illegal moves,
# the hint ablation) and step_summary (γ-Bench's per-round curves), agent_summary rebuilt and step_summary built; 15
# agent_summary, metric_summary and pairwise_summary kept by day as well (`*_by_day`: a date range's figures), built;
# 16 seats.agent_name (the agent's stable name, engine/agents/agent_names.py: its label, agent string and every
# setting that changes its play), filled for the old seats, and every summary keyed on it (`agent_name`), rebuilt; 17
# kept_summaries: the papers' summaries (seat_summary, gamabench_summary, step_summary) left the schema, each
# registered by its paper (engine/store/summary_registry.py) and recorded as kept where the database held it; 18
# matches.mirror and matches.deal (paired play: a lineup played again with its seats reversed on the same seed); 19
# generation.summaries_code (the summaries keyed on the code computing them: a changed summary is rebuilt by the next
# process that may write the file, with no version to bump).
# Every upgrade rewrites the papers' rows, so a change to engine/papers/published.py's rows bumps the version too (else
# databases keep the old rows).
# An upgrade adds what an older database lacks (tables, columns), in place; a newer database is left alone.
# To add a column: append it to its table above and bump SCHEMA_VERSION; engine/store/upgrades.py adds it to
# older files (and fills its old rows there, when NULL would not say what they hold).
SCHEMA_VERSION = 19
_ARROW_TYPES = {"VARCHAR": pa.string(), "JSON": pa.string(), "BIGINT": pa.int64(), "UBIGINT": pa.uint64(),
                "INTEGER": pa.int32(), "DOUBLE": pa.float64(), "BOOLEAN": pa.bool_(), "TIMESTAMP": pa.timestamp("us"),
                "DATE": pa.date32()}


def arrow_schema(table: str) -> pa.Schema:
    """Explicit Arrow types for appending to `table`, so an all-NULL column still has its type."""
    return pa.schema([(name, _ARROW_TYPES[sql]) for name, sql in TABLES[table]])


def create_table_sql(table: str) -> str:
    return f"CREATE TABLE IF NOT EXISTS {table}({', '.join(f'{n} {t}' for n, t in TABLES[table])})"


MATCH_SCHEMA = arrow_schema("matches")
SEAT_SCHEMA = arrow_schema("seats")
TURN_SCHEMA = arrow_schema("turns")
METRIC_SCHEMA = arrow_schema("metrics")


def schema_version(con: duckdb.DuckDBPyConnection) -> int | None:
    """The database's schema version: 0 if it holds no arena table yet, None if it is not an arena database."""
    tables = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    if "schema_version" in tables:
        return con.execute("SELECT max(version) FROM schema_version").fetchone()[0] or 0
    if {"runs", "matches"} <= tables:
        return 1
    return None if tables else 0


def now() -> datetime:
    """A stored timestamp: UTC, without a time zone (the TIMESTAMP columns)."""
    return datetime.now(UTC).replace(tzinfo=None)


_JSON = json.JSONEncoder(default=str, ensure_ascii=False)  # one encoder: `json.dumps` with options makes one a call


def to_json(value: Any) -> str | None:
    """A value as a JSON column stores it (None stays NULL)."""
    return None if value is None else _JSON.encode(value)
