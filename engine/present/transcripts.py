"""The queries of the transcripts page: find matches (game, agent, outcome, parse failures, text in the
messages), then one match's seats and turns in order. Read-only, one short connection per query. And a state's
facts as text (`fact_text`), as the page and the static site show them."""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from engine import store
from engine.agents.agent_names import model_sql
from engine.games import get_game
from engine.games.base import FEEDBACK
from engine.present import answer_flags
from engine.present.queries import newest_matches
from engine.store.selection import Selection, agent_sql
from engine.store.valid_answers import invalid_sql
from engine.wording import count

OUTCOMES = ("any", "the agent won", "the agent lost", "no winner", "error")
MAX_RESULTS = 200
# A search through the turns (a text, the parse failures) reads the newest this many, by row id: the order the
# writer appended them, so the matches written last. Reading every answer of a large database is too slow for a
# page; the page says how far back it searched (`MatchSearch.every_turn` reads them all).
TURNS_SEARCHED = 200_000
FOUND_COLUMNS = ["match_id", "game", "preset", "seed", "repeat", "status", "lineup", "parse_failures", "finished_at"]


@dataclass(frozen=True)
class MatchSearch:
    game: str | None = None
    agents: tuple[str, ...] = ()  # labels (or agent strings); empty: any
    outcome: str = "any"  # one of OUTCOMES; "the agent" is any of `agents`, or any seat when none is picked
    parse_failures: bool = False  # only matches where some answer was re-asked, illegal or replaced
    text: str = ""  # case-insensitive, in what the players answered and the moderator said
    in_prompts: bool = False  # the text may also be in what the players were sent (rules, history: reads far more)
    within: Selection | None = None  # only the finished matches of this selection (a leaderboard cell's)
    every_turn: bool = False  # the text and parse failures in every turn, not only the newest TURNS_SEARCHED


def games(db: str | Path) -> list[str]:
    rows = store.query(db, "SELECT DISTINCT game FROM matches ORDER BY game")
    return [] if rows.empty else rows["game"].tolist()


def agents(db: str | Path, game: str | None = None) -> list[str]:
    """Every agent that took a seat (of `game`), as the leaderboards name it. From the summaries while they are in
    step: every game's from `agent_settings`, one game's from `agent_summary` (the placed seats of its `ok`
    matches) and the log's few other seats (no place: a failed match's), so 4M seats are not scanned."""
    with store.reading(db):
        if not store.summaries_in_step(db):
            seats = "SELECT s.* FROM seats s JOIN matches m USING (match_id) WHERE ? IS NULL OR m.game = ?"
            params = [game, game]
        elif game is None:
            seats, params = "SELECT agent_name FROM agent_settings", []
        else:
            seats = """
                SELECT agent_name FROM agent_summary WHERE game = ?
                UNION ALL
                SELECT agent_name FROM seats s
                WHERE s.match_id IN (SELECT match_id FROM matches WHERE game = ?)
                      AND (s.rank IS NULL OR s.match_id IN (SELECT match_id FROM matches WHERE status <> 'ok'))"""
            params = [game, game]
        rows = store.query(db, f"""
            SELECT DISTINCT {agent_sql("s")} AS agent FROM ({seats}) s ORDER BY agent""", params)
    return [] if rows.empty else rows["agent"].tolist()


def literal_pattern(text: str) -> str:
    """`text` as an RE2 pattern that matches it literally: every ASCII punctuation mark escaped. A case-blind
    regular expression reads the turns faster than lower() on both sides."""
    return "".join(f"\\{c}" if c.isascii() and not c.isalnum() and not c.isspace() else c for c in text)


def reads_turns(search: MatchSearch) -> bool:
    """Whether `search` looks through the turns (a text, the parse failures)."""
    return search.parse_failures or bool(search.text.strip())


def turns_searched(db: str | Path, search: MatchSearch) -> tuple[int, int]:
    """(the first row id of the turns `search` reads, the turns stored): the newest TURNS_SEARCHED, or from 0 when
    it reads every turn (`every_turn`) or none."""
    total, last = store.rows(db, "SELECT count(*), max(rowid) FROM turns")[0]
    first = 0 if search.every_turn or not reads_turns(search) or last is None else last + 1 - TURNS_SEARCHED
    return max(first, 0), total


def _conditions(search: MatchSearch, hits: list[str] | None = None) -> tuple[str, list]:
    """The WHERE clause over `matches m` that `search` asks for, and its parameters; a search through the turns
    keeps the matches of `hits` (`_turn_hits`)."""
    if search.outcome not in OUTCOMES:
        raise ValueError(f"outcome must be one of {OUTCOMES}, got {search.outcome!r}")
    where, params = ["TRUE"], []
    if search.game:
        where.append("m.game = ?")
        params.append(search.game)
    if search.within is not None:
        condition, values = search.within.where("m")
        where.append(condition)
        params += values
    seats = "seats x"  # the seats of the agents picked (any seat when none is)
    if search.agents:
        seats = f"(SELECT * FROM seats x WHERE {agent_sql('x')} IN (SELECT unnest(?))) x"
        params.append(list(search.agents))
        where.append(f"m.match_id IN (SELECT x.match_id FROM {seats})")
    agent_params = [list(search.agents)] if search.agents else []
    if search.outcome == "the agent won":
        where.append(f"m.match_id IN (SELECT x.match_id FROM {seats} WHERE x.won)")
        params += agent_params
    elif search.outcome == "the agent lost":
        where.append(f"m.match_id IN (SELECT x.match_id FROM {seats} WHERE NOT x.won)")
        params += agent_params
    elif search.outcome == "no winner":
        where.append("m.status = 'ok' AND NOT EXISTS (SELECT 1 FROM seats x WHERE x.match_id = m.match_id AND x.won)")
    elif search.outcome == "error":
        where.append("m.status = 'error'")
    if reads_turns(search):
        where.append("m.match_id IN (SELECT unnest(?))")
        params.append(hits or [])
    return " AND ".join(where), params


def _turn_hits(db: str | Path, search: MatchSearch) -> list[str] | None:
    """The matches with a turn holding `search`'s text and one with a parse failure, among the turns it reads
    (`turns_searched`); None when it reads none. Found first, as a list: a semi join of the turns read with the
    matches probes every match, where a list of ids filters their scan."""
    if not reads_turns(search):
        return None
    wanted, params = [], []
    if search.parse_failures:
        wanted.append(f"t.seat IS NOT NULL AND {invalid_sql('t')}")
    if search.text.strip():
        pattern = literal_pattern(search.text.strip())
        sent = " OR regexp_matches(CAST(t.prompt AS VARCHAR), ?, 'i')" if search.in_prompts else ""
        wanted.append(f"regexp_matches(t.response, ?, 'i'){sent}")
        params += [pattern] * (2 if search.in_prompts else 1)
    found = store.rows(db, f"""
        SELECT t.match_id FROM turns t WHERE t.rowid >= ? AND ({" OR ".join(f"({w})" for w in wanted)})
        GROUP BY t.match_id HAVING {" AND ".join(f"bool_or({w})" for w in wanted)}""",
        [turns_searched(db, search)[0], *params, *params])  # a constant row id: only the row groups from it are read
    return [match_id for (match_id,) in found]


def _reads_matches_only(search: MatchSearch) -> bool:
    """Whether `search`'s conditions read the matches alone (no seat, no turn)."""
    within = search.within
    return (not search.agents and search.outcome in ("any", "error") and not reads_turns(search)
            and (within is None or not (within.agents or within.contested or within.without_fallbacks)))


def count_matches(db: str | Path, search: MatchSearch) -> int:
    """How many matches fit `search` (`find_matches` lists only the newest MAX_RESULTS of them)."""
    with store.reading(db):
        where, params = _conditions(search, _turn_hits(db, search))
        return int(store.rows(db, f"SELECT count(*) FROM matches m WHERE {where}", params)[0][0])


def find_matches(db: str | Path, search: MatchSearch, limit: int | None = None) -> pd.DataFrame:
    """The newest `limit` (MAX_RESULTS) matching matches: id, game, preset, seed, status, lineup (winners marked),
    parse failures. The newest are picked first, then only their seats and turns are read (a count of every
    match's failures would read every turn of the database); a text or the parse failures are looked for in the
    newest TURNS_SEARCHED turns unless `search.every_turn`."""
    with store.reading(db):
        conditions = _conditions(search, _turn_hits(db, search))
        picked = newest_matches(db, *conditions, limit or MAX_RESULTS, _reads_matches_only(search))
        if not picked:  # (the query below would still read every turn, for no match)
            return pd.DataFrame(columns=FOUND_COLUMNS)
        return store.query(db, f"""
            WITH failures AS (
                SELECT t.match_id, count(*) AS parse_failures FROM turns t
                WHERE t.match_id IN (SELECT unnest(?)) AND t.seat IS NOT NULL AND {invalid_sql("t")} GROUP BY ALL)
            SELECT m.match_id, m.game, m.preset, m.seed, m."repeat", m.status,
                   string_agg({agent_sql("s")} || CASE WHEN s.won THEN ' (won)' ELSE '' END, ', '
                              ORDER BY s.seat) AS lineup,
                   coalesce(any_value(f.parse_failures), 0) AS parse_failures, m.finished_at
            FROM matches m JOIN seats s USING (match_id) LEFT JOIN failures f USING (match_id)
            WHERE m.match_id IN (SELECT unnest(?))
            GROUP BY m.match_id, m.game, m.preset, m.seed, m."repeat", m.status, m.finished_at
            ORDER BY m.finished_at DESC NULLS LAST, m.match_id""", [picked, picked])


def match_seats(db: str | Path, match_id: str) -> pd.DataFrame:
    return store.query(db, f"""
        SELECT seat, player, {agent_sql("s")} AS agent, role, prompt_version, strategy, temperature,
               score, won, rank FROM seats s WHERE match_id = ? ORDER BY seat""", [match_id])


DISPLAY_CHARS = 4_000


def full_response(db: str | Path, match_id: str, turn: int) -> str:
    """The whole answer of one turn (the page asks for it when its reader clicks "Show all")."""
    found = store.rows(db, "SELECT response FROM turns WHERE match_id = ? AND turn = ?", [match_id, turn])
    return (found[0][0] or "") if found else ""


def seat_flags(db: str | Path, match_id: str) -> list[str]:
    """The flags (`answer_flags`: constant answers, answers copying the prompt's example) of the agents seated in
    the match, over all their answers in its game under the condition they sat at, in words."""
    seats = store.query(db, f"""
        SELECT DISTINCT {model_sql('s')} AS agent, m.game, s.prompt_version, s.temperature, s.strategy
        FROM seats s JOIN matches m USING (match_id) WHERE s.match_id = ? AND s.agent NOT LIKE 'bot:%'""", [match_id])
    if seats.empty:
        return []
    flags = answer_flags.answer_flags(db, agents=tuple(seats["agent"]), game=str(seats["game"].iloc[0]))
    keys = ["agent", "prompt_version", "temperature", "strategy"]
    return answer_flags.flag_lines(flags.merge(seats[keys], on=keys))


def match_info(db: str | Path, match_id: str) -> pd.DataFrame:
    return store.query(db, """
        SELECT match_id, run_id, game, preset, params, seed, "repeat", rules_version, status, error, outcome
        FROM matches WHERE match_id = ?""", [match_id])


def match_turns(db: str | Path, match_id: str) -> pd.DataFrame:
    """Every turn in order, with the acting seat's player name and agent (NULL for the moderator). Answers
    are cut at DISPLAY_CHARS (`response_chars` is the whole length; `full_response` reads one whole), so a
    huge answer neither fills the dashboard's memory nor goes to the browser."""
    return store.query(db, f"""
        SELECT t.turn, t.round, t.phase, t.seat, s.player, {agent_sql("s")} AS agent, t.prompt,
               left(t.response, {DISPLAY_CHARS}) AS response, length(t.response) AS response_chars, t.action,
               t.legal, t.fallback, t.retries, t.call_errors, t.error, t.state, t.tokens_in, t.tokens_out,
               t.cost_usd, t.latency_ms, t.cached
        FROM turns t LEFT JOIN seats s ON s.match_id = t.match_id AND s.seat = t.seat
        WHERE t.match_id = ? ORDER BY t.turn""", [match_id])


def contains(text: str | None, query: str) -> bool:
    return bool(query.strip()) and isinstance(text, str) and query.strip().casefold() in text.casefold()


def hit_turns(turns: pd.DataFrame, query: str, in_prompts: bool = False) -> list[int]:
    """The positions (in `turns`) of the turns whose answer or message holds `query` (case-blind), and when
    `in_prompts`, whose prompt does: where a search result opens."""
    if not query.strip():
        return []
    return [i for i, (response, prompt) in enumerate(zip(turns["response"], turns["prompt"], strict=True))
            if contains(response, query) or (in_prompts and contains(prompt, query))]


def highlighted(text: str, query: str) -> str:
    """`text` as escaped HTML in a wrapping <pre>, every case-blind occurrence of `query` in a <mark>: model
    text stays text (nothing in it becomes markup)."""
    pieces = re.split(f"({re.escape(query.strip())})", text, flags=re.IGNORECASE)
    body = "".join(f"<mark>{html.escape(p)}</mark>" if i % 2 else html.escape(p) for i, p in enumerate(pieces))
    return f"<pre style='white-space: pre-wrap; font-size: 0.85em'>{body}</pre>"


def retry_note(turn: pd.Series) -> dict | None:
    """What the game's retry policy did on a decision (engine.play.playing.settle): policy, tries, outcome; None where
    the
    first answer was usable (or the match was played before the notes)."""
    try:
        action = json.loads(turn.get("action") or "null")
    except (TypeError, ValueError):
        return None
    note = (action.get("extra") or {}).get("retry") if isinstance(action, dict) else None
    return note if isinstance(note, dict) else None


def retry_rule(game: str, params: str | None, turns: pd.DataFrame) -> str:
    """The retry policy a match played by, in words, for the page's header. Matches played before games declared
    their policies (no turn has a note, yet some answer was re-asked or replaced) played by the arena's old one."""
    if not any(retry_note(t) for _, t in turns.iterrows()):
        reasked = turns["retries"].fillna(0).gt(0).any() or turns["fallback"].fillna(False).astype(bool).any()
        if reasked:
            return f"{FEEDBACK.describe()} (played before games declared their retry policies)"
    try:
        policy = get_game(game)(json.loads(params or "{}")).retry_policy()
    except (ValueError, TypeError):
        return "unknown (a game this arena does not play)"
    return f"'{policy.name}': {policy.describe()}"


def retry_outcome(turn: pd.Series) -> str:
    """One decision's line under the policy: 'answered on the first try', 're-asked: answered after 2 tries',
    'authors: random action after 3 tries', 'authors: forfeit (illegal action)'."""
    note = retry_note(turn)
    if note is None:
        retries = turn.get("retries")
        tries = 1 + (0 if retries is None or pd.isna(retries) else int(retries))
        return "answered on the first try" if tries == 1 else f"answered after {tries} tries"
    return f"{note.get('policy')}: {note.get('outcome')} after {count(int(note.get('tries') or 1), 'try')}"


def badges(turn: pd.Series) -> list[tuple[str, str, str]]:
    """(label, colour, icon) for what went wrong in a decision: re-asks, an illegal answer replaced by a random
    fallback move, an error of its own (a failed call)."""
    def known(name: str):
        value = turn.get(name)
        return None if value is None or pd.isna(value) else value

    found = []
    outcome = (retry_note(turn) or {}).get("outcome", "")
    if (known("retries") or 0) > 0:
        found.append((f"re-asked x{int(known('retries'))}", "orange", ":material/replay:"))
    if outcome.startswith("forfeit"):
        found.append((f"{outcome}: the seat loses", "red", ":material/flag:"))
    elif outcome == "fixed action":
        found.append(("fixed fallback action", "red", ":material/pin:"))
    elif known("fallback"):
        found.append(("random fallback move", "red", ":material/casino:"))
    elif known("legal") is not None and not known("legal"):
        found.append(("illegal answer", "red", ":material/block:"))
    if known("error") and not found:  # else the error is the reason of the re-ask or the fallback, shown below
        found.append(("error", "violet", ":material/error:"))
    return found


def fact_text(value: Any) -> str:
    """A fact of a match's state or a player's view as text a reader need not parse (Hanabi's knowledge of a hand
    read as JSON: `[{"colour":null,"rank":2},...]`): a record as "colour unknown, rank 2" (a field without a
    value is unknown), a list of records numbered ("1: ...; 2: ..."), a list of lists (a hand per seat) with
    each one's place ("[0] ... | [1] ..."), other lists comma-separated, yes/no for a flag."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        return ", ".join(f"{k} {'unknown' if v is None else fact_text(v)}" if not isinstance(v, (dict, list))
                         else f"{k} ({fact_text(v)})" for k, v in value.items())
    if isinstance(value, list):
        if value and all(isinstance(v, dict) for v in value):
            return "; ".join(f"{i}: {fact_text(v)}" for i, v in enumerate(value, 1))
        if value and all(isinstance(v, list) for v in value):
            return " | ".join(f"[{i}] {fact_text(v)}" for i, v in enumerate(value))
        return ", ".join(map(fact_text, value))
    return "none" if value is None else str(value)


def facts_text(facts: dict[str, Any]) -> str:
    """A state or a view as lines of text, a fact a line ("knowledge: [0] 1: colour red, rank unknown; ...")."""
    return "\n".join(f"{key}: {fact_text(value)}" for key, value in facts.items())
