"""MAgIC's cognition half (Chameleon and Undercover with `rules: magic`) and LLMArena's Undercover study.

Formulas are ../shared/SPEC.md's, pooled over all of an agent's games as the authors' code does.
An agent is `seats.label` with its strategy; in a match where exactly one seat differs from the
others (the competition setting: a challenger against defenders of one model) only that seat is
scored; otherwise (self-play, mixed tables) every seat is.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pandas as pd

from engine import store
from engine.games.social import read_belief_text

SELF_AWARENESS_CHAMELEON_WEIGHT = 0.6
DECEPTION_GUESS_WEIGHT = 0.25
ABILITY_COLUMNS = ["agent", "strategy", "chameleon_wr", "non_chameleon_wr", "undercover_wr", "civilian_wr",
                   "judgement", "reasoning", "deception", "self_awareness"]
NO_STRATEGY = "-"  # bots have none
SOCIAL_GAMES = "m.game = 'chameleon' OR (m.game = 'undercover' AND json_extract_string(m.params, '$.rules') = 'magic')"


def social_seats(db: str | Path, where: str, params: list | None = None) -> pd.DataFrame:
    """One row per seat of the finished social matches selected by `where` (over m = matches, with its
    `params`), with
    `agent` (the label), `strategy`, the outcome's `special_seat`, `n_players` (its number of words) and
    `guess_correct`, every metric as a column, and `challenger`. The challenger and the metrics'
    long -> wide are worked out in DuckDB, not per match in Python."""
    selected = f"SELECT match_id FROM matches m WHERE m.status = 'ok' AND ({where})"
    with store.reading(db):
        names = [n for (n,) in store.rows(db, f"""
            SELECT DISTINCT name FROM metrics WHERE seat IS NOT NULL AND name IS NOT NULL
              AND match_id IN ({selected})""", params)]
        return store.query(db, _seats_sql(where, sorted(names)), params)


def _seats_sql(where: str, metric_names: list[str]) -> str:
    """The seats of the selected matches, their metrics long -> wide (summed), and the challenger:
    the one seat whose agent|strategy differs from all the others' (who share one) in a match of
    three seats or more, else every seat."""
    wide = "".join(f", sum(value) FILTER (WHERE name = {_literal(n)}) AS {_identifier(n)}" for n in metric_names)
    metric_columns = "".join(f", w.{_identifier(n)}" for n in metric_names)
    return f"""
        WITH sel AS (
            SELECT s.match_id, s.seat, coalesce(s.label, s.agent) AS agent,
                   coalesce(s.strategy, '{NO_STRATEGY}') AS strategy, s.role, s.score, s.won, m.game,
                   json_extract_string(m.params, '$.rules') AS rules,
                   CAST(json_extract(m.outcome, '$.special_seat') AS INTEGER) AS special_seat,
                   json_array_length(m.outcome, '$.words') AS n_players,
                   CAST(json_extract(m.outcome, '$.guess_correct') AS BOOLEAN) AS guess_correct
            FROM seats s JOIN matches m USING (match_id)
            WHERE m.status = 'ok' AND ({where})),
        identities AS (
            SELECT match_id, agent || '|' || strategy AS identity, count(*) AS holders
            FROM sel GROUP BY ALL),
        shapes AS (
            SELECT match_id, count(*) AS n_identities, min(holders) AS fewest, sum(holders) AS n_seats,
                   arg_min(identity, holders) AS lone
            FROM identities GROUP BY match_id),
        wide AS (
            SELECT match_id, seat{wide} FROM metrics
            WHERE seat IS NOT NULL AND match_id IN (SELECT match_id FROM sel) GROUP BY match_id, seat)
        SELECT sel.*{metric_columns},
               CASE WHEN h.n_identities = 2 AND h.fewest = 1 AND h.n_seats > 2
                    THEN sel.agent || '|' || sel.strategy = h.lone ELSE true END AS challenger
        FROM sel JOIN shapes h USING (match_id)
        LEFT JOIN wide w ON w.match_id = sel.match_id AND w.seat = sel.seat
        ORDER BY sel.match_id, sel.seat"""


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _identifier(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def ratios(num: pd.Series, den: pd.Series) -> pd.Series:
    """num / den element-wise, NaN where den is 0 (no games, no chances)."""
    return num / den.where(den != 0)


def column(frame: pd.DataFrame, name: str) -> pd.Series:
    """A metric column with missing values as 0, or zeros when no selected match stored it."""
    return frame[name].fillna(0) if name in frame else pd.Series(0.0, index=frame.index)


def group_sums(rows: pd.DataFrame, figures: dict[str, pd.Series]) -> pd.DataFrame:
    """Per agent and strategy (sorted), the sum of each per-seat figure: one vectorised groupby in
    place of a Python loop over the agents. The figures are counts, so the sums are exact in any order."""
    frame = pd.DataFrame(figures, index=rows.index)
    return frame.groupby([rows["agent"], rows["strategy"]], sort=True).sum()


def won_flags(rows: pd.DataFrame) -> pd.Series:
    """1.0 for a won seat, 0.0 otherwise (unknown counts as lost)."""
    return rows["won"].fillna(False).astype(bool).astype(float)


def only_on(mask: pd.Series, values: pd.Series) -> pd.Series:
    """values on the rows of mask, 0 elsewhere: a figure summed over a subset of an agent's seats."""
    return values.where(mask, 0.0)


# ---------------------------------------------------------------- Reasoning from the belief probes
def _beliefs(db: str | Path, match_ids: list[str]) -> dict[tuple[str, int, int], dict[str, Any] | None]:
    """(match, seat, round) -> the seat's belief that round: the pgm strategy's own belief text when
    its decisions carry one (turns.action.extra.belief), else the answer to the belief probe.
    A probe that ended in a fallback is a failed belief (None). Only the turns that carry a belief
    are read (a cheap text test first spares parsing every action's JSON)."""
    if not match_ids:
        return {}
    turns = store.query(db, """
        SELECT t.match_id, t.seat, t.round, t.phase, t.action, t.fallback, n.n
        FROM turns t JOIN (SELECT match_id, count(*) AS n FROM seats WHERE match_id IN (SELECT unnest(?))
                           GROUP BY match_id) n USING (match_id)
        WHERE t.seat IS NOT NULL AND (t.phase = 'belief' OR (contains(t.action, 'belief')
                                                             AND json_extract(t.action, '$.extra.belief') IS NOT NULL))
        ORDER BY t.match_id, t.turn""", [match_ids])
    probe: dict[tuple[str, int, int], dict[str, Any] | None] = {}
    texts: dict[tuple[str, int, int], str] = {}
    sizes: dict[str, int] = {}
    for row in turns.itertuples(index=False):
        key = (row.match_id, int(row.seat), int(row.round))
        sizes[row.match_id] = int(row.n)
        action = json.loads(row.action) if isinstance(row.action, str) else (row.action or {})
        text = (action.get("extra") or {}).get("belief")
        if isinstance(text, str) and text.strip() and (key not in texts or row.phase == "belief"):
            texts[key] = text
        if row.phase == "belief":
            answer = action.get("action")
            probe[key] = None if row.fallback or not isinstance(answer, dict) else answer
    out = dict(probe)
    for key, text in texts.items():
        names = tuple(f"Player {i + 1}" for i in range(sizes[key[0]]))
        out[key] = read_belief_text(text, names, names[key[1]]) or probe.get(key)
    return out


def reasoning_counts(seats: pd.DataFrame, beliefs: dict) -> dict[int, tuple[int, int]]:
    """Row index -> (correct, asked) beliefs: the seat's suspect vs the truth, and its guess of whom
    each other player suspects vs that player's own stated suspect; (0, 0) for a seat without beliefs."""
    out: dict[int, tuple[int, int]] = dict.fromkeys(seats.index, (0, 0))
    rounds_of = defaultdict(set)
    for (match, seat, rnd) in beliefs:
        rounds_of[(match, seat)].add(rnd)
    believers = seats[seats["match_id"].isin({match for match, _ in rounds_of})]
    rows = zip(believers.index, believers["match_id"], believers["seat"], believers["special_seat"],
               believers["n_players"], strict=True)
    for idx, match, seat, special_seat, n_players in rows:
        if (match, seat) not in rounds_of:
            continue
        special = f"Player {int(special_seat) + 1}"
        others = [f"Player {s + 1}" for s in range(int(n_players)) if s != seat]
        correct = asked = 0
        for rnd in sorted(rounds_of[(match, seat)]):
            mine = beliefs[(match, seat, rnd)] or {}
            asked += 1
            correct += mine.get("suspect") == special
            thinks = mine.get("thinks") or {}
            for other in others:
                theirs = beliefs.get((match, int(other.split()[-1]) - 1, rnd))
                if not theirs or not theirs.get("suspect"):
                    continue  # that player stated no belief: nothing to compare with
                asked += 1
                correct += thinks.get(other) == theirs["suspect"]
        out[idx] = (correct, asked)
    return out


# ---------------------------------------------------------------- the four cognition abilities
SOCIAL_ROLES = {"chameleon_wr": "chameleon", "non_chameleon_wr": "non-chameleon", "undercover_wr": "undercover",
                "civilian_wr": "civilian"}


def social_abilities(db: str | Path) -> pd.DataFrame:
    """Per agent and strategy: the four role win rates, Judgement, Reasoning, Deception and
    Self-awareness of MAgIC's Chameleon and Undercover (`rules: magic`)."""
    with store.reading(db):
        return social_abilities_of(db, social_seats(db, SOCIAL_GAMES))


def social_abilities_of(db: str | Path, seats: pd.DataFrame) -> pd.DataFrame:
    """social_abilities from the seats of the social matches (`social_seats` of SOCIAL_GAMES, or the
    social part of a wider selection); their beliefs are read from `db`."""
    if seats.empty:
        return pd.DataFrame(columns=ABILITY_COLUMNS)
    seats = seats[seats["challenger"]]
    beliefs = _beliefs(db, sorted(seats["match_id"].unique()))
    reasoning = reasoning_counts(seats, beliefs)
    role, game = seats["role"], seats["game"]
    voter = role.isin(["non-chameleon", "civilian"])
    special = role.isin(["chameleon", "undercover"])
    guessed = (role == "non-chameleon") & seats["guess_correct"].notna()
    counts = pd.DataFrame(list(reasoning.values()), index=list(reasoning.keys()), columns=["correct", "asked"],
                          dtype=float)
    figures = {"beliefs_correct": counts["correct"], "beliefs_asked": counts["asked"],
               "votes_correct": only_on(voter, column(seats, "votes_correct")),
               "votes_cast": only_on(voter, column(seats, "votes_cast")),
               "special_games": special.astype(float), "special_won": only_on(special, won_flags(seats)),
               "guesses": guessed.astype(float),
               "guesses_wrong": (guessed & ~seats["guess_correct"].fillna(True).astype(bool)).astype(float)}
    for name, role_name in SOCIAL_ROLES.items():
        figures[f"{name}_credits"] = only_on(role == role_name, column(seats, "credits"))
        figures[f"{name}_max"] = only_on(role == role_name, column(seats, "max_credits"))
    for game_name in ("chameleon", "undercover"):
        for probe in ("role_probes", "role_probes_correct"):
            figures[f"{game_name}_{probe}"] = only_on(game == game_name, column(seats, probe))
    sums = group_sums(seats, figures)
    table = pd.DataFrame({name: ratios(sums[f"{name}_credits"], sums[f"{name}_max"]) for name in SOCIAL_ROLES})
    table["judgement"] = ratios(sums["votes_correct"], sums["votes_cast"])
    table["reasoning"] = ratios(sums["beliefs_correct"], sums["beliefs_asked"])
    table["deception"] = _deception(sums)
    w = SELF_AWARENESS_CHAMELEON_WEIGHT
    table["self_awareness"] = ratios(w * sums["chameleon_role_probes_correct"] + sums["undercover_role_probes_correct"],
                                     w * sums["chameleon_role_probes"] + sums["undercover_role_probes"])
    return table.reset_index().reindex(columns=ABILITY_COLUMNS)


def _deception(sums: pd.DataFrame) -> pd.Series:
    """Wins as chameleon or undercover per such game, plus 0.25 x the share of wrong word guesses by
    the opposing chameleons in the games this agent played as a non-chameleon; NaN with neither."""
    blend = ratios(sums["special_won"], sums["special_games"]).fillna(0.0)
    misled = ratios(sums["guesses_wrong"], sums["guesses"]).fillna(0.0)
    value = blend + DECEPTION_GUESS_WEIGHT * misled
    return value.where((sums["special_games"] > 0) | (sums["guesses"] > 0))


# ---------------------------------------------------------------- LLMArena's Undercover study
def llmarena_undercover_figures(db: str | Path) -> pd.DataFrame:
    """Per agent and strategy playing the undercover in `rules: llmarena` games: its win rate, the share
    of its clues that describe its own word, and how often its word guesses name any / all other
    players' words (LLMArena Table 3: Description, Guess, Guess(strict))."""
    columns = ["agent", "strategy", "games", "undercover_win_rate", "description_rate", "guess_rate",
               "guess_strict_rate"]
    seats = social_seats(db, "m.game = 'undercover' AND json_extract_string(m.params, '$.rules') = 'llmarena'")
    if seats.empty:
        return pd.DataFrame(columns=columns)
    under = seats[seats["challenger"] & (seats["role"] == "undercover")]
    sums = group_sums(under, {"games": pd.Series(1.0, index=under.index), "won": won_flags(under),
                              **{name: column(under, name) for name in (
                                  "clues_describing_own_word", "clues_given", "word_guess_any", "word_guess_all",
                                  "word_guess_probes")}})
    table = pd.DataFrame({"games": sums["games"].astype(int), "undercover_win_rate": sums["won"] / sums["games"],
                          "description_rate": ratios(sums["clues_describing_own_word"], sums["clues_given"]),
                          "guess_rate": ratios(sums["word_guess_any"], sums["word_guess_probes"]),
                          "guess_strict_rate": ratios(sums["word_guess_all"], sums["word_guess_probes"])})
    return table.reset_index().reindex(columns=columns)
