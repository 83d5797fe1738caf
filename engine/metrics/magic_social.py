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


def social_seats(db: str | Path, where: str) -> pd.DataFrame:
    """One row per seat of the finished social matches selected by `where` (over m = matches),
    with the match's outcome, `agent` (the label), `strategy`, `challenger` and every metric as a column."""
    seats = store.query(db, f"""
        SELECT s.match_id, s.seat, coalesce(s.label, s.agent) AS agent, s.strategy, s.role, s.score, s.won,
               m.game, json_extract_string(m.params, '$.rules') AS rules, m.outcome
        FROM seats s JOIN matches m USING (match_id)
        WHERE m.status = 'ok' AND ({where})
        ORDER BY s.match_id, s.seat""")
    if seats.empty:
        return seats
    seats["strategy"] = seats["strategy"].fillna(NO_STRATEGY)
    seats["outcome"] = seats["outcome"].map(lambda o: json.loads(o) if isinstance(o, str) else (o or {}))
    ids = sorted(seats["match_id"].unique())
    metrics = store.query(db, "SELECT match_id, seat, name, value FROM metrics WHERE seat IS NOT NULL "
                              "AND match_id IN (SELECT unnest(?))", [ids])
    if not metrics.empty:
        wide = metrics.pivot_table(index=["match_id", "seat"], columns="name", values="value", aggfunc="sum")
        seats = seats.merge(wide.reset_index(), on=["match_id", "seat"], how="left")
    seats["challenger"] = _challenger_mask(seats)
    return seats


def _challenger_mask(seats: pd.DataFrame) -> pd.Series:
    """True for the seat under test: the one seat whose agent and strategy differ from all the
    others' (who share one), else for every seat."""
    identity = seats["agent"] + "|" + seats["strategy"]
    mask = pd.Series(True, index=seats.index)
    for _, idx in seats.groupby("match_id").groups.items():
        counts = identity[idx].value_counts()
        if len(counts) == 2 and counts.min() == 1 and len(idx) > 2:
            mask[idx] = identity[idx] == counts.idxmin()
    return mask


def _ratio(num: float, den: float) -> float:
    return float(num) / float(den) if den else float("nan")


def _col(frame: pd.DataFrame, name: str) -> pd.Series:
    return frame[name].fillna(0) if name in frame else pd.Series(0.0, index=frame.index)


def _role_wr(rows: pd.DataFrame, role: str) -> float:
    mine = rows[rows["role"] == role]
    return _ratio(_col(mine, "credits").sum(), _col(mine, "max_credits").sum())


# ---------------------------------------------------------------- Reasoning from the belief probes
def _beliefs(db: str | Path, match_ids: list[str]) -> dict[tuple[str, int, int], dict[str, Any] | None]:
    """(match, seat, round) -> the seat's belief that round: the pgm strategy's own belief text when
    its decisions carry one (turns.action.extra.belief), else the answer to the belief probe.
    A probe that ended in a fallback is a failed belief (None)."""
    if not match_ids:
        return {}
    turns = store.query(db, """
        SELECT t.match_id, t.seat, t.round, t.phase, t.action, t.fallback,
               (SELECT count(*) FROM seats s WHERE s.match_id = t.match_id) AS n
        FROM turns t WHERE t.seat IS NOT NULL AND t.match_id IN (SELECT unnest(?)) ORDER BY t.match_id, t.turn""",
                        [match_ids])
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
    each other player suspects vs that player's own stated suspect."""
    out: dict[int, tuple[int, int]] = {}
    rounds_of = defaultdict(set)
    for (match, seat, rnd) in beliefs:
        rounds_of[(match, seat)].add(rnd)
    for idx, row in seats.iterrows():
        special = f"Player {row['outcome']['special_seat'] + 1}"
        n_players = len(row["outcome"]["words"])
        others = [f"Player {s + 1}" for s in range(n_players) if s != row["seat"]]
        correct = asked = 0
        for rnd in sorted(rounds_of[(row["match_id"], row["seat"])]):
            mine = beliefs[(row["match_id"], row["seat"], rnd)] or {}
            asked += 1
            correct += mine.get("suspect") == special
            thinks = mine.get("thinks") or {}
            for other in others:
                theirs = beliefs.get((row["match_id"], int(other.split()[-1]) - 1, rnd))
                if not theirs or not theirs.get("suspect"):
                    continue  # that player stated no belief: nothing to compare with
                asked += 1
                correct += thinks.get(other) == theirs["suspect"]
        out[idx] = (correct, asked)
    return out


# ---------------------------------------------------------------- the four cognition abilities
def social_abilities(db: str | Path) -> pd.DataFrame:
    """Per agent and strategy: the four role win rates, Judgement, Reasoning, Deception and
    Self-awareness of MAgIC's Chameleon and Undercover (`rules: magic`)."""
    seats = social_seats(db, "m.game = 'chameleon' OR (m.game = 'undercover' "
                             "AND json_extract_string(m.params, '$.rules') = 'magic')")
    if seats.empty:
        return pd.DataFrame(columns=ABILITY_COLUMNS)
    seats = seats[seats["challenger"]].copy()
    beliefs = _beliefs(db, sorted(seats["match_id"].unique()))
    reasoning = reasoning_counts(seats, beliefs)
    seats["beliefs_correct"] = [reasoning[i][0] for i in seats.index]
    seats["beliefs_asked"] = [reasoning[i][1] for i in seats.index]
    rows = []
    for (agent, strategy), mine in seats.groupby(["agent", "strategy"], sort=True):
        rows.append({
            "agent": agent, "strategy": strategy,
            "chameleon_wr": _role_wr(mine, "chameleon"), "non_chameleon_wr": _role_wr(mine, "non-chameleon"),
            "undercover_wr": _role_wr(mine, "undercover"), "civilian_wr": _role_wr(mine, "civilian"),
            "judgement": _judgement(mine), "reasoning": _ratio(mine["beliefs_correct"].sum(),
                                                               mine["beliefs_asked"].sum()),
            "deception": _deception(mine), "self_awareness": _self_awareness(mine),
        })
    return pd.DataFrame(rows, columns=ABILITY_COLUMNS)


def _judgement(rows: pd.DataFrame) -> float:
    voters = rows[rows["role"].isin(["non-chameleon", "civilian"])]
    return _ratio(_col(voters, "votes_correct").sum(), _col(voters, "votes_cast").sum())


def _deception(rows: pd.DataFrame) -> float:
    """Wins as chameleon or undercover per such game, plus 0.25 x the share of wrong word guesses by
    the opposing chameleons in the games this agent played as a non-chameleon."""
    special = rows[rows["role"].isin(["chameleon", "undercover"])]
    defending = rows[rows["role"] == "non-chameleon"]
    guesses = [o.get("guess_correct") for o in defending["outcome"] if o.get("guess_correct") is not None]
    if special.empty and not guesses:
        return float("nan")
    blend = float(special["won"].fillna(False).astype(bool).mean()) if len(special) else 0.0
    misled = sum(not g for g in guesses) / len(guesses) if guesses else 0.0
    return blend + DECEPTION_GUESS_WEIGHT * misled


def _self_awareness(rows: pd.DataFrame) -> float:
    cham = rows[rows["game"] == "chameleon"]
    under = rows[rows["game"] == "undercover"]
    w = SELF_AWARENESS_CHAMELEON_WEIGHT
    return _ratio(w * _col(cham, "role_probes_correct").sum() + _col(under, "role_probes_correct").sum(),
                  w * _col(cham, "role_probes").sum() + _col(under, "role_probes").sum())


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
    rows = []
    for (agent, strategy), mine in under.groupby(["agent", "strategy"], sort=True):
        rows.append({
            "agent": agent, "strategy": strategy, "games": len(mine),
            "undercover_win_rate": float(mine["won"].fillna(False).astype(bool).mean()),
            "description_rate": _ratio(_col(mine, "clues_describing_own_word").sum(), _col(mine, "clues_given").sum()),
            "guess_rate": _ratio(_col(mine, "word_guess_any").sum(), _col(mine, "word_guess_probes").sum()),
            "guess_strict_rate": _ratio(_col(mine, "word_guess_all").sum(), _col(mine, "word_guess_probes").sum()),
        })
    return pd.DataFrame(rows, columns=columns)
