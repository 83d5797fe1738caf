"""`pairwise_summary`: the comparisons between agents the Bradley-Terry fit reads (engine/score/bradley_terry.py)."""

from __future__ import annotations

from engine.agents.agent_names import model_sql
from engine.store.summary_keys import SIDE


def pairwise_contributions_sql(matches: str, seats: str) -> str:
    """The `pairwise_summary_by_day` rows of the `ok` matches of the tables (or views) named: each match's comparisons
    between agents as `outcomes.pairwise_outcomes` makes them (every pair of seats of different agents in different
    teams, teammates never compared whatever their ranks: the better rank, winners first, wins; equal ranks tie),
    per pair of agents (`a` the one whose name hashes lower) how many seat pairs (`pairs`), the sum of `a`'s
    scores in them (1 won, 0.5 tie: sums exact in a double) and the match's comparisons in all; `kind` hashes a
    match's whole set, so matches alike are one row counted `matches` times. Both readings of a seat without a role
    (`together` false: a team of its own; true: one team with the others, as in a cooperative game), since the
    store does not know the games. The seats are joined by the hash of their agent's name, its columns added
    once the pairs are counted: a million matches' seat pairs carried with four columns a side did not fit a
    rebuild's memory."""
    return f"""
        WITH m AS (SELECT match_id, run_id, game, params, preset, finished_at::DATE AS day FROM {matches}
                   WHERE status = 'ok'),
        placed AS (
          SELECT s.match_id, s.seat, hash(s.agent_name) AS who, coalesce(s.role, 'seat ' || s.seat) AS apart,
                 coalesce(s.role, '') AS shared,
                 dense_rank() OVER (PARTITION BY s.match_id ORDER BY NOT coalesce(s.won, false), s.rank) AS rank
          FROM {seats} s WHERE s.rank IS NOT NULL AND s.match_id IN (SELECT match_id FROM m)),
        seat_pairs AS (
          SELECT x.match_id, r.together, x.who AS a, y.who AS b,
                 CASE WHEN x.rank = y.rank THEN 0.5 WHEN x.rank < y.rank THEN 1.0 ELSE 0.0 END AS score
          FROM placed x JOIN placed y ON x.match_id = y.match_id AND x.who < y.who
          CROSS JOIN (SELECT unnest([false, true]) AS together) r
          WHERE CASE WHEN r.together THEN x.shared <> y.shared ELSE x.apart <> y.apart END),
        per_match AS (
          SELECT match_id, together, a, b, count(*) AS pairs, sum(score) AS score_sum,
                 sum(count(*)) OVER (PARTITION BY match_id, together)::BIGINT AS comparisons
          FROM seat_pairs GROUP BY match_id, together, a, b),
        kinds AS (
          SELECT match_id, together, hash(list((a, b, pairs, score_sum) ORDER BY a, b)) AS kind
          FROM per_match GROUP BY match_id, together),
        counted AS (
          SELECT m.run_id, m.game, m.params, m.preset, m.day, k.together, k.kind, p.a, p.b, p.pairs, p.score_sum,
                 p.comparisons, count(*) AS matches
          FROM per_match p JOIN kinds k USING (match_id, together) JOIN m USING (match_id) GROUP BY ALL),
        agents AS (
          SELECT DISTINCT hash(s.agent_name) AS who, s.agent_name, {model_sql('s')} AS label,
                 s.temperature, s.prompt_version, s.max_tokens
          FROM {seats} s WHERE s.rank IS NOT NULL AND s.match_id IN (SELECT match_id FROM m))
        SELECT c.* EXCLUDE (a, b), {", ".join(f"x.{c} AS a_{c}" for c in SIDE)},
               {", ".join(f"y.{c} AS b_{c}" for c in SIDE)}
        FROM counted c JOIN agents x ON x.who = c.a JOIN agents y ON y.who = c.b"""
