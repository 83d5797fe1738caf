"""MAgIC's Reasoning items from what the players answered to the belief probes (MAgIC's `compute_pgm_metric`, in
the docs/METRICS.md words): per seat and probe, a "gold" item (its suspect is the special player) and an "inter"
item (its guess of whom each other player suspects matches every other player's own stated suspect), a missing
suspicion read as the authors' code reads it (Player 1: the argmax of a row of zeros) or as matching nobody.

MAgIC's seat summary (engine/papers/seat_summary.py, registered with the store by the papers) sums each seat's items
as a match is written, and from the log where its stored rows do not answer a selection; it reads the beliefs here.
The store's own modules import neither. It imports the games' reading of a belief text, nothing of the store, the
agents or the metrics.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from itertools import groupby
from typing import Any

from engine.games.social import read_belief_text

AUTHORS, UNMATCHED = "authors", "unmatched"  # how Reasoning reads a missing suspicion row
FIRST_SEAT = "Player 1"  # whom the authors' argmax of a row of zeros names
# the seat summary's names of a seat's Reasoning items, and of those right under a reading (`reasoning_right`)
REASONING_ITEMS, REASONING_RIGHT = "reasoning_items", "reasoning_right"


def reasoning_right(missing_suspicion: str) -> str:
    """The seat summary's name of the Reasoning items right under a reading of a missing suspicion."""
    return f"{REASONING_RIGHT}:{missing_suspicion}"


def fold_beliefs(turns: Iterable[tuple]) -> dict[tuple[str, int, int, int], dict[str, Any] | None]:
    """(match, seat, round, probe) -> the seat's belief at that probe (`probe` counts the belief probes of the round:
    Chameleon asks one after every clue): the pgm strategy's own belief text when its decisions carry one
    (turns.action.extra.belief; outside the probes, the round's first such text is probe 0), else the answer to the
    belief probe; a probe that ended in a fallback is a failed belief (None). From the turns that carry a belief, in
    order: (match_id, seat, round, phase, action, fallback, number of seats of the match)."""
    probe: dict[tuple[str, int, int, int], dict[str, Any] | None] = {}
    texts: dict[tuple[str, int, int, int], str] = {}
    sizes: dict[str, int] = {}
    probes_seen: dict[tuple[str, int, int], int] = defaultdict(int)
    for match_id, seat, round_, phase, raw, fallback, n_seats in turns:
        base = (match_id, int(seat), int(round_))
        sizes[match_id] = int(n_seats)
        action = json.loads(raw) if isinstance(raw, str) else (raw or {})
        text = (action.get("extra") or {}).get("belief")
        if phase == "belief":
            key = (*base, probes_seen[base])
            probes_seen[base] += 1
            answer = action.get("action")
            probe[key] = None if fallback or not isinstance(answer, dict) else answer
        else:
            key = (*base, 0)
            if key in texts:
                continue
        if isinstance(text, str) and text.strip():
            texts[key] = text
    out = dict(probe)
    for key, text in texts.items():
        names = tuple(f"Player {i + 1}" for i in range(sizes[key[0]]))
        out[key] = read_belief_text(text, names, names[key[1]]) or probe.get(key)
    return out


def blank_suspect(missing_suspicion: str) -> str | None:
    """Whom a missing suspicion row names: Player 1 under 'authors' (their argmax of a row of zeros), nobody
    (never right, never matching) under 'unmatched'."""
    if missing_suspicion not in (AUTHORS, UNMATCHED):
        raise ValueError(f"missing_suspicion must be '{AUTHORS}' or '{UNMATCHED}', not {missing_suspicion!r}")
    return FIRST_SEAT if missing_suspicion == AUTHORS else None


def seat_reasoning(beliefs: dict, probes: list[tuple[int, int]], match: str, seat: int, special_seat: int,
                    n_players: int, blank: str | None) -> tuple[int, int]:
    """(correct, asked) of one seat over its `probes` (round, probe): a gold and an inter item each; a missing
    suspect (no belief, no suspect named) reads as `blank` (`_blank_suspect`)."""
    special = f"Player {int(special_seat) + 1}"
    others = [s for s in range(int(n_players)) if s != seat]
    correct = 0
    for rnd, k in sorted(probes):
        mine = beliefs[(match, seat, rnd, k)] or {}
        correct += (mine.get("suspect") or blank) == special
        thinks = mine.get("thinks") or {}
        theirs = [(beliefs.get((match, s, rnd, k)) or {}).get("suspect") or blank for s in others]
        correct += all(t is not None and (thinks.get(f"Player {s + 1}") or blank) == t
                       for s, t in zip(others, theirs, strict=True))
    return correct, 2 * len(probes)


def seat_reasoning_rows(turns: Iterable[tuple]) -> list[dict[str, Any]]:
    """The seat summary's Reasoning rows (engine/store/summaries.py sums them) from the turns that carry a
    belief, in match and turn order: (match_id, seat, round, phase, action, fallback, number of seats, special
    seat, number of players). Per seat with a probe: its items, and those right under each reading of a missing
    suspicion (`_blank_suspect`), so that the board sums either reading without the turns."""
    out = []
    for match, rows in groupby(turns, key=lambda row: row[0]):
        rows = list(rows)
        special_seat, n_players = rows[0][7:]
        beliefs = fold_beliefs(row[:7] for row in rows)
        probes_of = defaultdict(list)
        for (_, seat, rnd, k) in beliefs:
            probes_of[seat].append((rnd, k))
        for seat, probes in probes_of.items():
            for reading in (AUTHORS, UNMATCHED):
                right, asked = seat_reasoning(beliefs, probes, match, seat, special_seat, n_players,
                                               blank_suspect(reading))
                out.append({"match_id": match, "seat": seat, "name": reasoning_right(reading), "value": right})
            out.append({"match_id": match, "seat": seat, "name": REASONING_ITEMS, "value": asked})
    return out
