"""A GAMA-Bench record's rounds replayed through our own game: each player's recorded actions forced into the
game's decision points, so an imported match has the same turns, states and per-round figures as one we play; a
record our rules cannot replay keeps its rounds as recorded; what each player saw, as far as the file keeps it.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

from engine import store
from engine.agents.base import Decision
from engine.games import get_game
from engine.games.base import ActionSpace, Choice, IntRange, ParseError
from engine.games.gamabench_common import GamaGame, SimultaneousGame
from engine.papers.gamabench.record_names import as_number
from engine.papers.gamabench.records import RecordError
from engine.play.match_rows import TurnLog

NOT_KEPT = {"role": "note", "content": "The record keeps no conversation for this answer."}

def _vote(value: Any) -> str:
    text = str(value).strip().lower()
    return "accept" if text in ("accept", "yes") else "reject"


def _target(value: Any) -> int | None:
    digits = re.sub(r"\D", "", str(value))
    return int(digits) if digits and str(value).strip().lower() not in ("null", "none") else None


SIMPLE_ACTION = {"guessing_game": lambda v: int(as_number(v)), "divide_dollar": lambda v: int(as_number(v)),
                 "public_goods": lambda v: int(as_number(v)), "sealed_bid_auction": lambda v: int(as_number(v)),
                 "bar_game": lambda v: str(v).strip().lower(), "diner_dilemma": lambda v: str(v).strip().lower()}


def _steps(game: str, data: dict[str, Any]) -> Iterator[tuple[dict[int, Any], dict[str, Any]]]:
    """(actions by seat, facts to force) for each step of the recorded match, in order."""
    players = data.get("player_data")
    if not isinstance(players, list) or not all(isinstance(p, dict) and isinstance(p.get("records"), list)
                                                for p in players):
        raise RecordError("the file keeps no answers per player (player_data[i].records)")
    records = [p["records"] for p in players]
    rounds = data["round_records"]
    if game in SIMPLE_ACTION:
        convert = SIMPLE_ACTION[game]
        for t, rr in enumerate(rounds):
            facts = {"valuations": [int(as_number(v)) for v in rr["valuations"]]} if "valuations" in rr else {}
            yield {s: convert(r[t]) for s, r in enumerate(records)}, facts
    elif game == "battle_royale":
        shots_taken: dict[int, int] = {}
        for rr in rounds:
            shooter = int(as_number(rr["player_shooting"]))
            k = shots_taken.get(shooter, 0)
            shots_taken[shooter] = k + 1
            yield {shooter: _target(records[shooter][k])}, {"shooter": shooter, "hit": bool(rr.get("out"))}
    else:
        for k, rr in enumerate(rounds):
            yield {k: [int(as_number(g)) for g in rr["gold_distribution"]]}, {}
            voters = range(k + 1, len(records))
            if voters:
                yield {s: _vote(records[s][k]) for s in voters}, {}


def _legal(space: ActionSpace, action: Any) -> bool:
    """Whether our rules accept a recorded action (the authors' code kept some ours refuses)."""
    if isinstance(space, Choice):
        return action in space.options
    if isinstance(space, IntRange):
        return isinstance(action, int) and space.lo <= action <= space.hi
    try:
        return space.parse(json.dumps({getattr(space, "key", "action"): action})) == action
    except ParseError:
        return False


def decision_point(game: GamaGame, seat: int) -> tuple[str, int, ActionSpace]:
    """The phase, round and action space of `seat`'s next decision. A simultaneous game tells them without an
    observation, whose prompt view and history (every message so far) would cost more than all the rest of
    an import."""
    if isinstance(game, SimultaneousGame):
        return game.phase, game.round, game.space(seat)
    seen = game.observe(seat)
    return seen.phase, seen.round, seen.space


def replay(game_name: str, params: dict[str, Any], data: dict[str, Any], log: TurnLog) -> GamaGame:
    """Play the recorded actions through our game; the turn rows come out in `log` as the runner writes them,
    each decision with what its player saw (`seen_by_turn`)."""
    game = get_game(game_name)(params)
    game.reset(0)
    log.messages(game, store.to_json(game.public_state()))
    decisions = Counter(s for actions, _ in _steps(game_name, data) for s in actions)
    seen = {s: seen_by_turn(p, decisions[s]) for s, p in enumerate(data["player_data"])}
    taken = dict.fromkeys(seen, 0)
    for actions, facts in _steps(game_name, data):
        if game.done():
            raise RecordError(f"the record goes on after the game ended (step {len(game.records) + 1})")
        if facts:
            game.force(facts)
        if sorted(actions) != sorted(game.to_act()):
            raise RecordError(f"step {len(game.records) + 1}: the record has {sorted(actions)} acting, "
                               f"the rules {sorted(game.to_act())}")
        points = {s: decision_point(game, s) for s in actions}
        for s, action in actions.items():
            if not _legal(points[s][2], action):
                raise RecordError(f"step {len(game.records) + 1}: player {s + 1}'s answer {action!r} is not "
                                  f"{points[s][2].describe()}")
        game.step(actions)
        state = store.to_json(game.public_state())
        for i, (s, action) in enumerate(actions.items()):
            # what the record forced is kept on the step's first decision, so engine.play.replay can force it again
            decision = Decision(action=action, response=json.dumps(action), prompt=seen[s][taken[s]],
                                extra={"facts": facts} if facts and not i else {})
            taken[s] += 1
            log.decision(points[s][0], points[s][1], s, decision, state)
        log.messages(game, state)
    if not game.done():
        raise RecordError("the record ends before the game does")
    return game


def as_recorded(data: dict[str, Any], log: TurnLog, reason: str) -> None:
    """Turns of a record our rules cannot replay: why, then one moderator turn per round record."""
    log.moderator(0, f"Imported as recorded: our rules could not replay this record ({reason}).", None)
    for k, r in enumerate(data["round_records"]):
        log.moderator(k + 1, json.dumps(r, sort_keys=True), store.to_json({"round": k + 1, "last": r}))


def kept_record(data: dict[str, Any]) -> dict[str, Any]:
    """What the score is computed from: `meta` and `round_records` (no conversations)."""
    return {"meta": data["meta"], "round_records": data["round_records"]}


def record_turn(log: TurnLog, source_file: str, data: dict[str, Any]) -> None:
    """The match's first turn: the authors' record of it (`kept_record`), the moderator's, as its public state. The
    Transcripts page draws it as tables (the meta block, a row per round record) where the match header would
    otherwise dump it, and `rescore` reads the authors' score from it."""
    log.moderator(0, f"GAMA-Bench's published record {source_file}: its meta block and the figures of each "
                     f"round, which the authors' score reads.", store.to_json(kept_record(data)))


def stored_record(match: dict[str, Any], turns: list[dict[str, Any]]) -> dict[str, Any]:
    """The record `record_turn` kept (an import of an earlier version kept it in the match outcome)."""
    for t in turns:
        if t["seat"] is None and t["turn"] == 0 and t["state"]:
            state = json.loads(t["state"])
            if isinstance(state, dict) and {"meta", "round_records"} <= set(state):
                return state
    return json.loads(match["outcome"])["gama_record"]  # imported before the record was a turn


def _conversation(player: Any) -> list[dict[str, str]] | None:
    messages = player.get("prompt") if isinstance(player, dict) else None
    if isinstance(messages, list) and all(isinstance(m, dict) and "content" in m for m in messages):
        return [{"role": str(m.get("role", "")), "content": str(m["content"])} for m in messages]
    return None


def seen_by_turn(player: Any, decisions: int) -> list[list[dict[str, str]]]:
    """What a player saw before each of its `decisions`, as far as its record has it. The record keeps the
    player's conversation as it stood at the end (`player_data[i].prompt`): its answers are the assistant
    messages, so a decision saw the messages since the player's previous answer (the rules, the system
    message, on its first). Their code rewrites a round's request into its report once the round is played
    ("Game Results for Round 1 ... You chose:"), and some files keep only the last answers (the first ones
    cut): those decisions say the record has nothing for them."""
    conversation = _conversation(player)
    if conversation is None:
        return [[NOT_KEPT]] * decisions
    chunks: list[list[dict[str, str]]] = [[]]
    for m in conversation:
        if m["role"] == "assistant":
            chunks.append([])
        else:
            chunks[-1].append(m)
    before = chunks[:-1]  # the last chunk came after the player's last answer: no decision saw it
    rules = [m for m in conversation if m["role"] == "system"]
    views = [[m for m in chunk if m["role"] != "system"] or [NOT_KEPT] for chunk in before]
    seen = ([[NOT_KEPT]] * (decisions - len(views)) + views)[-decisions:] if decisions else []
    if seen:
        seen[0] = rules + seen[0]
    return seen
