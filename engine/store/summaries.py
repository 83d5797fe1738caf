"""The summaries: what the headline tables add up per agent, kept beside the turn log so a page sums a few
thousand rows instead of joining a million turns. One row of `agent_summary` per run x game x match params x
preset x (whether the match had several agents) x (whether some seat's move in it was a fallback) x agent (its
label and the settings that can name it apart: temperature, prompt version, max_tokens): contested matches,
seats, wins, draws, score sums, decisions, valid decisions, fallback wins and cost; of `metric_summary`, per the
same and a metric, what a score averages. The summing grain is what a page selects by (runs, games, rule sets,
which are params, presets, and matches without fallback moves), so any such selection is a sum of rows; a date
range or an agent filter is not, and is read from the log (engine/headline.py decides). `pairwise_summary` keeps, per
run x game x params x preset, the comparisons between agents the Bradley-Terry fit reads
(engine/metrics/bradley_terry.py), and `agent_settings` every setting a label was played at, so that naming agents
(`selection.agent_sql`) needs no scan of the seats. `seat_summary` keeps, per seat key (the agent, its strategy and
role, whether it is its match's challenger, the match's outcome flag) and value (a metric, its win, its score,
MAgIC's Reasoning items...), what the Who is Spy and MAgIC boards add up (engine/metrics/seat_sums.py), and
`gamabench_summary`, per agent, strategy, imported study and repeat, the matches and `gamabench_score`s γ-Bench's
table adds up (engine/metrics/gamabench.py). `run_totals` keeps per run the errors, tokens and dollars of every
attempt stored, ok or errored (Launch's runs panel), and `match_scores` one row per `ok` match and agent with its
score there (the Robustness page): not sums over a key but the per-match rows a page would otherwise join the log for.

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

from collections.abc import Iterator
from contextlib import contextmanager
from itertools import chain

import duckdb
import pyarrow as pa

from engine.belief_reasoning import seat_reasoning_rows
from engine.step_fields import SEAT_FIELDS, SEAT_FIELDS_OF
from engine.store.schema import TABLES
from engine.valid_answers import valid_sql

KEYS = ("run_id", "game", "params", "preset", "several", "fallbacks", "label", "temperature", "prompt_version",
        "max_tokens")
SIDE = ("label", "temperature", "prompt_version", "max_tokens")  # an agent of a pair, as `KEYS` name it
PAIR_KEYS = ("run_id", "game", "params", "preset", "together", "kind", *(f"a_{c}" for c in SIDE),
             *(f"b_{c}" for c in SIDE), "pairs", "score_sum", "comparisons")
# `seat_summary`'s keys: `KEYS` and what the social boards (Who is Spy, MAgIC) tell seats apart by, and a value
SEAT_KEYS = (*KEYS, "strategy", "role", "challenger", "flag", "name")
# `gamabench_summary`'s keys: what γ-Bench's table tells matches apart by (an imported record's study of its own, the
# run's repeat for the spread over runs), whether the match had a fallback move, and an agent with its strategy
GAMABENCH_KEYS = ("run_id", "game", "params", "preset", "own_setting", "repeat", "fallbacks", *SIDE, "strategy")
# `step_summary`'s keys: what a selection and an agent filter pick its rows by, a step and a field of its record
STEP_KEYS = ("run_id", "game", "params", "preset", "fallbacks", *SIDE, "step", "name")
# each table and the columns it sums by (the others are the sums; a row whose first sum is 0 is dropped)
SUMMARIES = {"agent_summary": KEYS, "metric_summary": (*KEYS, "name"), "pairwise_summary": PAIR_KEYS,
             "agent_settings": SIDE, "seat_summary": SEAT_KEYS, "gamabench_summary": GAMABENCH_KEYS,
             "run_totals": ("run_id",), "step_summary": STEP_KEYS}
# what tells `match_scores`' rows apart (one per match and agent: it is appended and deleted, never summed)
MATCH_SCORE_KEYS = ("match_id", "label", "prompt_version", "temperature", "strategy", "max_tokens")
# `agent_settings` as `selection.agent_sql` reads the seats (a label, else the agent)
SETTINGS_SOURCE = "(SELECT *, label AS agent FROM agent_settings)"
# an agent as `engine.selection.agent_sql` tells agents apart: by label, then by every setting that names it
_IDENTITY = ("coalesce(s.label, s.agent)", "coalesce(CAST(s.temperature AS VARCHAR), '-')",
             "coalesce(s.prompt_version, '-')", "coalesce(CAST(s.max_tokens AS VARCHAR), '-')")


def _seats_sql(matches: str, seats: str, turns: str) -> str:
    """The CTEs both summaries start from: the seats of the `ok` matches (`s`) and, per match (`agents`),
    whether it had several agents and whether some seat's move was a fallback (`engine.selection.own_moves_sql`)."""
    identity = ", ".join(_IDENTITY)
    return f"""
        WITH m AS (SELECT match_id, run_id, game, params, preset FROM {matches} WHERE status = 'ok'),
        s AS (SELECT s.match_id, s.seat, s.rank, s.role, s.score, coalesce(s.won, false) AS won,
                     s.agent, coalesce(s.label, s.agent) AS label, s.temperature, s.prompt_version, s.max_tokens,
                     m.run_id, m.game, m.params, m.preset
              FROM {seats} s JOIN m USING (match_id)),
        agents AS (SELECT match_id, count(DISTINCT ({identity})) > 1 AS several,
                          match_id IN (SELECT match_id FROM {turns} WHERE fallback) AS fallbacks FROM {seats} s
                   WHERE match_id IN (SELECT match_id FROM m) GROUP BY match_id)"""


def metric_contributions_sql(matches: str, seats: str, turns: str, metrics: str) -> str:
    """The `metric_summary` rows of the `ok` matches of the tables (or views) named: per agent and metric, its
    score per match as `headline.scores` takes it (the mean of its seats' values), counted, summed and squared."""
    return f"""{_seats_sql(matches, seats, turns)},
        per_match AS (
          SELECT s.match_id, s.run_id, s.game, s.params, s.preset, s.label, s.temperature, s.prompt_version,
                 s.max_tokens, x.name, avg(x.value) AS score
          FROM s JOIN {metrics} x ON x.match_id = s.match_id AND x.seat = s.seat GROUP BY ALL)
        SELECT p.run_id, p.game, p.params, p.preset, a.several, a.fallbacks, p.label, p.temperature,
               p.prompt_version, p.max_tokens, p.name, count(*) AS matches, sum(p.score) AS total,
               sum(p.score * p.score) AS squares
        FROM per_match p JOIN agents a USING (match_id) GROUP BY ALL"""


def illegal_move_sql(alias: str = "t") -> str:
    """The SQL condition that a `turns` row (as `alias`) is an illegal move as LLMArena counts them (its Table 2,
    engine/metrics/llmarena_analyses.py `hint_ablation`): the first answer was rejected (a re-ask or a fallback), or
    the move was played on a taken cell or a full column (`illegal` in the state's `last_move`: it lost the game).
    The state is parsed only where its text names `illegal`."""
    return (f"({alias}.retries > 0 OR {alias}.fallback OR coalesce(contains({alias}.state::VARCHAR, 'illegal') "
            f"AND json_extract({alias}.state, '$.last_move.illegal')::BOOLEAN, false))")


def contributions_sql(matches: str, seats: str, turns: str) -> str:
    """The summary rows of the `ok` matches of the tables (or views) named: the headline's per-agent figures
    (engine/headline.py `agent_figures`, over `ratings.seat_outcomes_sql`) before they are summed over rows."""
    identity = ", ".join(_IDENTITY)
    return f"""{_seats_sql(matches, seats, turns)},
        placed AS (SELECT *, min(rank) OVER (PARTITION BY match_id) AS best,
                          count(*) OVER (PARTITION BY match_id, {identity}) AS held
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
        SELECT p.run_id, p.game, p.params, p.preset, a.several, a.fallbacks, p.label, p.temperature,
               p.prompt_version, p.max_tokens, count(DISTINCT p.match_id) AS matches, count(*) AS seats,
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


def pairwise_contributions_sql(matches: str, seats: str) -> str:
    """The `pairwise_summary` rows of the `ok` matches of the tables (or views) named: each match's comparisons
    between agents as `outcomes.pairwise_outcomes` makes them (every pair of seats of different agents in different
    teams, teammates never compared whatever their ranks: the better rank, winners first, wins; equal ranks tie),
    per pair of agents (`a` the one whose identity hashes lower) how many seat pairs (`pairs`), the sum of `a`'s
    scores in them (1 won, 0.5 tie: sums exact in a double) and the match's comparisons in all; `kind` hashes a
    match's whole set, so matches alike are one row counted `matches` times. Both readings of a seat without a role
    (`together` false: a team of its own; true: one team with the others, as in a cooperative game), since the
    store does not know the games. The seats are joined by the hash of their agent's identity, its columns added
    once the pairs are counted: a million matches' seat pairs carried with four columns a side did not fit a
    rebuild's memory."""
    identity = ", ".join(_IDENTITY)
    return f"""
        WITH m AS (SELECT match_id, run_id, game, params, preset FROM {matches} WHERE status = 'ok'),
        placed AS (
          SELECT s.match_id, s.seat, hash({identity}) AS who, coalesce(s.role, 'seat ' || s.seat) AS apart,
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
          SELECT m.run_id, m.game, m.params, m.preset, k.together, k.kind, p.a, p.b, p.pairs, p.score_sum,
                 p.comparisons, count(*) AS matches
          FROM per_match p JOIN kinds k USING (match_id, together) JOIN m USING (match_id) GROUP BY ALL),
        agents AS (
          SELECT DISTINCT hash({identity}) AS who, coalesce(s.label, s.agent) AS label, s.temperature,
                 s.prompt_version, s.max_tokens
          FROM {seats} s WHERE s.rank IS NOT NULL AND s.match_id IN (SELECT match_id FROM m))
        SELECT c.* EXCLUDE (a, b), {", ".join(f"x.{c} AS a_{c}" for c in SIDE)},
               {", ".join(f"y.{c} AS b_{c}" for c in SIDE)}
        FROM counted c JOIN agents x ON x.who = c.a JOIN agents y ON y.who = c.b"""


# what `seat_summary` sums besides the metrics (`name`), each a value per seat: the seat itself (1), its win (1 or 0),
# its score, its fallback votes for the special player (MAgIC's Judgement counts them wrong) and its Reasoning items
SEAT, WON, SCORE, FALLBACK_VOTES = "seat", "won", "score", "fallback_votes_correct"


def seat_contributions_sql(matches: str, seats: str, turns: str, metrics: str, reasoning: str) -> str:
    """The `seat_summary` rows of the `ok` matches of the tables (or views) named: per seat key (`SEAT_KEYS`: the
    agent and its strategy, its role, whether it is the match's challenger, the match's outcome `flag`) and value
    name, the seats with that value and its sum. Every seat's own values (`SEAT`, `WON`, `SCORE`), its metrics
    summed per seat, its fallback votes for the special seat, and the rows of `reasoning` (match_id, seat, name,
    value: `reasoning_rows`). The challenger as engine/metrics/magic_social.py names it: the match parameter
    `tested_role`, else the one seat whose agent and strategy differ from the others' (three seats or more), else
    every seat; agents told apart by their whole identity, as `agent_sql` tells them apart within a match."""
    identity = ", ".join(_IDENTITY)
    return f"""
        WITH m AS (SELECT match_id, run_id, game, params, preset,
                          TRY_CAST(json_extract(outcome, '$.special_seat') AS INTEGER) AS special_seat,
                          TRY_CAST(json_extract(outcome, '$.flag') AS INTEGER) AS flag,
                          json_extract_string(params, '$.tested_role') AS tested_role
                   FROM {matches} WHERE status = 'ok'),
        s AS (SELECT s.match_id, s.seat, s.role, s.score, s.won, coalesce(s.label, s.agent) AS label, s.temperature,
                     s.prompt_version, s.max_tokens, s.strategy, hash({identity}) AS who,
                     hash({identity}, coalesce(s.strategy, '-')) AS player, m.* EXCLUDE (match_id)
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
        SELECT s.run_id, s.game, s.params, s.preset, h.several, f.fallbacks, s.label, s.temperature, s.prompt_version,
               s.max_tokens, s.strategy, s.role,
               CASE WHEN s.tested_role = 'special' THEN s.seat = s.special_seat
                    WHEN s.tested_role = 'common' THEN s.seat <> s.special_seat
                    WHEN h.players = 2 AND h.fewest = 1 AND h.n_seats > 2 THEN s.player = h.lone
                    ELSE true END AS challenger,
               s.flag, v.name, count(v.value) AS seats, sum(v.value) AS total
        FROM s JOIN shapes h USING (match_id) JOIN fallbacks f USING (match_id) JOIN values_ v USING (match_id, seat)
        GROUP BY ALL HAVING count(v.value) > 0"""


def gamabench_contributions_sql(matches: str, seats: str, turns: str, metrics: str) -> str:
    """The `gamabench_summary` rows of the `ok` matches of the tables (or views) named: per agent and strategy
    (`GAMABENCH_KEYS`), the matches it sat in, those with a `gamabench_score` (`scored`) and their scores summed
    (`total`), each match's score as engine/metrics/gamabench.py's `leaderboard` takes it: the match's own score
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
        s AS (SELECT match_id, seat, coalesce(label, agent) AS label, temperature, prompt_version, max_tokens, strategy,
                     count(*) OVER (PARTITION BY match_id) AS match_seats
              FROM {seats} WHERE match_id IN (SELECT match_id FROM m)),
        held AS (
          SELECT s.match_id, s.label, s.temperature, s.prompt_version, s.max_tokens, s.strategy,
                 count(*) = any_value(s.match_seats) AS every_seat, avg(x.value) AS seat_score
          FROM s LEFT JOIN score x ON x.match_id = s.match_id AND x.seat = s.seat
          GROUP BY s.match_id, s.label, s.temperature, s.prompt_version, s.max_tokens, s.strategy),
        per_match AS (
          SELECT h.*, CASE WHEN h.every_seat THEN coalesce(x.value, h.seat_score) ELSE h.seat_score END AS score
          FROM held h LEFT JOIN score x ON x.match_id = h.match_id AND x.seat IS NULL)
        SELECT m.run_id, m.game, m.params, m.preset, m.own_setting, m."repeat", m.fallbacks, p.label, p.temperature,
               p.prompt_version, p.max_tokens, p.strategy, count(*) AS matches, count(p.score) AS scored,
               coalesce(sum(p.score), 0) AS total
        FROM per_match p JOIN m USING (match_id) GROUP BY ALL"""


def _left_out_sql(game: str, name: str) -> str:
    """Whether field `name` of a step record of `game` (SQL expressions) is no figure: the round's number, or a seat
    (`engine.step_fields`: who acted, not how much)."""
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
    average (engine/metrics/gamabench.py `round_curves`), read the same way from the log and into `step_summary`."""
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
    for the match, label NULL) and step, the matches reaching that step (`name` NULL) and per field (`name`) the
    matches whose record holds it and its sum (`step_values_sql`)."""
    return f"""
        WITH m AS (SELECT match_id, run_id, game, params, preset,
                          match_id IN (SELECT match_id FROM {turns} WHERE fallback) AS fallbacks
                   FROM {matches} WHERE status = 'ok'),
        v AS ({step_values_sql(matches, turns)}),
        per_step AS (SELECT match_id, step, name, value FROM v
                     UNION ALL SELECT DISTINCT match_id, step, NULL, NULL FROM v),
        who AS (SELECT DISTINCT match_id, coalesce(label, agent) AS label, temperature, prompt_version, max_tokens
                FROM {seats} WHERE match_id IN (SELECT match_id FROM v)
                UNION ALL SELECT DISTINCT match_id, NULL, NULL, NULL, NULL FROM v)
        SELECT m.run_id, m.game, m.params, m.preset, m.fallbacks, w.label, w.temperature, w.prompt_version,
               w.max_tokens, p.step, p.name, count(*) AS matches, coalesce(sum(p.value), 0) AS total
        FROM per_step p JOIN who w USING (match_id) JOIN m USING (match_id) GROUP BY ALL"""


def run_totals_sql(matches: str, turns: str) -> str:
    """The `run_totals` rows of the matches of the tables (or views) named, whatever their status: per run its
    matches, those errored, and its seated turns' tokens (in and out), dollars and calls without a price (tokens in
    but no cost), as Launch's runs panel shows them (`engine.launch.processes.progress`)."""
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
    """The `match_scores` rows of the `ok` matches of the tables (or views) named: per match and agent (its label
    and settings, its strategy), the seats it held and its score, as the Robustness page compares them: the match's
    `gamabench_score` where the agent holds every seat (γ-Bench's self-play), else the mean of its seats' scores.
    `scored_seats`, some of `seats` (one agent's), narrows the rows to theirs: the seats are counted in full only
    in the matches with a match score, where the count decides which score is the agent's."""
    return f"""
        WITH m AS (SELECT match_id, run_id, game, preset, params, seed, "repeat", finished_at FROM {matches}
                   WHERE status = 'ok'),
        held AS (
          SELECT match_id, coalesce(label, agent) AS label, prompt_version, temperature, strategy, max_tokens,
                 count(*) AS seats, avg(score) AS seat_score
          FROM {scored_seats or seats} WHERE match_id IN (SELECT match_id FROM m) GROUP BY ALL),
        whole AS (SELECT match_id, value FROM {metrics} WHERE seat IS NULL AND name = 'gamabench_score'
                  AND match_id IN (SELECT match_id FROM held)),
        seat_count AS (SELECT match_id, count(*) AS n FROM {seats} WHERE match_id IN (SELECT match_id FROM whole)
                       GROUP BY match_id)
        SELECT m.*, h.label, h.prompt_version, h.temperature, h.strategy, h.max_tokens, h.seats,
               CASE WHEN h.seats = c.n THEN coalesce(w.value, h.seat_score) ELSE h.seat_score END AS score
        FROM held h JOIN m USING (match_id) LEFT JOIN whole w USING (match_id)
        LEFT JOIN seat_count c USING (match_id)"""


# the turns that carry a belief (a probe's answer, or a pgm strategy's belief text in its decision): the only ones
# Reasoning reads
CARRIES_A_BELIEF = ("t.seat IS NOT NULL AND (t.phase = 'belief' OR (contains(t.action, 'belief') "
                    "AND json_extract(t.action, '$.extra.belief') IS NOT NULL))")


def reasoning_rows(con: duckdb.DuckDBPyConnection, matches: str, seats: str, turns: str) -> pa.Table:
    """Per seat of the `ok` matches of the tables (or views) named whose turns carry beliefs, its Reasoning items
    (`REASONING_ITEMS`) and those right under each reading of a missing suspicion (`REASONING_RIGHT:<reading>`), as
    (match_id, seat, name, value) rows for `seat_contributions_sql`: worked out in Python (the belief texts are
    parsed) by engine/belief_reasoning.py, a match at a time, so the summary keeps what a page would read the
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


def _seat_rows_sql(con: duckdb.DuckDBPyConnection, matches: str, seats: str, turns: str, metrics: str) -> str:
    """`seat_contributions_sql` over the tables named, their Reasoning rows registered as `seat_reasoning`."""
    con.register("seat_reasoning", reasoning_rows(con, matches, seats, turns))
    return seat_contributions_sql(matches, seats, turns, metrics, "seat_reasoning")


def settings_sql(seats: str) -> str:
    """The `agent_settings` rows of the seats of the table (or view) named, whatever their match's status."""
    return f"""SELECT coalesce(label, agent) AS label, temperature, prompt_version, max_tokens, count(*) AS seats
               FROM {seats} GROUP BY ALL"""


def add_attempts(con: duckdb.DuckDBPyConnection, matches: str, seats: str, turns: str, sign: int = 1) -> None:
    """Inside the writer's transaction: count (or with `sign` -1, uncount) the matches of the tables or views named,
    written or deleted, whatever their status, in what counts every attempt: the settings of their seats (an errored
    attempt's seats are seats too, as `agent_sql` reads them) and their runs' totals (its calls were made)."""
    _merge(con, "agent_settings", settings_sql(seats), sign)
    _merge(con, "run_totals", run_totals_sql(matches, turns), sign)


def _merge(con: duckdb.DuckDBPyConnection, table: str, rows_sql: str, sign: int) -> None:
    """Add (`sign` 1) or take away (-1) the rows `rows_sql` selects to summary `table`: the rows of their keys
    are replaced by their sums, and a key no match counts any more is dropped."""
    keys = SUMMARIES[table]
    counts = [name for name, _ in TABLES[table] if name not in keys]
    same = " AND ".join(f"a.{k} IS NOT DISTINCT FROM d.{k}" for k in keys)
    signed = ", ".join(f"{sign} * {c} AS {c}" for c in counts)
    con.execute(f"CREATE OR REPLACE TEMP TABLE summary_delta AS SELECT {', '.join(keys)}, {signed} FROM ({rows_sql})")
    con.execute(f"""CREATE OR REPLACE TEMP TABLE summary_merged AS
        SELECT {', '.join(keys)}, {', '.join(f"sum({c}) AS {c}" for c in counts)} FROM (
          SELECT * FROM {table} a WHERE EXISTS (SELECT 1 FROM summary_delta d WHERE {same})
          UNION ALL BY NAME SELECT * FROM summary_delta)
        GROUP BY ALL""")
    con.execute(f"DELETE FROM {table} a WHERE EXISTS (SELECT 1 FROM summary_delta d WHERE {same})")
    con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM summary_merged WHERE {counts[0]} <> 0")
    con.execute("DROP TABLE summary_delta")
    con.execute("DROP TABLE summary_merged")


def add_matches(con: duckdb.DuckDBPyConnection, matches: str, seats: str, turns: str, metrics: str,
                sign: int = 1) -> None:
    """Inside the writer's transaction: count (or with `sign` -1, uncount) the `ok` matches of the tables or
    views named, and bump the generation."""
    _merge(con, "agent_summary", contributions_sql(matches, seats, turns), sign)
    _merge(con, "metric_summary", metric_contributions_sql(matches, seats, turns, metrics), sign)
    _merge(con, "pairwise_summary", pairwise_contributions_sql(matches, seats), sign)
    _merge(con, "seat_summary", _seat_rows_sql(con, matches, seats, turns, metrics), sign)
    con.unregister("seat_reasoning")
    _merge(con, "gamabench_summary", gamabench_contributions_sql(matches, seats, turns, metrics), sign)
    _merge(con, "step_summary", step_contributions_sql(matches, seats, turns), sign)
    if sign > 0:  # a match's scores are appended, and deleted with it: a merge would look each up among millions
        con.execute(f"INSERT INTO match_scores BY NAME {match_scores_sql(matches, seats, metrics)}")
    else:
        con.execute(f"DELETE FROM match_scores WHERE match_id IN (SELECT match_id FROM {matches} WHERE status = 'ok')")
    con.execute(f"UPDATE generation SET summarized = summarized + {sign} * "
                f"(SELECT count(*) FROM {matches} WHERE status = 'ok')")
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
    con.execute("INSERT INTO generation SELECT 0, CASE WHEN NOT EXISTS (SELECT 1 FROM matches) THEN 0 END "
                "WHERE NOT EXISTS (SELECT 1 FROM generation)")


# A rebuild reads the whole log: at a million matches (20M turns) its joins and aggregates need about 1 GB, where
# the writer's connection is capped at 128 MB (`connections.WRITER_MEMORY`) and ran out of it.
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


def rebuild(con: duckdb.DuckDBPyConnection) -> None:
    """Inside a transaction: the summaries computed again from the whole log."""
    with _rebuilding(con):
        con.execute("DELETE FROM metric_summary")
        con.execute("INSERT INTO metric_summary BY NAME "
                    f"{metric_contributions_sql('matches', 'seats', 'turns', 'metrics')}")
        rebuild_pairwise(con)
        rebuild_seats(con)
        rebuild_gamabench(con)
        rebuild_runs_and_scores(con)
        rebuild_agents_and_steps(con)
    written = generation(con)
    con.execute("DELETE FROM generation")
    con.execute("INSERT INTO generation SELECT ?, (SELECT count(*) FROM matches WHERE status = 'ok')", [written])
    bump(con)


def rebuild_pairwise(con: duckdb.DuckDBPyConnection) -> None:
    """Inside a transaction: `pairwise_summary` and `agent_settings` computed again from the whole log (the
    upgrade to version 9)."""
    with _rebuilding(con):
        con.execute("DELETE FROM pairwise_summary")
        con.execute(f"INSERT INTO pairwise_summary BY NAME {pairwise_contributions_sql('matches', 'seats')}")
        con.execute("DELETE FROM agent_settings")
        con.execute(f"INSERT INTO agent_settings BY NAME {settings_sql('seats')}")


def rebuild_seats(con: duckdb.DuckDBPyConnection) -> None:
    """Inside a transaction: `seat_summary` computed again from the whole log (the upgrade to version 10), its rows
    in game order (a board reads a few games: DuckDB skips the other games' row groups)."""
    with _rebuilding(con):
        con.execute("DELETE FROM seat_summary")
        rows = _seat_rows_sql(con, "matches", "seats", "turns", "metrics")
        con.execute(f"INSERT INTO seat_summary BY NAME SELECT * FROM ({rows}) ORDER BY game")
        con.unregister("seat_reasoning")


def rebuild_gamabench(con: duckdb.DuckDBPyConnection) -> None:
    """Inside a transaction: `gamabench_summary` computed again from the whole log (the upgrade to version 11), its
    rows in game order as the seat summary's."""
    with _rebuilding(con):
        con.execute("DELETE FROM gamabench_summary")
        rows = gamabench_contributions_sql("matches", "seats", "turns", "metrics")
        con.execute(f"INSERT INTO gamabench_summary BY NAME SELECT * FROM ({rows}) ORDER BY game")


def rebuild_runs_and_scores(con: duckdb.DuckDBPyConnection) -> None:
    """Inside a transaction: `run_totals` and `match_scores` computed again from the whole log (the upgrade to
    version 13), the scores in label order (Robustness reads one label: DuckDB skips the others' row groups)."""
    with _rebuilding(con):
        con.execute("DELETE FROM run_totals")
        con.execute(f"INSERT INTO run_totals BY NAME {run_totals_sql('matches', 'turns')}")
        con.execute("DELETE FROM match_scores")
        rows = match_scores_sql("matches", "seats", "metrics")
        con.execute(f"INSERT INTO match_scores BY NAME SELECT * FROM ({rows}) ORDER BY label")


def rebuild_agents_and_steps(con: duckdb.DuckDBPyConnection) -> None:
    """Inside a transaction: `agent_summary` and `step_summary` computed again from the whole log (the upgrade to
    version 14: the agents' illegal moves, the steps' records), the steps in game order as the seat summary's."""
    with _rebuilding(con):
        con.execute("DELETE FROM agent_summary")
        con.execute(f"INSERT INTO agent_summary BY NAME {contributions_sql('matches', 'seats', 'turns')}")
        con.execute("DELETE FROM step_summary")
        rows = step_contributions_sql("matches", "seats", "turns")
        con.execute(f"INSERT INTO step_summary BY NAME SELECT * FROM ({rows}) ORDER BY game")


def generation(con: duckdb.DuckDBPyConnection) -> int:
    """How many writes the database has seen: a cache of anything read from it keys on this."""
    [row] = con.execute("SELECT max(generation) FROM generation").fetchall()  # whole: the connection is free again
    return int(row[0] or 0)


def in_step(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the summaries count every `ok` match stored (and nothing else), and the run totals every match (an
    errored one inserted around the writer leaves them out of step too)."""
    [(same,)] = con.execute("SELECT (SELECT max(summarized) FROM generation) = "
                            "(SELECT count(*) FROM matches WHERE status = 'ok') AND "
                            "(SELECT coalesce(sum(matches), 0) FROM run_totals) = "
                            "(SELECT count(*) FROM matches)").fetchall()  # whole: the connection is free again
    return bool(same)
