"""The social boards' sums (Who is Spy, MAgIC) over the seat summary (engine/store/summary_seats.py): the rows of a
selection, each agent named as every table names it. The rows come by one path (`agent_figures.summed`): the
stored ones where they answer the selection, else those of its matches computed from the log by the summary's own
SQL, MAgIC's Reasoning items worked out for those matches first."""

from __future__ import annotations

from pathlib import Path

from engine.metrics.agent_figures import summed
from engine.selection import Selection, agent_sql
from engine.store.summary_seats import SEAT_SUMMARY

# a seat summary row's strategy as the boards group by it (bots have none)
NO_STRATEGY = "-"


def summed_seat_rows(db: str | Path, selection: Selection, condition: str) -> tuple[str, list]:
    """Per agent (`agent`, named as `agent_sql` names it), strategy (`NO_STRATEGY` for none), game, rule set
    (`rules`), role, challenger, flag and value name, the seats and the sum, of the selection's seat summary rows
    (`agent_figures.summed`) that `condition` picks, contested matches as the selection says; its parameters.
    Inside a `store.reading` block."""
    rows, params = summed(db, selection, contested=selection.contested).rows(db, SEAT_SUMMARY.table)
    return f"""
        SELECT {agent_sql("k")} AS agent, coalesce(k.strategy, '{NO_STRATEGY}') AS strategy, k.game,
               json_extract_string(k.params, '$.rules') AS rules, k.role, k.challenger, k.flag, k.name,
               sum(k.seats) AS seats, sum(k.total) AS total
        FROM ({rows}) k WHERE {condition} GROUP BY ALL""", params
