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
(`engine.papers.gamabench.scores.leaderboard` gives each study and setting value a row of its own). A numbered run
filed under a name board.py does not read (an older copy: "gpt-4-0125-pirate_game_v1_1.json",
"gpt-3.5-0613_public_goods_v1_1.json") is the study "filed as <that prefix>" (`filed_apart`), and a study file
without a version whose renamed copy `<game>_v1_<suffix>.json` sits beside it ("battle_royale_t1.json") the study
"filed as <its name>" when the two hold the same rounds (`renamed_study`): one match counts once in its study's row.
First or second price comes from meta `mode`, else the folder (`sealed_bid_auction/second_price/`).

The score is the authors' (`engine.papers.gamabench.records`): computed from the figures each
round record stores, as their `compute_score` does; an auction record also keeps the paper's study-table score
(`engine.papers.gamabench.studies`, the older formula of Tables 5-9); the record's `meta` and `round_records` are
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
import math
import multiprocessing
import os
import re
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from engine import store
from engine.games import get_game
from engine.games.base import ParseError
from engine.games.gamabench_common import SCORE_METRIC, GamaGame
from engine.papers.gamabench.record_names import (
    FILE_NAME,
    as_number,
    filed_apart,
    game_setup,
    model_name,
    parse_name,
    versioned_copy,
)
from engine.papers.gamabench.record_replay import as_recorded, record_turn, replay, stored_record
from engine.papers.gamabench.records import RecordError, record_score
from engine.papers.gamabench.studies import AUCTION, PAPER_AUCTION_METRIC, paper_auction_score
from engine.play.match_rows import TurnLog, match_metrics, metric_rows, seat_rows
from engine.play.progress import match_progress
from engine.play.replay import ReplayError, Rescored, logged_decisions
from engine.play.replay import replay as replay_log
from engine.play.spec_text import SpecError, checked_name
from engine.secrets import holds_plain_secret, redact

SOURCE = "import:gamabench"
MAX_LISTED = 50  # unreadable files named in the summary
PARALLEL_FROM = 64  # files: a smaller folder is read in this process (starting workers would cost more)
CHUNK = 8  # files a reader reads per task (the bar moves a task at a time)


MAX_REASON = 200  # characters of why a file was skipped (a 300-digit number is no reason)
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
        data = json.loads(raw)
        if holds_plain_secret(json.dumps(data, ensure_ascii=False)):  # a key in someone's record stays out of ours
            data = json.loads(redact(raw.decode("utf-8", errors="replace")))
        return raw, data
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
    try:  # a name shown on every page and terminal: no control characters, no key
        model = checked_name(redact(model_name(cond["model"], data)), "its model name")
    except SpecError as exc:
        raise RecordError(str(exc)) from None
    own_setting = renamed_study(path, data) or cond["own_setting"] or filed_apart(path.name, model)
    own_setting = redact(own_setting) if own_setting else None  # "filed as <a file's name>"
    version = cond["prompt_version"] or str(data["meta"].get("version") or "v1")
    source_file = redact(path.relative_to(root).as_posix())
    try:
        game_name, preset, params = game_setup(cond["gama_game"], data["meta"], data, path.relative_to(root).parts[:-1])
    except KeyError as exc:
        raise RecordError(f"meta has no {exc}") from None
    except (TypeError, ValueError) as exc:
        raise RecordError(f"meta: {exc}") from None
    score, scores = record_scores(game_name, data)  # their code's score; RecordError when it cannot score
    if not math.isfinite(score):  # one Infinity in a round would blank the model's whole row
        raise RecordError(f"its score is {score}: a figure it is computed from is not a finite number")
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
    players = len(data.get("player_data") or []) or int(as_number(data["meta"]["player_num"]))
    seats = seat_rows(match_id, game, [{"agent": model, "prompt_version": version, "strategy": cond["strategy"],
                                        "temperature": cond["temperature"]}] * players, results)
    metrics = record_metrics(match_id, scores, game if replayed is None else None, players, log.rows)
    now = store.now()
    match = {"match_id": match_id, "run_id": None, "game": game_name, "preset": preset,
             "params": store.to_json(params), "seed": 0, "repeat": cond["repeat"], "status": "ok", "error": None,
             "started_at": now, "finished_at": now, "rules_version": cls.rules_version,
             "outcome": store.to_json(outcome | {"score": score, "source_file": source_file,
                                                 "variant": cond["variant"], "own_setting": own_setting,
                                                 "replayed": replayed is None,
                                                 "not_replayed_because": replayed})}
    return model, store.MatchRecord(match, seats, log.rows, metrics)


def renamed_study(path: Path, data: dict[str, Any]) -> str | None:
    """The study ("filed as <name>") of a study file named without a version that holds the same rounds as its
    `<game>_v1_<suffix>.json` copy beside it (`versioned_copy`): in the study's row both would count one match
    twice. None when there is no such copy; a copy with other rounds (or unreadable) is another run of the study."""
    copy = versioned_copy(path)
    if copy is None:
        return None
    try:
        copied = _json_of(copy)[1]
    except RecordError:
        return None
    same = isinstance(copied, dict) and copied.get("round_records") == data["round_records"]
    return f"filed as {path.name}" if same else None


def record_scores(game_name: str, data: dict[str, Any]) -> tuple[float, list[tuple[None, str, float]]]:
    """A record's score as the authors' leaderboard computes it, and the match's score figures: that score and, for
    an auction, the paper's study-table score beside it (`gamabench_studies.paper_auction_score`; none when the
    record's valuations are all 0). RecordError when the leaderboard's cannot be computed."""
    score = record_score(game_name, data)
    figures = [(None, SCORE_METRIC, score)]
    if game_name == AUCTION:
        with suppress(RecordError):
            figures.append((None, PAPER_AUCTION_METRIC, paper_auction_score(data)))
    return score, figures


def record_metrics(match_id: str, scores: list[tuple[None, str, float]], game: GamaGame | None, n_seats: int,
                   turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """An imported record's `metrics` rows: the match's score figures (`record_scores`), then, when our rules
    replayed it, the game's own figures (its match score aside: theirs counts) and each seat's tally."""
    figures = match_metrics(match_id, game, n_seats, turns) if game is not None else []
    return metric_rows(match_id, scores) + [
        r for r in figures if not (r["seat"] is None and r["name"] == SCORE_METRIC)]


def rescore(match: dict[str, Any], n_seats: int, turns: list[dict[str, Any]]) -> Rescored:
    """`python -m engine rescore` of an imported match: the authors' score from the record kept in the outcome,
    the rest from its turns replayed (with the draws the record forced) when our rules could replay it."""
    outcome = json.loads(match["outcome"])
    scores = record_scores(match["game"], stored_record(match, turns))[1]
    try:
        if not outcome.get("replayed"):
            raise ReplayError(outcome.get("not_replayed_because") or "imported as recorded")
        replayed = replay_log(match["game"], json.loads(match["params"]), int(match["seed"]),
                              logged_decisions(turns))
    except ReplayError:  # the authors' score needs no replay: it stands alone
        return Rescored(record_metrics(match["match_id"], scores, None, n_seats, turns))
    return Rescored(record_metrics(match["match_id"], scores, replayed.game, n_seats, turns), replayed.rewards,
                    replayed.game.result())


def run_id_for(model: str) -> str:
    return "gamabench-import-" + re.sub(r"[^A-Za-z0-9.-]+", "-", model)


def read_record(path: Path, root: Path) -> tuple[str, store.MatchRecord] | str:
    """`match_record` of one file, its run named after its model, or why it is no record their code can score (the
    file named)."""
    try:
        model, record = match_record(path, root)
    except (RecordError, KeyError, IndexError, TypeError, ValueError, ArithmeticError) as exc:  # Infinity: overflow
        shown = redact(path.relative_to(root).as_posix())  # as printable text: a file name may hold escapes
        reason = str(exc) if len(str(exc)) <= MAX_REASON else str(exc)[:MAX_REASON] + "..."
        return f"{shown if shown.isprintable() else ascii(shown)}: {reason}"
    record.match["run_id"] = run_id_for(model)
    return model, record


@dataclass
class ReadFiles:
    """What a reader sends back for a few files: their matches' rows as Arrow tables (built by the readers side by
    side, they cross between processes as buffers: as dicts the rows would cost the importing process much time of its
    own to rebuild), each match's run and model, and why each file that is no record was skipped."""

    files: int
    tables: dict[str, pa.Table]
    runs: dict[str, str]  # run id -> model
    problems: list[str]


def read_files(paths: list[Path], root: Path) -> ReadFiles:
    read = [read_record(path, root) for path in paths]
    records = [r for r in read if not isinstance(r, str)]
    problems = [r for r in read if isinstance(r, str)]
    return ReadFiles(len(paths), store.match_tables([record for _, record in records]),
                     {record.match["run_id"]: model for model, record in records}, problems)


def new_matches(tables: dict[str, pa.Table], known: set[str]) -> dict[str, pa.Table]:
    """`tables` without the matches in `known` (already in the database, or read before from another copy of the
    file), which then holds theirs too."""
    ids = tables["matches"]["match_id"].to_pylist()
    seen = [i for i in ids if i in known]
    known.update(ids)
    if not seen:
        return tables
    old = pa.array(seen, pa.string())
    return {name: t.filter(pc.invert(pc.is_in(t["match_id"], old))) for name, t in tables.items()}


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
    one transaction (`store.write_matches`): a connection and a commit per record cost more than reading it.
    With `progress`, a bar (or a line every few seconds in a log) counts the records read."""
    path = Path(path)
    if not path.is_dir():
        raise FileNotFoundError(f"no folder at {path}")
    files = sorted(path.rglob("*.json"))
    if not any(FILE_NAME.search(f.name) for f in files):
        raise ValueError(f"no GAMA-Bench records ([model_]game[_vK][_suffix].json) under {path}")
    store.init_db(db)
    known = set(store.query(db, "SELECT match_id FROM matches WHERE status = 'ok'").get("match_id", []))
    models: dict[str, str] = {}  # run id -> model
    parts: list[dict[str, pa.Table]] = []
    skipped, problems, turns = 0, [], 0
    chunks = [files[i:i + CHUNK] for i in range(0, len(files), CHUNK)]
    with readers(len(files), workers) as pool:
        bar = match_progress(len(files), 0, "GAMA-Bench import", progress, shown=("errors", "turns"))
        read = pool.map(read_files, chunks, repeat(path)) if pool else (read_files(c, path) for c in chunks)
        for chunk in read:
            problems += chunk.problems
            new = new_matches(chunk.tables, known)
            skipped += chunk.tables["matches"].num_rows - new["matches"].num_rows
            models |= {run: chunk.runs[run] for run in new["matches"]["run_id"].to_pylist()}
            parts.append(new)
            turns += new["turns"].num_rows
            if bar:
                bar.set_postfix(errors=len(problems), turns=turns)
                bar.update(chunk.files)
        if bar:
            bar.close()
    tables = {name: pa.concat_tables([part[name] for part in parts]) for name in parts[0]}  # a part per chunk read
    if problems and not tables["matches"].num_rows and not skipped:  # bad input: no file of the folder was a record
        raise ValueError(f"no GAMA-Bench record under {path} could be read ({len(problems)} unreadable; "
                         f"the first: {problems[0]})")
    for run_id, model in sorted(models.items()):
        store.upsert_run(db, run_id, f"GAMA-Bench records: {model}", {"source": "GAMA-Bench raw_results",
                                                                     "model": model}, SOURCE, 0)
    try:
        added = store.write_tables(db, tables)
    except BaseException:  # the runs must not stay 'running' (the pages would show an import in progress)
        for run_id in sorted(models):
            store.finish_run(db, run_id, "error")
        raise
    for run_id in sorted(models):
        with store.connect(db) as con:
            con.execute("UPDATE runs SET n_matches = (SELECT count(*) FROM matches WHERE run_id = ?) WHERE run_id = ?",
                        [run_id, run_id])
        store.finish_run(db, run_id, "ok")
    summary = f"imported {added} GAMA-Bench matches into {db} ({skipped} already there, {len(problems)} unreadable)"
    more = [f"  ... and {len(problems) - MAX_LISTED} more"] if len(problems) > MAX_LISTED else []
    return "\n".join([summary, *(f"  skipped {p}" for p in problems[:MAX_LISTED]), *more])
