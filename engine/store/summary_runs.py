"""What counts every attempt stored, ok or errored (`run_totals`: Launch's runs panel; `agent_settings`: which
settings name an agent), and `match_scores`, one row per `ok` match and agent (the Robustness page)."""

from __future__ import annotations

from engine.agents.agent_names import model_sql


def run_totals_sql(matches: str, turns: str) -> str:
    """The `run_totals` rows of the matches of the tables (or views) named, whatever their status: per run its
    matches, those errored, and its seated turns' tokens (in and out), dollars and calls without a price (tokens in
    but no cost), as Launch's runs panel shows them (`engine.serve.launch.processes.progress`)."""
    return f"""
        WITH m AS (SELECT match_id, run_id, status FROM {matches}),
        counts AS (SELECT run_id, count(*) AS matches, count(*) FILTER (WHERE status = 'error') AS errors
                   FROM m GROUP BY run_id),
        calls AS (
          SELECT m.run_id, sum(coalesce(t.tokens_in, 0) + coalesce(t.tokens_out, 0)) AS tokens, sum(t.cost_usd) AS usd,
                 count(*) FILTER (WHERE t.cost_usd IS NULL AND t.tokens_in > 0) AS unpriced_calls
          FROM {turns} t JOIN m USING (match_id) WHERE t.seat IS NOT NULL GROUP BY m.run_id)
        SELECT c.run_id, c.matches, c.errors, coalesce(x.tokens, 0)::BIGINT AS tokens, x.usd,
               coalesce(x.unpriced_calls, 0) AS unpriced_calls
        FROM counts c LEFT JOIN calls x USING (run_id)"""


def match_scores_sql(matches: str, seats: str, metrics: str, scored_seats: str | None = None) -> str:
    """The `match_scores` rows of the `ok` matches of the tables (or views) named: per match and agent (its name,
    label and settings, its strategy), the seats it held and its score, as the Robustness page compares them: the
    match's `gamabench_score` where the agent holds every seat (γ-Bench's self-play), else the mean of its seats'
    scores. `scored_seats`, some of `seats` (one agent's), narrows the rows to theirs: the seats are counted in full
    only in the matches with a match score, where the count decides which score is the agent's."""
    return f"""
        WITH m AS (SELECT match_id, run_id, game, preset, params, seed, "repeat", finished_at FROM {matches}
                   WHERE status = 'ok'),
        held AS (
          SELECT match_id, agent_name, {model_sql('')} AS label, prompt_version, temperature, strategy,
                 max_tokens, count(*) AS seats, avg(score) AS seat_score
          FROM {scored_seats or seats} WHERE match_id IN (SELECT match_id FROM m) GROUP BY ALL),
        whole AS (SELECT match_id, value FROM {metrics} WHERE seat IS NULL AND name = 'gamabench_score'
                  AND match_id IN (SELECT match_id FROM held)),
        seat_count AS (SELECT match_id, count(*) AS n FROM {seats} WHERE match_id IN (SELECT match_id FROM whole)
                       GROUP BY match_id)
        SELECT m.*, h.agent_name, h.label, h.prompt_version, h.temperature, h.strategy, h.max_tokens, h.seats,
               CASE WHEN h.seats = c.n THEN coalesce(w.value, h.seat_score) ELSE h.seat_score END AS score
        FROM held h JOIN m USING (match_id) LEFT JOIN whole w USING (match_id)
        LEFT JOIN seat_count c USING (match_id)"""


def settings_sql(seats: str) -> str:
    """The `agent_settings` rows of the seats of the table (or view) named, whatever their match's status."""
    return f"""SELECT agent_name, {model_sql('')} AS label, temperature, prompt_version, max_tokens,
                      count(*) AS seats
               FROM {seats} GROUP BY ALL"""
