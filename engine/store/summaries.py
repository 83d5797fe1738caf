"""The summaries: what the headline tables add up per agent, kept beside the turn log so a page sums a few
thousand rows instead of joining a million turns. One row of `agent_summary` per run x game x match params x
preset x (whether the match had several agents) x (whether some seat's move in it was a fallback) x agent (its
name, `seats.agent_name`, fixed when its match was written, with its label and settings): contested matches,
seats, wins, draws, score sums, decisions, valid decisions, fallback wins and cost; of `metric_summary`, per the
same and a metric, what a score averages. The summing grain is what a page selects by (runs, games, rule sets,
which are params, presets, and matches without fallback moves), so any such selection is a sum of rows; a date
range or an agent filter is not: the rows of its matches are computed from the log by the same SQL
(engine/score/agent_figures.py `summed`). `pairwise_summary` keeps, per
run x game x params x preset, the comparisons between agents the Bradley-Terry fit reads
(engine/score/bradley_terry.py), and `agent_settings` every agent seated, so that listing them needs no scan of the
seats. `run_totals` keeps per run the errors, tokens and dollars
of every attempt stored, ok or errored (Launch's runs panel), and `match_scores` one row per `ok` match and agent with
its score there (the Robustness page): not sums over a key but the per-match rows a page would otherwise join the log
for.

Each family's rows are computed by a module of its own, from the tables or views it is given (the batch being
written, or the whole log): engine/store/summary_agents.py (`agent_summary`, `metric_summary`), summary_pairs.py
(`pairwise_summary`), summary_runs.py (`run_totals`, `agent_settings`, `match_scores`), their keys in
summary_keys.py. The papers' summaries (the social boards' seats, γ-Bench's table and curves) are registered by the
papers (engine/store/summary_registry.py): this module keeps them in step without knowing them. It adds them up: the
writer's merge, the rebuilds, the generation.

Written in the same transaction as the matches they count (`add_matches`, from the writer), so they are never
stale; only `ok` matches count, and a match replaced subtracts what it had added, so a resumed or re-imported
match is never counted twice. `rebuild` computes them again from the log (`engine rescore`, an upgrade).

The store knows nothing of the games: which are cooperative (their seats without a team share one, so a tie is
no draw) is the reader's to apply, so a row keeps both readings of its draws (`draws`: seats without a team
play apart; `draws_shared`: they play together), and whether a match had several agents (`several`), which
with the game's kind says whether it is contested.

The one-row `generation` table stamps the writes (`generation`, raised by every transaction that changes a
run, a match or a summary, by a random step: a cache keyed on it is never stale, even for a copy of the file that
took as many writes as the original since they parted) and the `ok` matches the summaries count
(`summarized`): a reader uses the summaries only when it equals the `ok` matches stored (rows inserted around
the writer, or a rescore cut short, leave them out of step, NULL, until `rebuild`)."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb
import pyarrow as pa

from engine.agents.agent_names import SEAT_COLUMNS, seat_names
from engine.store.code_version import code_version
from engine.store.files import DatabaseError
from engine.store.schema import TABLES
from engine.store.summary_agents import contributions_sql, illegal_move_sql, metric_contributions_sql
from engine.store.summary_keys import BY_DAY, MATCH_SCORE_KEYS, SIDE, SUMMARIES
from engine.store.summary_pairs import pairwise_contributions_sql
from engine.store.summary_registry import KeptSummary, registered
from engine.store.summary_runs import match_scores_sql, run_totals_sql, settings_sql

# what the readers import from here: each summary's own module computes it (engine/store/summary_*.py)
__all__ = ["BY_DAY", "MATCH_SCORE_KEYS", "SIDE", "SUMMARIES", "illegal_move_sql", "match_scores_sql",
           "run_totals_sql", "rows_of_matches", "summed_rows_sql"]


def add_attempts(con: duckdb.DuckDBPyConnection, matches: str, seats: str, turns: str, sign: int = 1) -> None:
    """Inside the writer's transaction: count (or with `sign` -1, uncount) the matches of the tables or views named,
    written or deleted, whatever their status, in what counts every attempt: the agents of their seats (an errored
    attempt's seats are seats too) and their runs' totals (its calls were made)."""
    _merge(con, "agent_settings", settings_sql(seats), sign)
    _merge(con, "run_totals", run_totals_sql(matches, turns), sign)


def _merge(con: duckdb.DuckDBPyConnection, table: str, rows_sql: str, sign: int) -> None:
    """Add (`sign` 1) or take away (-1) the rows `rows_sql` selects to summary `table`: the rows of their keys
    are replaced by their sums, and a key no match counts any more is dropped."""
    keys = keys_of(table)
    counts = [name for name, _ in columns_of(table) if name not in keys]
    same = " AND ".join(f"a.{k} IS NOT DISTINCT FROM d.{k}" for k in keys)
    signed = ", ".join(f"{sign} * {c} AS {c}" for c in counts)
    con.execute(f"CREATE OR REPLACE TEMP TABLE summary_delta AS SELECT {', '.join(keys)}, {signed} FROM ({rows_sql})")
    touched = f"{_games_of_the_delta(con)} AND EXISTS (SELECT 1 FROM summary_delta d WHERE {same})" \
        if "game" in keys else f"EXISTS (SELECT 1 FROM summary_delta d WHERE {same})"
    con.execute(f"""CREATE OR REPLACE TEMP TABLE summary_merged AS
        SELECT {', '.join(keys)}, {', '.join(f"sum({c}) AS {c}" for c in counts)} FROM (
          SELECT * FROM {table} a WHERE {touched}
          UNION ALL BY NAME SELECT * FROM summary_delta)
        GROUP BY ALL""")
    con.execute(f"DELETE FROM {table} a WHERE {touched}")
    con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM summary_merged WHERE {counts[0]} <> 0")
    con.execute("DROP TABLE summary_delta")
    con.execute("DROP TABLE summary_merged")


# the SQL of a summary's rows for the `ok` matches of a table or view (`matches`) over the stored seats, turns and
# metrics (by day, for those kept by day): what a rebuild inserts and a selection the stored rows cannot answer sums
_ROWS_OF_MATCHES = {
    "agent_summary": lambda matches: contributions_sql(matches, "seats", "turns"),
    "metric_summary": lambda matches: metric_contributions_sql(matches, "seats", "turns", "metrics"),
    "pairwise_summary": lambda matches: pairwise_contributions_sql(matches, "seats"),
}


def rows_of_matches(table: str) -> Callable[[str], str]:
    """The SQL of summary `table`'s rows for the `ok` matches of a table or view named, over the stored log: the
    store's own, or a registered summary's that needs nothing registered beside the tables."""
    if table in _ROWS_OF_MATCHES:
        return _ROWS_OF_MATCHES[table]
    summary = registered()[table]
    if summary.prepare is not None:
        raise ValueError(f"{table} reads relations of its own: it is summed only where it is stored")
    return lambda matches: summary.rows_sql(matches, "seats", "turns", "metrics")


def registered_summary(table: str) -> KeptSummary | None:
    """The paper's summary registered as `table`; None for one of the store's own."""
    return registered().get(table)


def keys_of(table: str) -> tuple[str, ...]:
    """What summary `table` sums by: the store's own, or a registered summary's."""
    return SUMMARIES[table] if table in SUMMARIES else registered()[table].keys


def columns_of(table: str) -> tuple[tuple[str, str], ...]:
    """Summary `table`'s columns (name, SQL type): the store's own, or a registered summary's."""
    return TABLES[table] if table in TABLES else registered()[table].columns


def summed_rows_sql(table: str, rows: str, where: str = "TRUE") -> str:
    """The SQL of rows of a finer grain than summary `table` (by day, or a part of the log's), from table or subquery
    `rows` where `where` holds, summed into `table`'s: its keys and the sums of its other columns."""
    keys = keys_of(table)
    sums = ", ".join(f"sum({c}) AS {c}" for c, _ in columns_of(table) if c not in keys)
    return f"SELECT {', '.join(keys)}, {sums} FROM {rows} WHERE {where} GROUP BY ALL"


def _merge_by_day(con: duckdb.DuckDBPyConnection, table: str, rows_sql: str, sign: int) -> None:
    """`_merge` of rows with a `day` into summary `table` kept by day (`BY_DAY`) and, summed over the days, into
    `table` itself: the rows computed once."""
    con.execute(f"CREATE OR REPLACE TEMP TABLE day_rows AS {rows_sql}")
    _merge(con, BY_DAY[table], "SELECT * FROM day_rows", sign)
    _merge(con, table, "SELECT * EXCLUDE (day) FROM day_rows", sign)
    con.execute("DROP TABLE day_rows")


def _games_of_the_delta(con: duckdb.DuckDBPyConnection) -> str:
    """The games of `summary_delta` as a condition on `a.game` with the names written out: DuckDB then skips the
    row groups of the other games (a rebuild writes the large summaries in game order), where a join looked up every
    row of the table: merging a small batch into a paper's large step summary was slow."""
    games = [game for (game,) in con.execute("SELECT DISTINCT game FROM summary_delta").fetchall()]
    return "a.game IN (" + ", ".join("'" + game.replace("'", "''") + "'" for game in games) + ")" if games else "FALSE"


def add_matches(con: duckdb.DuckDBPyConnection, matches: str, seats: str, turns: str, metrics: str,
                sign: int = 1) -> None:
    """Inside the writer's transaction: count (or with `sign` -1, uncount) the `ok` matches of the tables or
    views named, and bump the generation."""
    _merge_by_day(con, "agent_summary", contributions_sql(matches, seats, turns), sign)
    _merge_by_day(con, "metric_summary", metric_contributions_sql(matches, seats, turns, metrics), sign)
    _merge_by_day(con, "pairwise_summary", pairwise_contributions_sql(matches, seats), sign)
    for summary in registered().values():  # each built and kept by `keep_registered` first
        if summary.prepare is not None:
            summary.prepare(con, matches, seats, turns)
        _merge(con, summary.table, summary.rows_sql(matches, seats, turns, metrics), sign)
    if sign > 0:  # a match's scores are appended, and deleted with it: a merge would look each up among millions
        con.execute(f"INSERT INTO match_scores BY NAME {match_scores_sql(matches, seats, metrics)}")
    else:
        con.execute(f"DELETE FROM match_scores WHERE match_id IN (SELECT match_id FROM {matches} WHERE status = 'ok')")
    con.execute(f"UPDATE generation SET summarized = summarized + {sign} * "
                f"(SELECT count(*) FROM {matches} WHERE status = 'ok')")
    _out_of_step_if_other_code(con)
    bump(con)


# a generation moves by 1 + a random step below this: two copies of one database that each take the same number of
# writes after they part still differ (the figures kept beside one were read for the other: an attacker's report)
GENERATION_STEP = 1 << 30


def bump(con: duckdb.DuckDBPyConnection) -> None:
    """A write that changes what a page shows: caches keyed on the generation compute again."""
    con.execute(f"UPDATE generation SET generation = generation + 1 + floor(random() * {GENERATION_STEP})::BIGINT")


def out_of_step(con: duckdb.DuckDBPyConnection) -> None:
    """Inside a transaction that changes stored figures under the summaries (a rescore's chunk): readers go to
    the log until `rebuild`."""
    con.execute("UPDATE generation SET summarized = NULL")
    bump(con)


def ensure_state(con: duckdb.DuckDBPyConnection) -> None:
    """The generation row, if the database has none yet: in step when it holds no match (a new database)."""
    con.execute("INSERT INTO generation SELECT 0, CASE WHEN NOT EXISTS (SELECT 1 FROM matches) THEN 0 END, "
                "CASE WHEN NOT EXISTS (SELECT 1 FROM matches) THEN ? END "
                "WHERE NOT EXISTS (SELECT 1 FROM generation)", [summaries_code()])


# A rebuild reads the whole log: on a large database its joins and aggregates need far more than the writer's
# connection may hold (`connections.WRITER_MEMORY`), which ran out of it.
REBUILD_MEMORY = "1GB"


@contextmanager
def _rebuilding(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """The connection's memory cap raised to REBUILD_MEMORY for a rebuild, then put back."""
    before = con.execute("SELECT current_setting('memory_limit')").fetchone()[0]
    con.execute(f"SET memory_limit = '{REBUILD_MEMORY}'")
    try:
        yield
    finally:
        con.execute(f"SET memory_limit = '{before}'")


def name_seats(con: duckdb.DuckDBPyConnection) -> None:
    """Seats without a name (`seats.agent_name`: stored before it, or inserted around the writer) get the one the
    writer gives a seat (engine/agents/agent_names.py), computed once per distinct agent and settings."""
    columns = ", ".join(SEAT_COLUMNS)
    seats = con.sql(f"SELECT DISTINCT {columns} FROM seats WHERE agent_name IS NULL").to_arrow_table()
    if not seats.num_rows:
        return
    names = pa.array(seat_names(seats.to_pylist()), pa.string())
    con.register("seat_names", seats.append_column("agent_name", names))
    same = " AND ".join(f"n.{c} IS NOT DISTINCT FROM seats.{c}" for c in SEAT_COLUMNS)
    con.execute(f"UPDATE seats SET agent_name = n.agent_name FROM seat_names n WHERE seats.agent_name IS NULL "
                f"AND {same}")
    con.unregister("seat_names")


def rebuild(con: duckdb.DuckDBPyConnection) -> None:
    """Inside a transaction: the summaries computed again from the whole log (its seats named first: `name_seats`)."""
    name_seats(con)
    with _rebuilding(con):
        _rebuild_by_day(con, "metric_summary")
        rebuild_pairwise(con)
        rebuild_runs_and_scores(con)
        _rebuild_by_day(con, "agent_summary")
        for summary in registered().values():
            _build_kept(con, summary)
    written = generation(con)
    con.execute("DELETE FROM generation")
    con.execute("INSERT INTO generation SELECT ?, (SELECT count(*) FROM matches WHERE status = 'ok'), ?",
                [written, summaries_code()])
    bump(con)


def _rebuild_by_day(con: duckdb.DuckDBPyConnection, table: str) -> None:
    """Summary `table` kept by day (`BY_DAY`) computed again from the whole log, and `table` as those rows summed
    over the days, both in game order (the writer's merge reads only its batch's games' row groups; a board reads a
    few games)."""
    by_day = BY_DAY[table]
    con.execute(f"DELETE FROM {by_day}")
    con.execute(f"INSERT INTO {by_day} BY NAME SELECT * FROM ({rows_of_matches(table)('matches')}) ORDER BY game")
    con.execute(f"DELETE FROM {table}")
    con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM ({summed_rows_sql(table, by_day)}) ORDER BY game")


def rebuild_pairwise(con: duckdb.DuckDBPyConnection) -> None:
    """Inside a transaction: `pairwise_summary` and `agent_settings` computed again from the whole log (the
    upgrade to version 9)."""
    with _rebuilding(con):
        _rebuild_by_day(con, "pairwise_summary")
        con.execute("DELETE FROM agent_settings")
        con.execute(f"INSERT INTO agent_settings BY NAME {settings_sql('seats')}")


def rebuild_runs_and_scores(con: duckdb.DuckDBPyConnection) -> None:
    """Inside a transaction: `run_totals` and `match_scores` computed again from the whole log (the upgrade to
    version 13), the scores in label order (Robustness reads one label: DuckDB skips the others' row groups)."""
    with _rebuilding(con):
        con.execute("DELETE FROM run_totals")
        con.execute(f"INSERT INTO run_totals BY NAME {run_totals_sql('matches', 'turns')}")
        con.execute("DELETE FROM match_scores")
        rows = match_scores_sql("matches", "seats", "metrics")
        con.execute(f"INSERT INTO match_scores BY NAME SELECT * FROM ({rows}) ORDER BY label")


def rebuild_agents(con: duckdb.DuckDBPyConnection) -> None:
    """Inside a transaction: `agent_summary` computed again from the whole log (the upgrade to version 14: the
    agents' illegal moves)."""
    with _rebuilding(con):
        _rebuild_by_day(con, "agent_summary")


def _kept_in(con: duckdb.DuckDBPyConnection) -> set[str]:
    """The papers' summaries the database keeps (`kept_summaries`)."""
    return {name for (name,) in con.execute("SELECT name FROM kept_summaries").fetchall()}


def keep_registered(con: duckdb.DuckDBPyConnection) -> None:
    """Inside the writer's transaction, before its batch is written: every paper's summary registered in this
    process kept, those the database did not keep yet built from its log. DatabaseError if the database keeps one
    this process has not registered: writing without it would leave its rows stale."""
    stored, known = _kept_in(con), registered()
    if missing := sorted(stored - set(known)):
        raise DatabaseError(f"this database keeps the summaries {', '.join(missing)}, which this process has not "
                            f"registered: import engine.papers.summaries before writing")
    for name in sorted(set(known) - stored):
        _build_kept(con, known[name])


def _build_kept(con: duckdb.DuckDBPyConnection, summary: KeptSummary) -> None:
    """A paper's summary made again and computed from the whole log, its rows in game order (a board reads
    a few games: DuckDB skips the other games' row groups), and recorded as kept."""
    columns = ", ".join(f"{name} {sql}" for name, sql in summary.columns)
    con.execute(f"DROP TABLE IF EXISTS {summary.table}")  # made again: its columns are the registered ones
    con.execute(f"CREATE TABLE {summary.table}({columns})")
    with _rebuilding(con):
        if summary.prepare is not None:
            summary.prepare(con, "matches", "seats", "turns")
        rows = summary.rows_sql("matches", "seats", "turns", "metrics")
        con.execute(f"INSERT INTO {summary.table} BY NAME SELECT * FROM ({rows}) ORDER BY game")
    con.execute("DELETE FROM kept_summaries WHERE name = ?", [summary.table])
    con.execute("INSERT INTO kept_summaries VALUES (?)", [summary.table])


def generation(con: duckdb.DuckDBPyConnection) -> int:
    """How many writes the database has seen: a cache of anything read from it keys on this."""
    [row] = con.execute("SELECT max(generation) FROM generation").fetchall()  # whole: the connection is free again
    return int(row[0] or 0)


def in_step(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the summaries were computed by this code (`summaries_code`) and count every `ok` match stored (and
    nothing else), and the run totals every match (an errored one inserted around the writer leaves them out of step
    too). A paper's summary answers only where the database keeps it (`kept_summaries`)."""
    [(same,)] = con.execute(f"SELECT {IN_STEP_SQL}", [summaries_code()]).fetchall()  # whole: the connection is free
    return bool(same)


# whether the summaries are in step (`in_step`), as SQL with the code's version as its one parameter
IN_STEP_SQL = ("(SELECT max(summarized) FROM generation) = (SELECT count(*) FROM matches WHERE status = 'ok') AND "
               "(SELECT coalesce(sum(matches), 0) FROM run_totals) = (SELECT count(*) FROM matches) AND "
               "(SELECT max(summaries_code) FROM generation) = ?")


# The summaries are keyed on the code that computes them: a database whose summaries other code computed (a scorer
# changed since, or a database of an older version) is read from the log until a process that may write the file
# rebuilds them (`rebuild_for_this_code`: the next command or dashboard view, `upgrades.check_db`).


def summaries_code() -> str:
    """The version of the code computing the summaries: a hash of the source of this module, of each registered
    paper summary's module, and of every engine module they import (engine/store/code_version.py), so a changed
    summary is rebuilt and an unrelated change rebuilds nothing."""
    papers = sorted({Path(inspect.getsourcefile(summary.rows_sql)) for summary in registered().values()})
    return code_version(Path(__file__), *papers)


def computed_by_other_code(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the summaries stored were computed by code other than this process's."""
    [(code,)] = con.execute("SELECT max(summaries_code) FROM generation").fetchall()
    return code != summaries_code()


def rebuild_for_this_code(con: duckdb.DuckDBPyConnection) -> None:
    """Inside a transaction: the summaries rebuilt from the log if other code computed them."""
    if computed_by_other_code(con):
        rebuild(con)


def _out_of_step_if_other_code(con: duckdb.DuckDBPyConnection) -> None:
    """A writer running other code than the summaries' (a run started before a `git pull`) adds rows its own code
    computed: the summaries are then of no one code, and out of step until rebuilt."""
    con.execute("UPDATE generation SET summarized = NULL WHERE summaries_code IS DISTINCT FROM ?", [summaries_code()])
