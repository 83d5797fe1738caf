"""MAgIC's cognition half (Chameleon and Undercover with `rules: magic`) and LLMArena's Undercover study.

Formulas are the authors' `metrics_release.py` (cathyxl/MAgIC; docs/METRICS.md), pooled over all
of an agent's games as that file does. Quirks kept from it:
- Deception (`decept`): every outcome flag except 0 counts as a win as chameleon or undercover (a tie,
  a caught chameleon that guessed the word), plus 0.25 x its guess term computed as that function
  does: over the flags of the agent's games as a NON-chameleon, the number of DISTINCT flags among
  {0, 1} (not games) is the denominator and whether flag 1 occurs the numerator (1/2 when both occur).
  Where their code divides by zero (no such flag) the term is 0 here.
- Self-awareness (`consist_pgm`): the role-probe answers pooled unweighted over both games.
- Reasoning (`compute_pgm_metric` of chameleon_competition_pgm.py): per probe and per seat under test, one
  "gold" item (its suspect is the special player) and ONE "inter" item, right only if its guess of whom
  each other player suspects matches every other player's own stated suspect. A missing suspicion row (no
  belief, no suspect named, a probe that failed) reads as Player 1, as their `np.argmax` of a row of zeros
  does: a missing suspect is right when Player 1 is the special player, and two missing rows match
  (`missing_suspicion="authors"`, the default; "unmatched" keeps the cleaner reading, where a missing
  suspect is never right).
- Judgement (`judge`): an unparseable vote (here: a vote that ended in the random fallback) is a wrong vote.
The seats under test: the match parameter `tested_role` says which ('special': the special seat;
'common': every other seat, as the authors' runs seat the challenger); without it, in a match where
exactly one seat differs from the others only that seat is scored, else (self-play, mixed tables)
every seat is. An agent is `seats.agent_name` with its strategy.

The scorers add up their counts in DuckDB (`challenger_sums`: one row per agent leaves it, never the seats):
from the selection's seat summary rows (engine/papers/seat_summary.py; each seat's Reasoning items are counted
there, `seat_reasoning_rows`): the stored rows where they answer, else those of its matches computed from the log by
the summary's own SQL, a part of the log at a time, so memory stays bounded at any size.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from engine import store
from engine.papers import seat_summary as summary_seats
from engine.papers.magic.belief_reasoning import AUTHORS, REASONING_ITEMS, blank_suspect, reasoning_right
from engine.papers.magic.games import SOCIAL
from engine.papers.seat_summary import summed_seat_rows
from engine.store.selection import ALL, Selection, Variant, variants_sql

DECEPTION_GUESS_WEIGHT = 0.25
SOCIAL_COLUMNS = ["agent", "strategy", "chameleon_wr", "non_chameleon_wr", "undercover_wr", "civilian_wr",
                  "judgement", "reasoning", "deception", "self_awareness"]
SOCIAL_GAMES = variants_sql(SOCIAL)  # over matches AS m


def seat_in(variant: Variant) -> str:
    """A SQL condition over the challenger rows `challenger_sums` aggregates: the seat's match was played under
    `variant` (its game, and its `rules` where the variant fixes them; the rows carry no other parameter)."""
    fixed = dict(variant.fixed)
    if set(fixed) - {"rules"}:
        raise ValueError(f"{variant.label}: a seat row knows its game's rules only, not {sorted(fixed)}")
    rules = f" AND rules = {_literal(fixed['rules'])}" if "rules" in fixed else ""
    return f"(game = {_literal(variant.game)}{rules})"


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _identifier(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def ratios(num: pd.Series, den: pd.Series) -> pd.Series:
    """num / den element-wise (the same index), NaN where den is 0 (no games, no chances): in numpy, since a
    board divides dozens of columns and pandas' own division costs a millisecond each."""
    n, d = num.to_numpy(dtype=float), den.to_numpy(dtype=float)
    return pd.Series(np.divide(n, d, out=np.full(len(n), np.nan), where=d != 0), index=num.index)


def challenger_sums(db: str | Path, selection: Selection, variants: tuple[Variant, ...], metrics: tuple[str, ...],
                    sums: dict[str, str], seats_where: str = "true") -> pd.DataFrame:
    """Per agent and strategy (sorted, as the index), each of `sums` (name -> an aggregate over the challenger
    seats of the selected matches of `variants`) as a float, a missing value counting 0. An aggregate reads rows
    of alike seats: `seated` of them, `wins` of those won, their role, game, `rules` and `flag`, and the sums of
    the `metrics` named and of `fallback_votes_correct`, a group of seats from the selection's seat summary rows
    (`summed_seat_rows`). One row per agent comes out of DuckDB."""
    figures = ", ".join(f"CAST(coalesce({sql}, 0) AS DOUBLE) AS {_identifier(name)}" for name, sql in sums.items())
    with store.reading(db):  # rows computed from the log are a temporary table of its connection
        rows, params = _challenger_rows(db, selection, variants, metrics)
        table = store.query(db, f"""
            SELECT agent, strategy, {figures} FROM ({rows})
            WHERE {seats_where} GROUP BY agent, strategy ORDER BY agent, strategy""", params)
    if table.empty:
        return table
    # an index of Python strings: the abilities' dozens of aligned divisions converted an Arrow-backed one each time
    return table.astype({"agent": object, "strategy": object}).set_index(["agent", "strategy"])


def _challenger_rows(db: str | Path, selection: Selection, variants: tuple[Variant, ...],
                     metrics: tuple[str, ...]) -> tuple[str, list]:
    """The challenger seats `challenger_sums` aggregates, and their parameters: grouped from the selection's seat
    summary rows (`summed_seat_rows`)."""
    rows, params = summed_seat_rows(db, selection, f"{variants_sql(variants, 'k')} AND k.challenger")
    wide = "".join(f", sum(total) FILTER (WHERE name = {_literal(n)}) AS {_identifier(n)}" for n in metrics)
    return f"""
        SELECT agent, strategy, game, rules, role, flag,
               sum(total) FILTER (WHERE name = '{summary_seats.SEAT}') AS seated,
               sum(total) FILTER (WHERE name = '{summary_seats.WON}') AS wins,
               coalesce(sum(total) FILTER (WHERE name = '{summary_seats.FALLBACK_VOTES}'), 0) AS fallback_votes_correct
               {wide}
        FROM ({rows}) GROUP BY ALL""", params


def challenger_figures(db: str | Path, selection: Selection, variants: tuple[Variant, ...], metrics: tuple[str, ...],
                       sums: dict[str, str], missing_suspicion: str = AUTHORS
                       ) -> tuple[pd.DataFrame, dict[tuple[str, str], tuple[int, int]]]:
    """`challenger_sums` and the Reasoning items (correct, asked) of the social matches among them, per agent
    and strategy, summed with the rest from the seat summary rows, a missing suspect read as `missing_suspicion`
    says."""
    blank_suspect(missing_suspicion)  # an unknown reading is refused
    social = " OR ".join(seat_in(variant) for variant in SOCIAL)
    right, items = reasoning_right(missing_suspicion), REASONING_ITEMS
    table = challenger_sums(db, selection, variants, (*metrics, right, items), sums | {
        right: f"sum({_identifier(right)}) FILTER (WHERE {social})",
        items: f"sum({_identifier(items)}) FILTER (WHERE {social})"})
    if table.empty:
        return table, {}
    reasoning = {key: (int(r), int(n)) for key, r, n in zip(table.index, table.pop(right), table.pop(items),
                                                            strict=True)}
    return table, reasoning


# ---------------------------------------------------------------- the four cognition abilities
SOCIAL_ROLES = {"chameleon_wr": "chameleon", "non_chameleon_wr": "non-chameleon", "undercover_wr": "undercover",
                "civilian_wr": "civilian"}


_VOTER, _SPECIAL = "role IN ('non-chameleon', 'civilian')", "role IN ('chameleon', 'undercover')"
_AS_NON_CHAMELEON = "role = 'non-chameleon'"  # a role only Chameleon deals
SOCIAL_METRICS = ("credits", "max_credits", "votes_correct", "votes_cast", "role_probes", "role_probes_correct")
SOCIAL_SUMS = {
    "votes_correct": f"sum(coalesce(votes_correct, 0) - fallback_votes_correct) FILTER (WHERE {_VOTER})",
    "votes_cast": f"sum(votes_cast) FILTER (WHERE {_VOTER})",
    "special_games": f"sum(seated) FILTER (WHERE {_SPECIAL})",
    "special_flag_not_0": f"sum(seated) FILTER (WHERE {_SPECIAL} AND flag <> 0)",
    "flag_0_seen": f"sum(seated) FILTER (WHERE {_AS_NON_CHAMELEON} AND flag = 0)",
    "flag_1_seen": f"sum(seated) FILTER (WHERE {_AS_NON_CHAMELEON} AND flag = 1)",
    **{f"{name}_{part}": f"sum({metric}) FILTER (WHERE role = '{role}')" for name, role in SOCIAL_ROLES.items()
       for part, metric in (("credits", "credits"), ("max", "max_credits"))},
    "role_probes": "sum(role_probes)", "role_probes_correct": "sum(role_probes_correct)",
}


def social_abilities(db: str | Path, selection: Selection = ALL, missing_suspicion: str = AUTHORS) -> pd.DataFrame:
    """Per agent and strategy: the four role win rates, Judgement, Reasoning, Deception and
    Self-awareness (as fractions) of MAgIC's Chameleon and Undercover (`rules: magic`); `missing_suspicion`:
    how Reasoning reads a missing suspect (`seat_reasoning`)."""
    with store.reading(db):
        sums, reasoning = challenger_figures(db, selection, SOCIAL, SOCIAL_METRICS, SOCIAL_SUMS, missing_suspicion)
    if sums.empty:
        return pd.DataFrame(columns=SOCIAL_COLUMNS)
    return social_abilities_of(sums, reasoning)


def social_abilities_of(sums: pd.DataFrame, reasoning: dict[tuple[str, str], tuple[int, int]]) -> pd.DataFrame:
    """social_abilities from the `SOCIAL_SUMS` per agent and strategy (`challenger_sums`, over the social
    matches or a wider selection) and the agents' Reasoning items (`challenger_figures`)."""
    items = [reasoning.get(key, (0, 0)) for key in sums.index]
    correct = pd.Series([c for c, _ in items], index=sums.index, dtype=float)
    asked = pd.Series([a for _, a in items], index=sums.index, dtype=float)
    table = pd.DataFrame({name: ratios(sums[f"{name}_credits"], sums[f"{name}_max"]) for name in SOCIAL_ROLES})
    table["judgement"] = ratios(sums["votes_correct"], sums["votes_cast"])
    table["reasoning"] = ratios(correct, asked)
    table["deception"] = _deception(sums)
    table["self_awareness"] = ratios(sums["role_probes_correct"], sums["role_probes"])
    return table.reset_index().reindex(columns=SOCIAL_COLUMNS)


def _deception(sums: pd.DataFrame) -> pd.Series:
    """`metrics_release.py` `decept`: games as chameleon or undercover whose flag is not 0, per such
    game, plus 0.25 x (flag 1 seen) / (distinct flags of {0, 1} seen) over the agent's games as a
    non-chameleon (0 when neither was seen, where their code divides by zero); NaN without a game as
    chameleon or undercover (their code divides by zero there too)."""
    return ratios(sums["special_flag_not_0"], sums["special_games"]) + deception_guess(sums)


def deception_guess(sums: pd.DataFrame) -> pd.Series:
    """Deception's fixed part beside its win share: 0.25 x (flag 1 seen) / (distinct flags of {0, 1} seen)."""
    seen_0, seen_1 = (sums["flag_0_seen"] > 0).astype(float), (sums["flag_1_seen"] > 0).astype(float)
    return DECEPTION_GUESS_WEIGHT * ratios(seen_1, seen_0 + seen_1).fillna(0.0)


# ---------------------------------------------------------------- LLMArena's Undercover study
def llmarena_undercover_figures(db: str | Path) -> pd.DataFrame:
    """Per agent and strategy playing the undercover in `rules: llmarena` games: its win rate, the share
    of its clues that describe its own word, and how often its word guesses name any / all other
    players' words (LLMArena Table 3: Description, Guess, Guess(strict))."""
    columns = ["agent", "strategy", "games", "undercover_win_rate", "description_rate", "guess_rate",
               "guess_strict_rate"]
    counted = ("clues_describing_own_word", "clues_given", "word_guess_any", "word_guess_all", "word_guess_probes")
    sums = challenger_sums(db, ALL, (Variant.of("undercover", "llmarena"),), counted,
                           {"games": "sum(seated)", "won": "sum(wins)",
                            **{name: f"sum({name})" for name in counted}},
                           seats_where="role = 'undercover'")
    if sums.empty:
        return pd.DataFrame(columns=columns)
    table = pd.DataFrame({"games": sums["games"].astype(int), "undercover_win_rate": sums["won"] / sums["games"],
                          "description_rate": ratios(sums["clues_describing_own_word"], sums["clues_given"]),
                          "guess_rate": ratios(sums["word_guess_any"], sums["word_guess_probes"]),
                          "guess_strict_rate": ratios(sums["word_guess_all"], sums["word_guess_probes"])})
    return table.reset_index().reindex(columns=columns)
