"""`seat_summary`, the summary the social boards (Who is Spy, MAgIC) share: per seat key and value, what their
boards add up, MAgIC's Reasoning items worked out in Python from the belief answers
(engine/papers/magic/belief_reasoning.py). It registers with the store on import (engine/store/summary_registry.py,
which imports nothing of it); `summed_seat_rows` reads it back."""

from __future__ import annotations

from itertools import chain
from pathlib import Path

import duckdb
import pyarrow as pa

from engine.agents.agent_names import model_sql
from engine.papers.magic.belief_reasoning import seat_reasoning_rows
from engine.score.agent_figures import summed
from engine.store.selection import Selection, agent_sql
from engine.store.summary_keys import KEYS
from engine.store.summary_registry import KeptSummary, register

# what `seat_summary` sums besides the metrics (`name`), each a value per seat: the seat itself (1), its win (1 or 0),
# its score, its fallback votes for the special player (MAgIC's Judgement counts them wrong) and its Reasoning items
SEAT, WON, SCORE, FALLBACK_VOTES = "seat", "won", "score", "fallback_votes_correct"


def seat_contributions_sql(matches: str, seats: str, turns: str, metrics: str, reasoning: str) -> str:
    """The `seat_summary` rows of the `ok` matches of the tables (or views) named: per seat key (`SEAT_KEYS`: the
    agent and its strategy, its role, whether it is the match's challenger, the match's outcome `flag`) and value
    name, the seats with that value and its sum. Every seat's own values (`SEAT`, `WON`, `SCORE`), its metrics
    summed per seat, its fallback votes for the special seat, and the rows of `reasoning` (match_id, seat, name,
    value: `reasoning_rows`). The challenger as engine/papers/magic/social.py names it: the match parameter
    `tested_role`, else the one seat whose agent and strategy differ from the others' (three seats or more), else
    every seat; agents told apart by their names, as `agent_sql` reads them."""
    return f"""
        WITH m AS (SELECT match_id, run_id, game, params, preset,
                          TRY_CAST(json_extract(outcome, '$.special_seat') AS INTEGER) AS special_seat,
                          TRY_CAST(json_extract(outcome, '$.flag') AS INTEGER) AS flag,
                          json_extract_string(params, '$.tested_role') AS tested_role
                   FROM {matches} WHERE status = 'ok'),
        s AS (SELECT s.match_id, s.seat, s.role, s.score, s.won, s.agent_name, {model_sql('s')} AS label,
                     s.temperature, s.prompt_version, s.max_tokens, s.strategy, hash(s.agent_name) AS who,
                     hash(s.agent_name, coalesce(s.strategy, '-')) AS player, m.* EXCLUDE (match_id)
              FROM {seats} s JOIN m USING (match_id)),
        shapes AS (
          SELECT match_id, count(DISTINCT who) > 1 AS several, count(*) AS players, min(holders) AS fewest,
                 sum(holders) AS n_seats, arg_min(player, holders) AS lone
          FROM (SELECT match_id, who, player, count(*) AS holders FROM s GROUP BY ALL) GROUP BY match_id),
        values_ AS (
          SELECT match_id, seat, '{SEAT}' AS name, 1.0 AS value FROM s
          UNION ALL SELECT match_id, seat, '{WON}', CASE WHEN won THEN 1.0 ELSE 0.0 END FROM s
          UNION ALL SELECT match_id, seat, '{SCORE}', score FROM s
          UNION ALL SELECT match_id, seat, name, sum(value) FROM {metrics}
                    WHERE seat IS NOT NULL AND match_id IN (SELECT match_id FROM m) GROUP BY ALL
          UNION ALL SELECT t.match_id, t.seat, '{FALLBACK_VOTES}', count(*) FROM {turns} t JOIN m USING (match_id)
                    WHERE t.phase = 'vote' AND t.fallback
                      AND TRY_CAST(json_extract(t.action, '$.action') AS INTEGER) = m.special_seat GROUP BY ALL
          UNION ALL SELECT match_id, seat, name, value FROM {reasoning}
                    WHERE match_id IN (SELECT match_id FROM m)),
        fallbacks AS (SELECT match_id, match_id IN (SELECT match_id FROM {turns} WHERE fallback) AS fallbacks
                      FROM m)
        SELECT s.run_id, s.game, s.params, s.preset, h.several, f.fallbacks, s.agent_name, s.label, s.temperature,
               s.prompt_version, s.max_tokens, s.strategy, s.role,
               CASE WHEN s.tested_role = 'special' THEN s.seat = s.special_seat
                    WHEN s.tested_role = 'common' THEN s.seat <> s.special_seat
                    WHEN h.players = 2 AND h.fewest = 1 AND h.n_seats > 2 THEN s.player = h.lone
                    ELSE true END AS challenger,
               s.flag, v.name, count(v.value) AS seats, sum(v.value) AS total
        FROM s JOIN shapes h USING (match_id) JOIN fallbacks f USING (match_id) JOIN values_ v USING (match_id, seat)
        GROUP BY ALL HAVING count(v.value) > 0"""


# the turns that carry a belief (a probe's answer, or a pgm strategy's belief text in its decision): the only ones
# Reasoning reads
CARRIES_A_BELIEF = ("t.seat IS NOT NULL AND (t.phase = 'belief' OR (contains(t.action, 'belief') "
                    "AND json_extract(t.action, '$.extra.belief') IS NOT NULL))")


def reasoning_rows(con: duckdb.DuckDBPyConnection, matches: str, seats: str, turns: str) -> pa.Table:
    """Per seat of the `ok` matches of the tables (or views) named whose turns carry beliefs, its Reasoning items
    (`REASONING_ITEMS`) and those right under each reading of a missing suspicion (`REASONING_RIGHT:<reading>`), as
    (match_id, seat, name, value) rows for `seat_contributions_sql`: worked out in Python (the belief texts are
    parsed) by engine/papers/magic/belief_reasoning.py, a match at a time, so the summary keeps what a page would read
    the
    turns for."""
    result = con.execute(f"""
        WITH m AS (SELECT match_id, TRY_CAST(json_extract(outcome, '$.special_seat') AS INTEGER) AS special_seat,
                          json_array_length(outcome, '$.words') AS n_players
                   FROM {matches} WHERE status = 'ok' AND json_exists(outcome, '$.special_seat')),
        n AS (SELECT match_id, count(*) AS n FROM {seats} WHERE match_id IN (SELECT match_id FROM m) GROUP BY ALL)
        SELECT t.match_id, t.seat, t.round, t.phase, t.action, t.fallback, n.n, m.special_seat, m.n_players
        FROM {turns} t JOIN m USING (match_id) JOIN n USING (match_id)
        WHERE {CARRIES_A_BELIEF} ORDER BY t.match_id, t.turn""")
    rows = seat_reasoning_rows(chain.from_iterable(iter(lambda: result.fetchmany(2048), [])))
    return pa.Table.from_pylist(rows, schema=pa.schema([("match_id", pa.string()), ("seat", pa.int32()),
                                                         ("name", pa.string()), ("value", pa.float64())]))


def register_reasoning(con: duckdb.DuckDBPyConnection, matches: str, seats: str, turns: str) -> None:
    """The Reasoning rows of the matches named (`reasoning_rows`), registered on `con` as `seat_reasoning`: what
    the summary's SQL reads besides the tables."""
    con.register("seat_reasoning", reasoning_rows(con, matches, seats, turns))


SEAT_SUMMARY = register(KeptSummary(
    "seat_summary",
    # per the keys of agent_summary, the seat's strategy and role, whether it is its match's challenger (MAgIC), the
    # match's outcome flag (MAgIC's Deception) and a value of the seat (`name`): the seats holding it and its sum
    columns=(("run_id", "VARCHAR"), ("game", "VARCHAR"), ("params", "JSON"), ("preset", "VARCHAR"),
             ("several", "BOOLEAN"), ("fallbacks", "BOOLEAN"), ("label", "VARCHAR"), ("temperature", "DOUBLE"),
             ("prompt_version", "VARCHAR"), ("max_tokens", "INTEGER"), ("agent_name", "VARCHAR"),
             ("strategy", "VARCHAR"), ("role", "VARCHAR"), ("challenger", "BOOLEAN"), ("flag", "INTEGER"),
             ("name", "VARCHAR"), ("seats", "BIGINT"), ("total", "DOUBLE")),
    keys=(*KEYS, "strategy", "role", "challenger", "flag", "name"),
    rows_sql=lambda matches, seats, turns, metrics: seat_contributions_sql(matches, seats, turns, metrics,
                                                                           "seat_reasoning"),
    prepare=register_reasoning))


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
