"""`agent_summary` and `metric_summary`: per agent and the keys a selection picks by, what the headline tables and
the suites' 0-100 scores sum (engine/score/agent_figures.py, engine/papers/headline.py), LLMArena's illegal moves
included
(engine/papers/llmarena/analyses.py `hint_ablation`)."""

from __future__ import annotations

from engine.agents.agent_names import model_sql
from engine.store.valid_answers import valid_sql


def _seats_sql(matches: str, seats: str, turns: str) -> str:
    """The CTEs both summaries start from: the seats of the `ok` matches (`s`, with the day the match finished)
    and, per match (`agents`), whether it had several agents and whether some seat's move was a fallback
    (`engine.store.selection.own_moves_sql`)."""
    return f"""
        WITH m AS (SELECT match_id, run_id, game, params, preset, finished_at::DATE AS day FROM {matches}
                   WHERE status = 'ok'),
        s AS (SELECT s.match_id, s.seat, s.rank, s.role, s.score, coalesce(s.won, false) AS won,
                     s.agent, s.agent_name, {model_sql('s')} AS label, s.temperature, s.prompt_version,
                     s.max_tokens,
                     m.run_id, m.game, m.params, m.preset, m.day
              FROM {seats} s JOIN m USING (match_id)),
        agents AS (SELECT match_id, count(DISTINCT s.agent_name) > 1 AS several,
                          match_id IN (SELECT match_id FROM {turns} WHERE fallback) AS fallbacks FROM {seats} s
                   WHERE match_id IN (SELECT match_id FROM m) GROUP BY match_id)"""


def metric_contributions_sql(matches: str, seats: str, turns: str, metrics: str) -> str:
    """The `metric_summary_by_day` rows of the `ok` matches of the tables (or views) named: per agent and metric, its
    score per match as `headline.scores` takes it (the mean of its seats' values), counted, summed and squared."""
    return f"""{_seats_sql(matches, seats, turns)},
        per_match AS (
          SELECT s.match_id, s.run_id, s.game, s.params, s.preset, s.day, s.agent_name, s.label, s.temperature,
                 s.prompt_version, s.max_tokens, x.name, avg(x.value) AS score
          FROM s JOIN {metrics} x ON x.match_id = s.match_id AND x.seat = s.seat GROUP BY ALL)
        SELECT p.run_id, p.game, p.params, p.preset, p.day, a.several, a.fallbacks, p.agent_name, p.label,
               p.temperature, p.prompt_version, p.max_tokens, p.name, count(*) AS matches, sum(p.score) AS total,
               sum(p.score * p.score) AS squares
        FROM per_match p JOIN agents a USING (match_id) GROUP BY ALL"""


def illegal_move_sql(alias: str = "t") -> str:
    """The SQL condition that a `turns` row (as `alias`) is an illegal move as LLMArena counts them (its Table 2,
    engine/papers/llmarena/analyses.py `hint_ablation`): the first answer was rejected (a re-ask or a fallback), or
    the move was played on a taken cell or a full column (`illegal` in the state's `last_move`: it lost the game).
    The state is parsed only where its text names `illegal`."""
    return (f"({alias}.retries > 0 OR {alias}.fallback OR coalesce(contains({alias}.state::VARCHAR, 'illegal') "
            f"AND json_extract({alias}.state, '$.last_move.illegal')::BOOLEAN, false))")


def contributions_sql(matches: str, seats: str, turns: str) -> str:
    """The `agent_summary_by_day` rows of the `ok` matches of the tables (or views) named: the headline's per-agent
    figures (engine/papers/headline.py `agent_figures`, over `ratings.seat_outcomes_sql`) before they are summed over
    rows."""
    return f"""{_seats_sql(matches, seats, turns)},
        placed AS (SELECT *, min(rank) OVER (PARTITION BY match_id) AS best,
                          count(*) OVER (PARTITION BY match_id, agent_name) AS held
                   FROM s WHERE rank IS NOT NULL),
        ties AS (  -- nobody won and two teams or more share the best place: seats without a team apart or together
          SELECT match_id,
                 NOT bool_or(won) AND count(DISTINCT (rank, coalesce(role, 'seat ' || seat)))
                     FILTER (WHERE rank = best) > 1 AS apart,
                 NOT bool_or(won) AND count(DISTINCT (rank, coalesce(role, ''))) FILTER (WHERE rank = best) > 1
                     AS shared
          FROM placed GROUP BY match_id),
        moves AS (
          SELECT t.match_id, t.seat, count(*) AS decisions,
                 count(*) FILTER (WHERE {valid_sql("t")}) AS valid,
                 count(*) FILTER (WHERE t.fallback) AS fallbacks, sum(t.cost_usd) AS cost,
                 count(*) FILTER (WHERE t.cost_usd IS NULL AND t.tokens_in > 0) AS unpriced,
                 count(*) FILTER (WHERE {illegal_move_sql("t")}) AS illegal
          FROM {turns} t WHERE t.seat IS NOT NULL AND t.match_id IN (SELECT match_id FROM m) GROUP BY ALL)
        SELECT p.run_id, p.game, p.params, p.preset, p.day, a.several, a.fallbacks, p.agent_name, p.label,
               p.temperature, p.prompt_version, p.max_tokens, count(DISTINCT p.match_id) AS matches, count(*) AS seats,
               count(*) FILTER (WHERE p.won) AS wins,
               count(*) FILTER (WHERE NOT p.won AND p.rank = p.best AND d.apart) AS draws,
               count(*) FILTER (WHERE NOT p.won AND p.rank = p.best AND d.shared) AS draws_shared,
               sum(p.score / p.held) AS score_sum, sum(1.0 / p.held) FILTER (WHERE p.score IS NOT NULL) AS score_weight,
               sum(coalesce(x.decisions, 0)) AS decisions, sum(coalesce(x.valid, 0)) AS valid,
               count(*) FILTER (WHERE p.won AND x.fallbacks > 0) AS fallback_wins,
               sum(coalesce(x.cost, 0)) AS cost, sum(coalesce(x.unpriced, 0)) AS unpriced,
               sum(coalesce(x.illegal, 0)) AS illegal
        FROM placed p JOIN agents a USING (match_id) JOIN ties d USING (match_id)
        LEFT JOIN moves x ON x.match_id = p.match_id AND x.seat = p.seat
        GROUP BY ALL"""
