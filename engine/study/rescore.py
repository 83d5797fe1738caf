"""`python -m engine rescore`: every stored per-match figure computed again from the turn log, no agent
asked. Each selected match is replayed through its game (engine/play/replay.py) with the match's params and
seed; its `metrics` rows, its seats' score, win, rank and role, and its turns' per-step `reward` are
replaced by what the game's current rules and formulas say. An imported match is rescored by its
importer (`engine.papers.RECORD_IMPORTERS`), from what it kept of the record.

A match whose log no longer replays (the rules changed under it) keeps its rows and is reported. Each match
recorded the version of its game's rules it was played under (`matches.rules_version`): the summary names, per
game, the matches played under rules older than the game's current `rules_version`, rescored with the current
ones where their log still replays (their `rules_version` stays what they were played under).
Matches are read and written a chunk at a time, each chunk in one transaction; the summaries
(engine/store/summaries.py) are then rebuilt from the log. The saved ratings
replays are dropped (a rank may have changed); the command brings them up to date again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from engine import store
from engine.games import get_game
from engine.papers.registry import RECORD_IMPORTERS
from engine.play.match_rows import match_metrics
from engine.play.replay import ReplayError, Rescored, logged_decisions, replay
from engine.score.ratings import saved_replays_path
from engine.store import summaries
from engine.store.selection import ALL, Selection
from engine.wording import count

CHUNK = 250  # matches read, replayed and written together


@dataclass
class RescoreSummary:
    matches: int = 0
    rescored: int = 0
    failed: list[str] = field(default_factory=list)
    # game -> (its matches played under rules older than its current ones, the current rules_version)
    older_rules: dict[str, tuple[int, int]] = field(default_factory=dict)

    def __str__(self) -> str:
        text = f"rescored {self.rescored:,} of {count(self.matches, 'match')}"
        lines = [text + (f"; {len(self.failed)} kept their old figures" if self.failed else "")]
        lines += [f"  {game}: {count(n, 'match')} played under rules older than its current version {current}, "
                  f"rescored with the current rules (those whose log no longer replays kept their old figures)"
                  for game, (n, current) in sorted(self.older_rules.items())]
        return "\n".join(lines)


def older_rules(matches: pd.DataFrame) -> dict[str, tuple[int, int]]:
    """Per game of `matches` (game, rules_version): how many were played under rules older than the game's
    current `rules_version`, and that version. A game this engine no longer knows is left out."""
    found: dict[str, tuple[int, int]] = {}
    if matches.empty:
        return found
    for game, versions in matches.groupby("game", sort=True)["rules_version"]:
        try:
            current = get_game(game).rules_version
        except ValueError:
            continue
        older = int((versions.fillna(1) < current).sum())  # NULL: stored before versions, the first rules
        if older:
            found[game] = (older, current)
    return found


def replayed_figures(match: dict[str, Any], n_seats: int, turns: list[dict[str, Any]]) -> Rescored:
    """A match we played, replayed from its turns: the game's figures, the seats' tally, rewards, results."""
    replayed = replay(match["game"], json.loads(match["params"]), int(match["seed"]), logged_decisions(turns))
    return Rescored(match_metrics(match["match_id"], replayed.game, n_seats, turns), replayed.rewards,
                    replayed.game.result())


def rescore_match(match: dict[str, Any], n_seats: int, turns: list[dict[str, Any]]) -> Rescored:
    source = match.get("source") or "engine"
    if source.startswith("import:"):
        return RECORD_IMPORTERS[source.removeprefix("import:")].rescore(match, n_seats, turns)
    return replayed_figures(match, n_seats, turns)


def rescore(db: str | Path, selection: Selection = ALL) -> RescoreSummary:
    """Rescore every selected finished match of `db`."""
    where, params = selection.where("m")
    matches = store.query(db, f"""
        SELECT m.match_id, m.game, m.params, m.seed, m.outcome, m.rules_version, r.source,
               (SELECT count(*) FROM seats s WHERE s.match_id = m.match_id) AS n_seats
        FROM matches m LEFT JOIN runs r USING (run_id) WHERE {where} ORDER BY m.match_id""", params)
    summary = RescoreSummary(matches=len(matches), older_rules=older_rules(matches))
    saved_replays_path(db).unlink(missing_ok=True)  # ranks may change: the saved ratings replay from the start
    for start in range(0, len(matches), CHUNK):
        chunk = matches.iloc[start:start + CHUNK].to_dict("records")
        done = _rescore_chunk(db, chunk, summary)
        _write(db, done)
        summary.rescored += len(done)
    store.rebuild_summaries(db)  # the seats' results changed under them
    return summary


def _rescore_chunk(db: str | Path, chunk: list[dict[str, Any]], summary: RescoreSummary) -> dict[str, Rescored]:
    ids = [m["match_id"] for m in chunk]
    turns = store.query(db, """
        SELECT match_id, turn, seat, action, state, retries, fallback FROM turns
        WHERE (seat IS NOT NULL OR turn = 0) AND match_id IN (SELECT unnest(?)) ORDER BY match_id, turn""",
                        [ids])  # turn 0: the decisions' and, in an imported match, the record the importer kept
    by_match = {mid: rows.to_dict("records") for mid, rows in turns.groupby("match_id", sort=False)} \
        if not turns.empty else {}
    for rows in by_match.values():
        for row in rows:
            row["seat"] = None if pd.isna(row["seat"]) else int(row["seat"])
            row["fallback"] = None if pd.isna(row["fallback"]) else bool(row["fallback"])
            row["retries"] = None if pd.isna(row["retries"]) else int(row["retries"])
    done = {}
    for match in chunk:
        try:
            done[match["match_id"]] = rescore_match(match, int(match["n_seats"]), by_match.get(match["match_id"], []))
        except (ReplayError, ValueError, KeyError, TypeError, IndexError) as exc:
            summary.failed.append(f"{match['match_id']} ({match['game']}): {exc}")
    return done


def _write(db: str | Path, done: dict[str, Rescored]) -> None:
    """Replace the chunk's metrics, rewards and seat results in one transaction."""
    if not done:
        return
    ids = pd.DataFrame({"match_id": list(done)})
    metrics = pd.DataFrame([row for r in done.values() for row in r.metrics],
                           columns=["match_id", "seat", "name", "value"]).astype(
        {"match_id": object, "seat": "Int32", "name": object, "value": float})
    rewards = pd.DataFrame([(mid, turn, reward) for mid, r in done.items() for turn, reward in r.rewards.items()],
                           columns=["match_id", "turn", "reward"]).astype({"turn": "int32", "reward": float})
    seats = pd.DataFrame([(mid, s, x.score, x.won, x.rank, x.role) for mid, r in done.items()
                          for s, x in r.results.items()],
                         columns=["match_id", "seat", "score", "won", "rank", "role"]).astype(
        {"seat": "int32", "score": float, "won": bool, "rank": "int32", "role": object})
    with store.connect(db) as con:
        con.execute("BEGIN")
        try:
            for name, frame in (("done_ids", ids), ("new_metrics", metrics), ("new_rewards", rewards),
                                ("new_seats", seats)):
                con.register(name, frame)
            con.execute("DELETE FROM metrics WHERE match_id IN (SELECT match_id FROM done_ids)")
            con.execute("INSERT INTO metrics BY NAME SELECT * FROM new_metrics")
            con.execute("""UPDATE turns SET reward = n.reward FROM new_rewards n
                           WHERE turns.match_id = n.match_id AND turns.turn = n.turn""")
            con.execute("""UPDATE seats SET score = n.score, won = n.won, rank = n.rank, role = n.role
                           FROM new_seats n WHERE seats.match_id = n.match_id AND seats.seat = n.seat""")
            summaries.out_of_step(con)  # until the rebuild at the end: a rescore cut short leaves them to the log
            con.execute("COMMIT")
        except Exception:
            con.execute("ROLLBACK")
            raise
