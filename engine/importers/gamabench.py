"""GAMA-Bench's published raw records (github.com/CUHK-ARISE/GAMABench, `raw_results/`) -> our tables.

A file `[<model>_]<game>[_v<k>][_<suffix>].json` is one match, as the authors name them: the model may be joined
with "-" ("gpt-4-0125-pirate_game_v1_1.json") or hold "_" ("gpt-3.5_1106_..."), the version may be missing
(`battle_royale_cot2.json`: the file's meta has it) and the suffix may hold "_" (`_savept1_0`). The model is the
name's prefix (no prefix: gpt-3.5-turbo-0125, the paper's model) unless that only abbreviates the model the file
records (`model_name`). The suffix says the condition: `_1`.._5 repeats, `_t0`.._t5 temperatures 0.0..1.0,
`_v2`.._v5 prompt versions, `_cot1`.. chain of thought, `_role1`.._role3 the personas (cooperative, selfish,
mathematician); any other suffix (the generalizability settings `_r0`, `_vr1`, `_g0`, `_h0`, `_p1`, save points
`_savept1_0`, `_m1`, `_s1`...) keeps the default condition.
The leaderboard's condition is what the authors' `board.py` reads: `<model>_<game>_v1_1.json` .. `_v1_5.json`
(prompt v1, the default temperature, runs 1-5). Every other file belongs to a study of its own, named in the
outcome (`own_setting`: the file's suffix, or its version when it has none), so it never lands in that row even
where its condition looks the same: an unsuffixed `_v1.json` is the prompt-version study's v1 (not run 1), `_t5`
the temperature study's 1.0 (not the default temperature), `_cot2` one of five CoT prompts, `_g0` a gold amount
(`engine.metrics.gamabench.leaderboard` gives each study and setting value a row of its own).
First or second price comes from meta `mode`, else the folder (`sealed_bid_auction/second_price/`).

The score is the authors' (`engine.metrics.gamabench_records`): computed from the figures each
round record stores, as their `compute_score` does; the record's `meta` and `round_records` are
kept as the state of the match's first turn (`record_turn`), so `rescore` recomputes it from the database and the
Transcripts page shows them as tables (the match header keeps to the game's parameters).
A record their code cannot score, and any other .json file under the folder, is reported with its reason and not
imported; every other record is imported. The turns: each player's actions, read from `player_data[i].records` (the
round `responses` lists are shuffled in some games), are replayed through our own game, so the
match has the same turns, states and per-round figures as matches we play (auction valuations,
who shoots when and whether a shot landed are forced from the file). A record our rules cannot
replay (it stops before the game ends, an answer outside the option list...) keeps its rounds as
recorded instead: one moderator turn per round record, its fields as the public state.
Each decision's prompt is what its player saw as far as the file's conversation has it (`seen_by_turn`).
Match ids hash the file name and content: importing again adds nothing.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import re
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from itertools import repeat
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine import store
from engine.agents.base import Decision
from engine.games import get_game
from engine.games.base import ActionSpace, Choice, IntRange, ParseError
from engine.games.gamabench_common import SCORE_METRIC, GamaGame, SimultaneousGame
from engine.match_rows import TurnLog, match_metrics, metric_rows, seat_rows
from engine.metrics.gamabench_records import RecordError, record_score
from engine.progress import match_progress
from engine.replay import ReplayError, logged_decisions
from engine.replay import replay as replay_log

if TYPE_CHECKING:  # engine.rescore loads the ratings (scipy: seconds): only `rescore` needs it
    from engine.rescore import Rescored

SOURCE = "import:gamabench"
MAX_LISTED = 50  # unreadable files named in the summary
PARALLEL_FROM = 64  # files: a smaller folder is read in this process (starting workers would cost more)
CHUNK = 16  # files a worker reads per task
PAPER_MODEL = "gpt-3.5-turbo-0125"
NOT_KEPT = {"role": "note", "content": "The record keeps no conversation for this answer."}
PERSONAS = {"1": "persona:cooperative", "2": "persona:selfish", "3": "persona:mathematician"}
LEADERBOARD_RUNS = ("1", "2", "3", "4", "5")  # board.py: f"{model}{game}_v1_{i}.json" for i in range(1, 6)
GAMA_NAMES = ("guessing_game", "bar_game_implicit", "bar_game_explicit", "bar_game", "divide_dollar",
              "public_goods", "diner_dilemma", "sealed_bid_auction", "battle_royale", "pirate_game")
# the game's name in a file name: after the model and "_" (or "-": "gpt-4-0125-pirate_game_v1_1.json"), then an
# optional prompt version and an optional suffix that may hold underscores ("_savept1_0"); some files have no version
# ("battle_royale_cot2.json": their meta says it)
FILE_NAME = re.compile(r"(?:^|[_-])(?P<game>" + "|".join(GAMA_NAMES) + r")(?:_(?P<version>v\d+)(?=_|\.json$))?"
                       r"(?:_(?P<suffix>[A-Za-z0-9]+(?:_[A-Za-z0-9]+)*))?\.json$")


def _num(value: Any) -> float:
    return float(value)


def parse_name(name: str) -> dict[str, Any]:
    """The match's game, model prefix and condition from a GAMA-Bench file name. `model` is the name's prefix
    (no prefix: the paper's model); `model_name` settles it against what the file records. `prompt_version`
    is None when the name has none (the file's meta has it). `own_setting` names the study of every file but
    the leaderboard's runs (`_v1_1`.._v1_5`; a numbered run of another version is told apart by its version)."""
    m = FILE_NAME.search(name)
    if not m:
        raise RecordError("not a GAMA-Bench record name ([model_]game[_vK][_suffix].json)")
    prefix = name[:m.start("game")].rstrip("_-")
    suffix = m["suffix"] or ""
    cond = {"gama_game": m["game"], "model": prefix.replace("_", "-") or PAPER_MODEL, "prompt_version": m["version"],
            "temperature": 1.0, "strategy": "vanilla", "repeat": 0, "variant": suffix or None, "own_setting": None}
    if suffix.isdigit():
        cond["repeat"], cond["variant"] = int(suffix) - 1, None
    elif re.fullmatch(r"t[0-5]", suffix):
        cond["temperature"] = round(int(suffix[1]) * 0.2, 1)
    elif re.fullmatch(r"v[1-9]", suffix):
        cond["prompt_version"] = suffix
    elif re.fullmatch(r"cot\d", suffix):
        cond["strategy"] = "cot"
    elif re.fullmatch(r"role[1-3]", suffix):
        cond["strategy"] = PERSONAS[suffix[-1]]
    if not (suffix in LEADERBOARD_RUNS or suffix.isdigit() and m["version"] not in (None, "v1")):
        cond["own_setting"] = suffix or m["version"] or "unnumbered"
    return cond


def _tokens(name: str) -> list[str]:
    return [t for t in re.split(r"[^a-z0-9]+", name.lower()) if t]


def _added_tokens(short: list[str], long: list[str]) -> list[str] | None:
    """The tokens `long` adds to `short` when `short` is a subsequence of it, else None."""
    added, rest = [], iter(long)
    for want in short:
        for token in rest:
            if token == want:
                break
            added.append(token)
        else:
            return None
    return added + list(rest)


def recorded_model(data: dict[str, Any]) -> str | None:
    """The model the file itself names: every player's `model` when they agree, else meta `models` (or `model`)."""
    players = data.get("player_data")
    names = {str(p["model"]) for p in players if isinstance(p, dict) and p.get("model")} \
        if isinstance(players, list) else set()
    if len(names) == 1:
        return names.pop()
    meta = data.get("meta") if isinstance(data.get("meta"), dict) else {}
    models = meta.get("models") or meta.get("model")
    return models if isinstance(models, str) and models else None


def model_name(prefix_model: str, data: dict[str, Any]) -> str:
    """The model of a record. The file name's prefix, the authors' own short name ("llama-3.1-405b" for what the
    file records as "meta-llama/Meta-Llama-3.1-405B-Instruct"), except when it only abbreviates the recorded
    model by leaving words out ("gpt-3.5-0613", "gpt-4-0125" for "gpt-3.5-turbo-0613", "gpt-4-0125-preview": the
    names the authors' leaderboard uses); a date the recorded name adds ("gpt-4o-2024-08-06") is no reason to
    rename. A file without a prefix is the paper's model unless it records an unrelated one."""
    recorded = recorded_model(data)
    if not recorded or "/" in recorded:
        return prefix_model
    mine, theirs = _tokens(prefix_model), _tokens(recorded)
    if prefix_model == PAPER_MODEL:  # no prefix in the name
        related = _added_tokens(theirs, mine) is not None or _added_tokens(mine, theirs) is not None
        return PAPER_MODEL if related else recorded
    added = _added_tokens(mine, theirs)
    return recorded if added and all(t.isalpha() for t in added) else prefix_model


def _pricing(meta: dict[str, Any], data: dict[str, Any], where: tuple[str, ...]) -> str:
    """First or second price: meta `mode` ("highest bid" / "second highest bid"), else the folder the authors
    filed it in (older files have no mode), else whether a winner ever paid less than its bid."""
    if meta.get("mode"):
        return "second" if "second" in str(meta["mode"]).lower() else "first"
    for part in reversed(where):
        if part in ("first_price", "second_price"):
            return part.split("_")[0]
    paid_less = any(isinstance(r, dict) and "bid_winner_payment" in r and
                    _num(r["bid_winner_payment"]) < _num(r.get("bid_winner_proposed", r["bid_winner_payment"]))
                    for r in data["round_records"])
    return "second" if paid_less else "first"


def game_setup(gama_game: str, meta: dict[str, Any], data: dict[str, Any],
               where: tuple[str, ...] = ()) -> tuple[str, str, dict[str, Any]]:
    """Our game name, preset and parameters for a GAMA-Bench file's meta block (`where`: the folders it is in)."""
    n = int(_num(meta["player_num"]))
    rounds = len(data["round_records"])
    if gama_game == "guessing_game":
        return "guessing_game", "default", {"players": n, "rounds": rounds, "min": int(_num(meta["min"])),
                                            "max": int(_num(meta["max"])), "ratio": _num(meta["ratio"])}
    if gama_game.startswith("bar_game"):
        mode = str(meta.get("mode") or gama_game.rpartition("_")[2])
        return "bar_game", mode, {"players": n, "rounds": rounds, "ratio": _num(meta["ratio"]), "mode": mode,
                                  "min": int(_num(meta["min"])), "max": int(_num(meta["max"])),
                                  "home": int(_num(meta["home"]))}
    if gama_game == "divide_dollar":
        return "divide_dollar", "default", {"players": n, "rounds": rounds, "golds": int(_num(meta["golds"]))}
    if gama_game == "public_goods":
        return "public_goods", "default", {"players": n, "rounds": rounds, "tokens": int(_num(meta["tokens"])),
                                           "ratio": _num(meta["ratio"])}
    if gama_game == "diner_dilemma":
        return "diner_dilemma", "default", {
            "players": n, "rounds": rounds, "cheap_price": int(_num(meta["cheap_cost"])),
            "cheap_utility": int(_num(meta["cheap_utility"])), "costly_price": int(_num(meta["exp_cost"])),
            "costly_utility": int(_num(meta["exp_utility"]))}
    if gama_game == "sealed_bid_auction":
        pricing = _pricing(meta, data, where)
        return "sealed_bid_auction", f"{pricing}_price", {
            "players": n, "rounds": rounds, "valuation_min": int(_num(meta["valuation_min"])),
            "valuation_max": int(_num(meta["valuation_max"])), "valuation_step": int(_num(meta["interval"])),
            # their files save the seed after the last round (it grows by one a round): the match's is the first
            "valuation_seed": int(_num(meta.get("seed", 42 + rounds))) - rounds, "pricing": pricing}
    if gama_game == "battle_royale":
        base, step = int(_num(meta["base_hit_rate"])), int(_num(meta["interval"]))
        return "battle_royale", "default", {"players": n, "hit_min": base, "hit_max": base + step * (n - 1),
                                            "rounds": max(20, rounds)}  # their main.py's 20 (one shot a round)
    return "pirate_game", "default", {"players": n, "golds": int(_num(meta.get("gold", meta.get("golds", 100))))}


# ---------------------------------------------------------------- reading the records
def _vote(value: Any) -> str:
    text = str(value).strip().lower()
    return "accept" if text in ("accept", "yes") else "reject"


def _target(value: Any) -> int | None:
    digits = re.sub(r"\D", "", str(value))
    return int(digits) if digits and str(value).strip().lower() not in ("null", "none") else None


SIMPLE_ACTION = {"guessing_game": lambda v: int(_num(v)), "divide_dollar": lambda v: int(_num(v)),
                 "public_goods": lambda v: int(_num(v)), "sealed_bid_auction": lambda v: int(_num(v)),
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
            facts = {"valuations": [int(_num(v)) for v in rr["valuations"]]} if "valuations" in rr else {}
            yield {s: convert(r[t]) for s, r in enumerate(records)}, facts
    elif game == "battle_royale":
        shots_taken: dict[int, int] = {}
        for rr in rounds:
            shooter = int(_num(rr["player_shooting"]))
            k = shots_taken.get(shooter, 0)
            shots_taken[shooter] = k + 1
            yield {shooter: _target(records[shooter][k])}, {"shooter": shooter, "hit": bool(rr.get("out"))}
    else:
        for k, rr in enumerate(rounds):
            yield {k: [int(_num(g)) for g in rr["gold_distribution"]]}, {}
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
            # what the record forced is kept on the step's first decision, so engine.replay can force it again
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
    kept = [[m for m in chunk if m["role"] != "system"] or [NOT_KEPT] for chunk in before]
    seen = ([[NOT_KEPT]] * (decisions - len(kept)) + kept)[-decisions:] if decisions else []
    if seen:
        seen[0] = rules + seen[0]
    return seen


# ---------------------------------------------------------------- writing
MAX_RECORD_BYTES = 20_000_000  # the published records are under a megabyte; a bigger file is no record of theirs


def _json_of(path: Path) -> tuple[bytes, Any]:
    """A record file's bytes and the JSON they hold. A folder, a device or a pipe named like a record, a file past
    MAX_RECORD_BYTES, nesting past Python's recursion limit: a RecordError saying so, never a hang or a
    memory blow-up (the file is read up to the cap, whatever its size says)."""
    if not path.is_file():
        raise RecordError("not a regular file")
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_RECORD_BYTES + 1)
    except OSError as exc:
        raise RecordError(f"unreadable ({exc.strerror or exc})") from None
    if len(raw) > MAX_RECORD_BYTES:
        raise RecordError(f"larger than {MAX_RECORD_BYTES:,} bytes")
    try:
        return raw, json.loads(raw)
    except ValueError as exc:
        raise RecordError(f"not JSON ({exc})") from None
    except RecursionError:
        raise RecordError("nested too deeply to be a record") from None


def match_record(path: Path, root: Path) -> tuple[str, store.MatchRecord]:
    """(model, rows) of one record file; the match's `run_id` is the caller's."""
    cond = parse_name(path.name)
    raw, data = _json_of(path)
    if not isinstance(data, dict) or not isinstance(data.get("meta"), dict) \
            or not isinstance(data.get("round_records"), list):
        raise RecordError("not a GAMA-Bench record (a JSON object with 'meta' and 'round_records')")
    model = model_name(cond["model"], data)
    version = cond["prompt_version"] or str(data["meta"].get("version") or "v1")
    source_file = path.relative_to(root).as_posix()
    try:
        game_name, preset, params = game_setup(cond["gama_game"], data["meta"], data, path.relative_to(root).parts[:-1])
    except KeyError as exc:
        raise RecordError(f"meta has no {exc}") from None
    except (TypeError, ValueError) as exc:
        raise RecordError(f"meta: {exc}") from None
    score = record_score(game_name, data)  # their code's score; RecordError when it cannot score
    cls = get_game(game_name)
    params = cls.resolve_params(params)
    match_id = "gamabench-" + hashlib.sha1(path.name.encode() + b"\0" + raw).hexdigest()[:16]
    replayed: str | None = None
    log = TurnLog(match_id)
    record_turn(log, source_file, data)
    try:
        game = replay(game_name, params, data, log)
        results = game.result()
        outcome = game.outcome()
    except (RecordError, ParseError, KeyError, IndexError, TypeError, ValueError) as exc:
        replayed = str(exc) or type(exc).__name__
        game, results, outcome = cls(params), {}, {}
        log = TurnLog(match_id)
        record_turn(log, source_file, data)
        as_recorded(data, log, replayed)
    players = len(data.get("player_data") or []) or int(_num(data["meta"]["player_num"]))
    seats = seat_rows(match_id, game, [{"agent": model, "prompt_version": version, "strategy": cond["strategy"],
                                        "temperature": cond["temperature"]}] * players, results)
    metrics = record_metrics(match_id, score, game if replayed is None else None, players, log.rows)
    now = store.now()
    match = {"match_id": match_id, "run_id": None, "game": game_name, "preset": preset,
             "params": store.to_json(params), "seed": 0, "repeat": cond["repeat"], "status": "ok", "error": None,
             "started_at": now, "finished_at": now, "rules_version": cls.rules_version,
             "outcome": store.to_json(outcome | {"score": score, "source_file": source_file,
                                                 "variant": cond["variant"], "own_setting": cond["own_setting"],
                                                 "replayed": replayed is None,
                                                 "not_replayed_because": replayed})}
    return model, store.MatchRecord(match, seats, log.rows, metrics)


def record_metrics(match_id: str, score: float, game: GamaGame | None, n_seats: int,
                   turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """An imported record's `metrics` rows: the authors' score of the match, then, when our rules replayed it,
    the game's own figures (its match score aside: theirs counts) and each seat's tally."""
    figures = match_metrics(match_id, game, n_seats, turns) if game is not None else []
    return metric_rows(match_id, [(None, SCORE_METRIC, score)]) + [
        r for r in figures if not (r["seat"] is None and r["name"] == SCORE_METRIC)]


def rescore(match: dict[str, Any], n_seats: int, turns: list[dict[str, Any]]) -> Rescored:
    """`python -m engine rescore` of an imported match: the authors' score from the record kept in the outcome,
    the rest from its turns replayed (with the draws the record forced) when our rules could replay it."""
    from engine.rescore import Rescored

    outcome = json.loads(match["outcome"])
    score = record_score(match["game"], stored_record(match, turns))
    try:
        if not outcome.get("replayed"):
            raise ReplayError(outcome.get("not_replayed_because") or "imported as recorded")
        replayed = replay_log(match["game"], json.loads(match["params"]), int(match["seed"]),
                              logged_decisions(turns))
    except ReplayError:  # the authors' score needs no replay: it stands alone
        return Rescored(record_metrics(match["match_id"], score, None, n_seats, turns))
    return Rescored(record_metrics(match["match_id"], score, replayed.game, n_seats, turns), replayed.rewards,
                    replayed.game.result())


def run_id_for(model: str) -> str:
    return "gamabench-import-" + re.sub(r"[^A-Za-z0-9.-]+", "-", model)


def read_record(path: Path, root: Path) -> tuple[str, store.MatchRecord] | str:
    """`match_record` of one file, or why it is no record their code can score (the file named)."""
    try:
        return match_record(path, root)
    except (RecordError, KeyError, IndexError, TypeError, ValueError) as exc:
        return f"{path.relative_to(root).as_posix()}: {exc}"


@contextmanager
def readers(n_files: int, workers: int | None) -> Iterator[ProcessPoolExecutor | None]:
    """Processes that read records side by side (a replay is pure Python: one core each), or None where a folder
    is too small to pay for them. Forked, so each starts with the engine imported, before any thread (the
    progress bar's) exists."""
    workers = workers or os.cpu_count() or 1
    if workers < 2 or n_files < PARALLEL_FROM or "fork" not in multiprocessing.get_all_start_methods():
        yield None
        return
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        pool.submit(int).result()  # a forking pool starts all its processes at its first task: now, not after the bar
        yield pool


def import_dir(path: Path, db: Path, progress: bool = False, workers: int | None = None) -> str:
    """Import every GAMA-Bench record under `path`; one run per model; files already imported are skipped, and
    every .json file that is not a record their code can score is reported with the reason.

    The records are read by `workers` processes (default: one per core), then every one's rows are written in
    one transaction (`store.write_matches`): a connection and a commit per record cost more than reading it
    (the published folder's 1,447 records took 165 s that way, 9 a second). With `progress`, a bar (or a line
    every few seconds in a log) counts the records read."""
    path = Path(path)
    if not path.is_dir():
        raise FileNotFoundError(f"no folder at {path}")
    files = sorted(path.rglob("*.json"))
    if not any(FILE_NAME.search(f.name) for f in files):
        raise ValueError(f"no GAMA-Bench records ([model_]game[_vK][_suffix].json) under {path}")
    store.init_db(db)
    known = set(store.query(db, "SELECT match_id FROM matches WHERE status = 'ok'").get("match_id", []))
    models: dict[str, str] = {}  # run id -> model
    records: list[store.MatchRecord] = []
    skipped, problems, turns = 0, [], 0
    with readers(len(files), workers) as pool:
        bar = match_progress(len(files), 0, "GAMA-Bench import", progress)
        read = pool.map(read_record, files, repeat(path), chunksize=CHUNK) if pool \
            else (read_record(f, path) for f in files)
        for result in read:
            if isinstance(result, str):
                problems.append(result)
            elif result[1].match["match_id"] in known:
                skipped += 1
            else:
                model, record = result
                record.match["run_id"] = run_id_for(model)
                models[record.match["run_id"]] = model
                known.add(record.match["match_id"])
                records.append(record)
                turns += len(record.turns)
            if bar:
                bar.set_postfix(errors=len(problems), turns=turns)
                bar.update()
        if bar:
            bar.close()
    for run_id, model in sorted(models.items()):
        store.upsert_run(db, run_id, f"GAMA-Bench records: {model}", {"source": "GAMA-Bench raw_results",
                                                                     "model": model}, SOURCE, 0)
    added = store.write_matches(db, records)
    for run_id in sorted(models):
        with store.connect(db) as con:
            con.execute("UPDATE runs SET n_matches = (SELECT count(*) FROM matches WHERE run_id = ?) WHERE run_id = ?",
                        [run_id, run_id])
        store.finish_run(db, run_id, "ok")
    summary = f"imported {added} GAMA-Bench matches into {db} ({skipped} already there, {len(problems)} unreadable)"
    more = [f"  ... and {len(problems) - MAX_LISTED} more"] if len(problems) > MAX_LISTED else []
    return "\n".join([summary, *(f"  skipped {p}" for p in problems[:MAX_LISTED]), *more])
