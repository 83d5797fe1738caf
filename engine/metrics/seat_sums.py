"""The boards' sums (Who is Spy, MAgIC over `seat_summary`, γ-Bench over `gamabench_summary`: engine/store/
summaries.py): a selection as a condition over a summary, and the seat summary's rows with each agent named as every
table names it. A board sums these rows when the selection is a sum of them (runs, games, rule sets, presets,
contested matches where the summary keeps `several`, matches without fallback moves) and the summaries are in step
with the log; else (a date range, an agent filter) it reads the seats and turns: the same figures either way."""

from __future__ import annotations

from pathlib import Path

from engine import store
from engine.metrics.agent_figures import summary_where, summed
from engine.selection import Selection, agent_sql
from engine.store.summary_seats import SEAT_SUMMARY

# a seat summary row's strategy as the boards group by it (bots have none)
NO_STRATEGY = "-"


def summed_where(db: str | Path, selection: Selection, several: bool = True) -> tuple[str, list] | None:
    """`selection` as a SQL condition over a summary `AS k` (`seat_summary`, `gamabench_summary`; `several`: whether
    it keeps that key): `agent_figures.summary_where`'s condition, contested matches as the selection says. None when
    the boards read the log: a date range, an agent filter, contested matches from a summary without `several`, or
    summaries out of step with the log."""
    if selection.contested and not several:
        return None
    where = summary_where(selection, contested=selection.contested)
    return where if where is not None and store.summaries_in_step(db) else None


def seat_rows(condition: str) -> str:
    """The `seat_summary` rows (`k`) that `condition` selects, summed per agent (`agent`, named as `agent_sql`
    names it), strategy (`NO_STRATEGY` for none), game, rule set (`rules`), role, challenger, flag and value name."""
    return f"""
        SELECT {agent_sql("k")} AS agent, coalesce(k.strategy, '{NO_STRATEGY}') AS strategy, k.game,
               json_extract_string(k.params, '$.rules') AS rules, k.role, k.challenger, k.flag, k.name,
               sum(k.seats) AS seats, sum(k.total) AS total
        FROM {SEAT_SUMMARY.table} k WHERE {condition} GROUP BY ALL"""


def summed_seat_rows(db: str | Path, selection: Selection, condition: str) -> tuple[str, list]:
    """`seat_rows` of the selection's seat summary rows (`agent_figures.summed`: the stored rows, or for a selection
    they do not answer those of its matches computed from the log by the summary's own SQL) that `condition` picks,
    contested matches as the selection says; its parameters. Inside a `store.reading` block."""
    rows, params = summed(db, selection, contested=selection.contested).rows(db, SEAT_SUMMARY.table)
    return f"""
        SELECT {agent_sql("k")} AS agent, coalesce(k.strategy, '{NO_STRATEGY}') AS strategy, k.game,
               json_extract_string(k.params, '$.rules') AS rules, k.role, k.challenger, k.flag, k.name,
               sum(k.seats) AS seats, sum(k.total) AS total
        FROM ({rows}) k WHERE {condition} GROUP BY ALL""", params
