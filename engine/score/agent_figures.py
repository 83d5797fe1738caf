"""Per agent, the counts every page's win rates and the headline read (`agent_figures`): contested matches, seats,
wins, draws, the win rate with its Wilson interval, valid decisions, fallback wins, cost. One definition: the sum of
`agent_summary` rows (`summed_figures_sql`). The rows come from one path (`Summed`): the stored summary when a
selection is a sum of its rows, its rows by day for a date range, and otherwise (an agent filter, or summaries out of
step with the log) the rows the writer would store for the selected matches, computed from the log by the writer's
own SQL. Its own module, beneath the headline and the ratings, because both read it (the Bradley-Terry table names
each agent's matches and wins beside its rating)."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd

from engine import store
from engine.score import stats
from engine.store import summaries
from engine.store.selection import ALL, Selection, cooperative_games, rule_set_sql, variants_sql


def agent_figures(db: str | Path, selection: Selection = ALL, by_game: bool = False, contested: bool = True
                  ) -> pd.DataFrame:
    """Per agent (and game and its rule set, `rule_set`: '' for a game with one): contested matches (every match,
    self-play included, when `contested` is False: a suite whose paper's protocol is self-play), seats, seats won and
    drawn (`ratings.OUTCOME`), the win rate (wins + half the draws) / seats with its Wilson interval over matches
    (`DEFINITIONS`), the mean score per match (`DEFINITIONS["mean score"]`), decisions and the share that were
    valid, fallback wins, cost per match (NaN when a call had no price), and the presets its matches were played
    under: the `agent_summary` rows of the selection (`summed`) added up."""
    with store.reading(db):
        table = store.query(db, *summed_figures_sql(db, summed(db, selection, contested), by_game))
    return with_rates(table)


# the counts of `agent_figures` that add up over games (a match is of one game)
COUNTS = ["matches", "seats", "wins", "draws", "credit", "decisions", "valid", "fallback_wins", "cost", "unpriced"]


def over_games(by_game: pd.DataFrame) -> pd.DataFrame:
    """`agent_figures` of a selection from its table `by_game`: the counts summed per agent, the rates derived
    again (one read where a page needs the figures over some games and over others); no mean score or presets."""
    if by_game.empty:
        return by_game
    return with_rates(by_game.groupby("agent", as_index=False)[COUNTS].sum())


def with_rates(table: pd.DataFrame) -> pd.DataFrame:
    """The rates `agent_figures` gives, from its counts: the win rate and its Wilson interval, the valid share and
    the cost per match."""
    if table.empty:
        return table
    table["win_rate"] = table["credit"] / table["seats"]
    low, high = stats.wilson_interval(table["win_rate"] * table["matches"], table["matches"])
    table["win_lo"], table["win_hi"] = np.clip(low, 0, 1), np.clip(high, 0, 1)
    table["valid_rate"] = np.where(table["decisions"] > 0, table["valid"] / table["decisions"].where(
        table["decisions"] > 0, 1), np.nan)
    table["cost_per_match"] = np.where(table["unpriced"] > 0, np.nan, table["cost"] / table["matches"])
    return table


def _row_condition(selection: Selection, alias: str, contested: bool) -> tuple[str, list]:
    """What of `selection` a summary row's keys answer (runs, games, rule sets, presets, contested, fallbacks), as a
    SQL condition over the rows `AS alias`; its date range and agent filter are left to the caller."""
    parts, params = (([f"({alias}.several OR {alias}.game IN (SELECT unnest(?)))"], [cooperative_games()])
                     if contested else (["TRUE"], []))
    for column, values in (("run_id", selection.run_ids), ("game", selection.games), ("preset", selection.presets)):
        if values:
            parts.append(f"{alias}.{column} IN (SELECT unnest(?))")
            params.append(list(values))
    if selection.variants is not None:
        parts.append(variants_sql(selection.variants, alias))
    if selection.without_fallbacks:
        parts.append(f"NOT {alias}.fallbacks")
    return " AND ".join(parts), params


# the matches whose summary rows one read computes from the log (`Summed`): a read holds its matches' seats and
# turns, and the summaries' windows and distinct counts do not spill (every match of a large database at once ran
# out of a page reader's memory)
LOGGED_PART = 20_000


@dataclass(frozen=True)
class Summed:
    """The summary rows a selection adds up: those `condition` (over the rows, `k`) picks of the stored summaries
    (`stored`: they answer the selection), summed over the days of its date range (`days`: the first and last, None
    for no bound) from the summaries kept by day; or, where the stored rows cannot answer (an agent filter: they sum
    over every agent of a match; summaries out of step with the log; a date range of a summary not kept by day), the
    rows the writer would have stored for the selected matches alone (`matches`: a condition over `matches AS m` and
    its parameters), computed from the log by the writer's own SQL (`summaries.rows_of_matches`). So a selection
    sums exactly what the log holds, by one definition. Read inside a `store.reading` block: rows computed from the
    log are a temporary table of its connection."""

    condition: str
    params: list
    days: tuple[date | None, date | None]
    matches: tuple[str, list]
    stored: bool

    def source(self, db: str | Path | None, table: str) -> str:
        """Summary `table` as the rows to pick from: the stored table, its rows by day within the date range summed
        per key, or the rows of the selected matches (computed `LOGGED_PART` matches at a time: each part's memory
        is all a read holds) summed per key."""
        stored = self.answers(db, table)
        if stored and self.days == (None, None):
            return table
        if stored and table in summaries.BY_DAY:
            first, last = self.days
            within = " AND ".join([*([f"day >= DATE '{first.isoformat()}'"] if first else []),
                                   *([f"day <= DATE '{last.isoformat()}'"] if last else [])])
            return f"({summaries.summed_rows_sql(table, summaries.BY_DAY[table], within)})"
        if not Path(db).exists():  # no database yet: no match, and no connection to keep a table on
            return "(SELECT " + ", ".join(f"NULL::{sql} AS {name}" for name, sql in summaries.columns_of(table)) + \
                " WHERE FALSE)"
        key = repr((table, self.matches))
        name = f"selected_{table}_{hashlib.sha1(key.encode()).hexdigest()[:16]}"
        store.temp_table(db, name, self._parts(db, table))
        return f"({summaries.summed_rows_sql(table, name)})"

    def answers(self, db: str | Path | None, table: str) -> bool:
        """Whether the stored rows of summary `table` answer the selection (the database keeps the table)."""
        return self.stored and _kept(db, table)

    def _parts(self, db: str | Path, table: str) -> Iterator[Callable[[duckdb.DuckDBPyConnection], tuple[str, list]]]:
        """For each part of the logged matches (in the order they were written, so that a part's seats and turns lie
        together when matches were written in time order), a function of the reading connection giving the SQL of
        summary `table`'s rows there; for no match, one part of none (the table is made, empty, with its columns:
        an agent filter that picks no match of a suite)."""
        matches, params = self.matches
        starts = [first for (first,) in store.rows(db, f"""
            SELECT rowid FROM (SELECT m.rowid, row_number() OVER (ORDER BY m.rowid) AS n FROM matches m WHERE {matches})
            WHERE (n - 1) % {LOGGED_PART} = 0 ORDER BY rowid""", params)]
        bounds = list(zip(starts, [*starts[1:], None], strict=False)) or [(None, None)]
        for first, end in bounds:
            part = ("FALSE" if first is None else "m.rowid >= ?") + ("" if end is None else " AND m.rowid < ?")
            yield functools.partial(_part_rows, table, f"{matches} AND {part}",
                                    [*params, *([] if first is None else [first]), *([] if end is None else [end])])

    def rows(self, db: str | Path | None, table: str = "agent_summary") -> tuple[str, list]:
        """The rows of summary `table` this picks (`k`), each with its agent's name (`agent_name`) and its rule set
        (`db`: where the selected matches' rows are read; None for stored rows alone)."""
        return f"""
            WITH k AS (SELECT z.*, {rule_set_sql("z")} AS rule_set FROM (SELECT * FROM {self.source(db, table)}) z)
            SELECT * FROM k WHERE {self.condition}""", self.params


def _kept(db: str | Path | None, table: str) -> bool:
    """Whether the database keeps summary `table`: always one of the store's own; a paper's where it was built
    (`kept_summaries`: a process that registered it late reads its rows from the log until a write builds it)."""
    if summaries.registered_summary(table) is None:
        return True
    return db is not None and bool(store.rows(db, "SELECT 1 FROM kept_summaries WHERE name = ?", [table]))


def _part_rows(table: str, matches: str, params: list, con: duckdb.DuckDBPyConnection) -> tuple[str, list]:
    """On `con`: the matches `matches` (a condition over `matches AS m` with `params`) kept as the temporary table
    `summed_part`, what the summary's SQL reads beside the tables registered, and the SQL of summary `table`'s rows
    for them."""
    con.execute(f"CREATE OR REPLACE TEMP TABLE summed_part AS SELECT * FROM matches m WHERE {matches}", params)
    summary = summaries.registered_summary(table)
    if summary is not None and summary.prepare is not None:
        summary.prepare(con, "summed_part", "seats", "turns")
        return summary.rows_sql("summed_part", "seats", "turns", "metrics"), []
    return summaries.rows_of_matches(table)("summed_part"), []


def summed(db: str | Path, selection: Selection, contested: bool = True) -> Summed:
    """`selection` as the summary rows it adds up (`Summed`): while the summaries of `db` are in step with its log,
    the stored rows or those of its date range's days; for an agent filter, or summaries out of step, the rows of
    its matches computed from the log."""
    condition, params = _row_condition(selection, "k", contested)
    picked = replace(selection, contested=False, without_fallbacks=False)  # keys of the rows: `condition`'s
    return Summed(condition, params, (selection.date_from, selection.date_to), picked.where("m"),
                  stored=not selection.agents and store.summaries_in_step(db))


def agents_seen(db: str | Path, selection: Selection) -> list[str]:
    """Every agent with a placed seat in the selected matches (self-play included, unless the selection is of
    contested matches), from the summary rows of the selection (`summed`)."""
    with store.reading(db):
        rows, params = summed(db, selection, contested=selection.contested).rows(db)
        return [a for (a,) in store.rows(db, f"SELECT DISTINCT agent_name FROM ({rows}) ORDER BY 1", params)]


def summed_matches_and_wins_sql(db: str | Path, where: Summed) -> tuple[str, list]:
    """The query of per agent, only the contested matches and seats won of `agent_figures`, summed from the summary
    rows `where` selects (the Bradley-Terry table names them beside each rating: reading the whole figures
    for that is slower), and its parameters."""
    rows, params = where.rows(db)
    return f"""SELECT k.agent_name AS agent, sum(k.matches)::BIGINT AS matches, sum(k.wins)::BIGINT AS wins
               FROM ({rows}) k GROUP BY ALL""", params


def summed_figures_sql(db: str | Path, where: Summed, by_game: bool) -> tuple[str, list]:
    """The query of `agent_figures`' counts summed from the summary rows `where` selects, a tie read as the game's
    kind says (a cooperative game's seats without a team play together), and its parameters (`with_rates` adds
    the rates)."""
    rows, params = where.rows(db)
    game = "k.game, k.rule_set, " if by_game else ""
    return (f"""
        WITH k AS (SELECT *, CASE WHEN game IN (SELECT unnest(?)) THEN draws_shared ELSE draws END AS drawn
                   FROM ({rows}))
        SELECT {game}k.agent_name AS agent, sum(k.matches)::BIGINT AS matches, sum(k.seats)::BIGINT AS seats,
               sum(k.wins)::BIGINT AS wins, sum(k.drawn)::BIGINT AS draws,
               (sum(k.wins) + sum(k.drawn) / 2)::DOUBLE AS credit,
               sum(k.score_sum) / sum(k.score_weight) AS mean_score,
               list_sort(list(DISTINCT k.preset) FILTER (WHERE k.preset IS NOT NULL)) AS presets,
               sum(k.decisions)::DOUBLE AS decisions, sum(k.valid)::DOUBLE AS valid,
               sum(k.fallback_wins)::BIGINT AS fallback_wins, sum(k.cost)::DOUBLE AS cost,
               sum(k.unpriced)::DOUBLE AS unpriced
        FROM k GROUP BY ALL""", [cooperative_games(), *params])
