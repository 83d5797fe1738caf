"""`gamabench_summary` and `step_summary`: γ-Bench's 0-100 table (engine/papers/gamabench/scores.py `leaderboard`) and
its
per-round curves (`round_curves`), over the step records the games keep in each decision's state. γ-Bench's
summaries: registered with the store on import (engine/store/summary_registry.py), which imports nothing of them."""

from __future__ import annotations

from engine.agents.agent_names import model_sql
from engine.store.step_fields import SEAT_FIELDS, SEAT_FIELDS_OF
from engine.store.summary_keys import SIDE
from engine.store.summary_registry import KeptSummary, register


def gamabench_contributions_sql(matches: str, seats: str, turns: str, metrics: str) -> str:
    """The `gamabench_summary` rows of the `ok` matches of the tables (or views) named: per agent and strategy
    (`GAMABENCH_KEYS`), the matches it sat in, those with a `gamabench_score` (`scored`) and their scores summed
    (`total`), each match's score as engine/papers/gamabench/scores.py's `leaderboard` takes it: the match's own score
    where the agent and strategy hold every seat, else the mean of its seats' values. Every game's matches: the
    store knows no game, so which are γ-Bench's is the reader's to say (a match of one without a score counts
    there too)."""
    return f"""
        WITH m AS (SELECT match_id, run_id, game, params, preset, "repeat",
                          json_extract_string(outcome, '$.own_setting') AS own_setting,
                          match_id IN (SELECT match_id FROM {turns} WHERE fallback) AS fallbacks
                   FROM {matches} WHERE status = 'ok'),
        score AS (SELECT match_id, seat, value FROM {metrics}
                  WHERE name = 'gamabench_score' AND match_id IN (SELECT match_id FROM m)),
        s AS (SELECT match_id, seat, agent_name, {model_sql('')} AS label, temperature, prompt_version,
                     max_tokens, strategy, count(*) OVER (PARTITION BY match_id) AS match_seats
              FROM {seats} WHERE match_id IN (SELECT match_id FROM m)),
        held AS (
          SELECT s.match_id, s.agent_name, s.label, s.temperature, s.prompt_version, s.max_tokens, s.strategy,
                 count(*) = any_value(s.match_seats) AS every_seat, avg(x.value) AS seat_score
          FROM s LEFT JOIN score x ON x.match_id = s.match_id AND x.seat = s.seat
          GROUP BY s.match_id, s.agent_name, s.label, s.temperature, s.prompt_version, s.max_tokens, s.strategy),
        per_match AS (
          SELECT h.*, CASE WHEN h.every_seat THEN coalesce(x.value, h.seat_score) ELSE h.seat_score END AS score
          FROM held h LEFT JOIN score x ON x.match_id = h.match_id AND x.seat IS NULL)
        SELECT m.run_id, m.game, m.params, m.preset, m.own_setting, m."repeat", m.fallbacks, p.agent_name, p.label,
               p.temperature, p.prompt_version, p.max_tokens, p.strategy, count(*) AS matches, count(p.score) AS scored,
               coalesce(sum(p.score), 0) AS total
        FROM per_match p JOIN m USING (match_id) GROUP BY ALL"""


def _left_out_sql(game: str, name: str) -> str:
    """Whether field `name` of a step record of `game` (SQL expressions) is no figure: the round's number, or a seat
    (`engine.store.step_fields`: who acted, not how much)."""
    def listed(fields: frozenset[str]) -> str:
        return ", ".join(f"'{field}'" for field in sorted(fields))

    some = "".join(f" OR ({game} = '{g}' AND {name} IN ({listed(fields)}))" for g, fields in SEAT_FIELDS_OF.items())
    return f"({name} IN ({listed(SEAT_FIELDS | {'round'})}){some})"


def step_values_sql(matches: str, turns: str) -> str:
    """The numbers of the step records of the `ok` matches of the tables (or views) named, one row per match, step
    and field (match_id, step, name, value): a step is a public record (`state.last` of a decision turn: a round of
    a simultaneous game, a shot, a proposal or a vote), in play order; its fields are the numbers (a yes/no as 0/1)
    that are neither the round's number nor a seat; the steps holding one are numbered from 1 (the Pirate Game's
    proposal, a plan and its proposer, is no step: its vote is step 1 of a one-round game). What γ-Bench's curves
    average (engine/papers/gamabench/scores.py `round_curves`), read the same way from the log and into
    `step_summary`."""
    return f"""
        WITH m AS (SELECT match_id, game FROM {matches} WHERE status = 'ok'),
        steps AS (
          SELECT t.match_id, min(t.turn) AS first_turn, json_extract(t.state, '$.last') AS record
          FROM {turns} t WHERE t.seat IS NOT NULL AND t.match_id IN (SELECT match_id FROM m)
          GROUP BY t.match_id, record),
        numbers AS (
          SELECT s.match_id, s.first_turn, f.key AS name,
                 CASE WHEN f.type = 'BOOLEAN' THEN f.value::BOOLEAN::DOUBLE
                      WHEN f.type IN ('BIGINT', 'UBIGINT', 'DOUBLE') THEN f.value::DOUBLE END AS value
          FROM steps s JOIN m USING (match_id), json_each(s.record) f
          WHERE json_type(s.record) = 'OBJECT' AND f.type IN ('BIGINT', 'UBIGINT', 'DOUBLE', 'BOOLEAN')
            AND NOT {_left_out_sql("m.game", "f.key")})
        SELECT match_id, dense_rank() OVER (PARTITION BY match_id ORDER BY first_turn)::INTEGER AS step, name, value
        FROM numbers"""


def step_contributions_sql(matches: str, seats: str, turns: str) -> str:
    """The `step_summary` rows of the `ok` matches of the tables (or views) named: per match keys, agent (and once
    for the match, agent_name and label NULL) and step, the matches reaching that step (`name` NULL) and per field
    (`name`) the matches whose record holds it and its sum (`step_values_sql`)."""
    return f"""
        WITH m AS (SELECT match_id, run_id, game, params, preset,
                          match_id IN (SELECT match_id FROM {turns} WHERE fallback) AS fallbacks
                   FROM {matches} WHERE status = 'ok'),
        v AS ({step_values_sql(matches, turns)}),
        per_step AS (SELECT match_id, step, name, value FROM v
                     UNION ALL SELECT DISTINCT match_id, step, NULL, NULL FROM v),
        who AS (SELECT DISTINCT match_id, agent_name, {model_sql('')} AS label, temperature, prompt_version,
                       max_tokens
                FROM {seats} WHERE match_id IN (SELECT match_id FROM v)
                UNION ALL SELECT DISTINCT match_id, NULL, NULL, NULL, NULL, NULL FROM v)
        SELECT m.run_id, m.game, m.params, m.preset, m.fallbacks, w.agent_name, w.label, w.temperature,
               w.prompt_version, w.max_tokens, p.step, p.name, count(*) AS matches, coalesce(sum(p.value), 0) AS total
        FROM per_step p JOIN who w USING (match_id) JOIN m USING (match_id) GROUP BY ALL"""


# an agent's name, label and settings, as the columns of a summary
_AGENT_COLUMNS = (("label", "VARCHAR"), ("temperature", "DOUBLE"), ("prompt_version", "VARCHAR"),
                  ("max_tokens", "INTEGER"), ("agent_name", "VARCHAR"))

GAMABENCH_SUMMARY = register(KeptSummary(
    "gamabench_summary",
    # per run x game x params x preset, the imported record's study of its own (`own_setting`), the match's `repeat`
    # (a published record's run: the table's spread over runs), whether it had a fallback move, and an agent with its
    # strategy: the matches it sat in, those with a `gamabench_score` and the sum of its score per match
    columns=(("run_id", "VARCHAR"), ("game", "VARCHAR"), ("params", "JSON"), ("preset", "VARCHAR"),
             ("own_setting", "VARCHAR"), ("repeat", "INTEGER"), ("fallbacks", "BOOLEAN"), *_AGENT_COLUMNS,
             ("strategy", "VARCHAR"), ("matches", "BIGINT"), ("scored", "BIGINT"), ("total", "DOUBLE")),
    keys=("run_id", "game", "params", "preset", "own_setting", "repeat", "fallbacks", *SIDE, "strategy"),
    rows_sql=gamabench_contributions_sql))

STEP_SUMMARY = register(KeptSummary(
    "step_summary",
    # per run x game x params x preset, whether the match had a fallback move, an agent (NULL: the match, whoever
    # sat), a step and a field of its record (`name` NULL: the step itself): the matches that reached it and the
    # field's sum
    columns=(("run_id", "VARCHAR"), ("game", "VARCHAR"), ("params", "JSON"), ("preset", "VARCHAR"),
             ("fallbacks", "BOOLEAN"), *_AGENT_COLUMNS, ("step", "INTEGER"), ("name", "VARCHAR"),
             ("matches", "BIGINT"), ("total", "DOUBLE")),
    keys=("run_id", "game", "params", "preset", "fallbacks", *SIDE, "step", "name"),
    rows_sql=lambda matches, seats, turns, metrics: step_contributions_sql(matches, seats, turns)))
