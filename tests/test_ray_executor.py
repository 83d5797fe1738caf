"""The Ray executor on a real two-node cluster on this machine (`ray.cluster_utils.Cluster`): the matches spread
over both nodes, one node is removed mid-run and every match still lands exactly once; the driver alone writes;
resume, the response cache and cancel work as with the local executor."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml

from engine import store
from engine.agents import cache as response_cache
from engine.agents import local_model, make_agent
from engine.agents.limits import ModelLimits
from engine.play import ray_executor
from engine.play.ray_executor import RAY_TEMP, plan_chunks, play_chunk
from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.serve.launch.live import read_progress
from engine.testing import StubReply, StubServer

pytestmark = pytest.mark.ray

ROOT = Path(__file__).resolve().parents[1]
LATENCY = 0.05  # seconds per model call
SPREAD_LATENCY = 0.2  # the node-loss run: 32 matches x 10 rounds at 4 at once play ~16 s, far longer than a
                      # loaded machine takes to start the worker node's first task (~5-10 s), so the node is
                      # lost while matches are still to play, whichever node happens to start first


@pytest.fixture(scope="module")
def cluster():
    """A head node and a worker node, one CPU each (so the matches must use both to use the cluster)."""
    from ray.cluster_utils import Cluster

    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    os.environ["RAY_TMPDIR"] = str(RAY_TEMP)  # where the cluster's address file goes (not /tmp/ray)
    (RAY_TEMP / "ray").mkdir(parents=True, exist_ok=True)
    made = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "temp_dir": str(RAY_TEMP),
                                                        "include_dashboard": False})
    made.add_node(num_cpus=1)
    made.wait_for_nodes()
    yield made
    made.shutdown()


@pytest.fixture(scope="module")
def slow_model():
    with StubServer(lambda req: StubReply('{"chosen_number": 33}', delay=LATENCY)) as server:
        yield server


def guessing(url: str, name: str, repeats: int, concurrency: int = 4, rounds: int = 2) -> dict:
    seat = {"agent": "openai/stub-model", "api_base": url, "max_tokens": 8}
    return {"name": name, "seed": 0, "repeats": repeats, "concurrency": concurrency, "executor": "ray",
            "games": [{"game": "guessing_game", "params": {"players": 2, "rounds": rounds},
                       "lineups": [{"all": seat}]}]}


# Ray 2.60's driver sometimes aborts when a node is removed under a streaming task (its task manager's check
# "Tried to complete task that was not pending"): a crash of Ray's, not of the run, which resumes as a killed run does
RAY_DRIVER_ABORT = "Tried to complete task that was not pending"


def engine_run(spec: dict, tmp_path: Path, address: str) -> tuple[list[str], Path]:
    path, db = tmp_path / f"{spec['name']}.yaml", tmp_path / f"{spec['name']}.duckdb"
    path.write_text(yaml.safe_dump(spec))
    return [sys.executable, "-m", "engine", "run", str(path), "--db", str(db), "--quiet", "--address", address], db


def read_when_free(db: Path, sql: str):
    """A read while the driver may be writing: the file is locked for the length of a flush."""
    for _ in range(100):
        try:
            return store.query(db, sql) if db.exists() else None
        except Exception:  # noqa: BLE001 - the writer holds the file; try again
            time.sleep(0.05)
    raise AssertionError("the database stayed locked")


def test_chunks_keep_the_concurrency_and_give_every_slot_work():
    assert plan_chunks(1000, 64, 8) == (8, 8, 32)     # 8 tasks x 8 matches at once; 4 rounds a chunk
    assert plan_chunks(40, 4, 2) == (2, 2, 8)
    assert plan_chunks(3, 64, 8) == (3, 1, 1)         # fewer matches than slots: one each
    assert plan_chunks(100, 1, 8) == (1, 1, 4)        # concurrency 1 stays 1
    assert plan_chunks(64, 64, 2) == (2, 32, 32)      # as many matches at once as asked, even in few chunks


def test_a_worker_loads_the_embedded_model_once_for_all_its_chunks(monkeypatch, tmp_path):
    """A Ray worker process runs chunk after chunk (play_chunk, as Ray calls it): the model it loaded for the
    first serves the next; only the weights are faked here (the real file loads in tests/test_llm_local.py)."""
    loads = []

    class FakeLlama:
        def __init__(self, model_path, **kwargs):
            loads.append(model_path)

        def create_chat_completion(self, messages, **kwargs):
            return {"choices": [{"message": {"content": '{"chosen_number": 20}'}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 50, "completion_tokens": 6, "total_tokens": 56}}

    monkeypatch.setitem(sys.modules, "llama_cpp", type(sys)("llama_cpp"))
    monkeypatch.setattr(sys.modules["llama_cpp"], "Llama", FakeLlama, raising=False)
    monkeypatch.setattr(local_model, "_loaded", {})
    monkeypatch.setattr(local_model, "model_file", lambda name: tmp_path / "model.gguf")
    monkeypatch.setattr(ray_executor, "worker_name", lambda: "ray:node:1")
    seat = {"agent": "local/smollm2", "max_tokens": 8}
    plans = parse_spec({"name": "local", "repeats": 4, "games": [{
        "game": "guessing_game", "params": {"players": 2, "rounds": 1}, "lineups": [{"all": seat}]}]}).matches
    chunks = [list(play_chunk(plans[:2], 2, ModelLimits(4), make_agent, None)),
              list(play_chunk(plans[2:], 2, ModelLimits(4), make_agent, None))]
    assert [r.match["status"] for chunk in chunks for r in chunk] == ["ok"] * 4
    assert {r.match["worker"] for chunk in chunks for r in chunk} == {"ray:node:1"}
    assert loads == [str(tmp_path / "model.gguf")], "one load for both chunks"
    monkeypatch.setenv("ARENA_CACHE", str(tmp_path / "cache.sqlite"))
    assert response_cache.cache_from_env() is not None, "the cache given to the chunks was theirs only"


@pytest.fixture(scope="module")
def slower_model():
    with StubServer(lambda req: StubReply('{"chosen_number": 33}', delay=SPREAD_LATENCY)) as server:
        yield server


def test_a_run_spread_over_two_nodes_loses_one_and_keeps_every_match_once(cluster, slower_model, tmp_path):
    spec = guessing(slower_model.url, "spread", repeats=32, rounds=10)
    total = len(parse_spec(spec).matches)
    cmd, db = engine_run(spec, tmp_path, cluster.address)
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    worker_node = next(iter(cluster.worker_nodes))
    on_worker = f"ray:{worker_node.node_id[:12]}:"
    progress = []
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:  # wait until the worker node has delivered matches, then pull it out
        time.sleep(0.2)
        seen = read_when_free(db, "SELECT worker FROM matches")
        if seen is not None:
            progress.append(len(seen))
            if seen["worker"].str.startswith(on_worker).any():
                break
    cluster.remove_node(worker_node)
    removed_at = progress[-1]
    out, err = proc.communicate(timeout=300)
    if proc.returncode != 0 and RAY_DRIVER_ABORT in err:  # Ray's own abort (docs/RUNNING.md): the user runs the
        resumed = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)  # command again
        assert resumed.returncode == 0, resumed.stderr
        out = resumed.stdout
    assert proc.returncode == 0 or RAY_DRIVER_ABORT in err, err
    assert removed_at < total, "the node must be lost in the middle of the run"
    assert 0 < removed_at and len(set(progress)) > 1, "matches reached the database while the run went on"
    matches = store.query(db, "SELECT match_id, status, worker FROM matches")
    assert len(matches) == matches["match_id"].nunique() == total and (matches["status"] == "ok").all()
    nodes = {w.split(":")[1] for w in matches["worker"]}
    assert nodes == {cluster.head_node.node_id[:12], worker_node.node_id[:12]}
    turns = store.query(db, "SELECT match_id, turn, count(*) AS n FROM turns GROUP BY ALL HAVING n > 1")
    assert turns.empty, "a match played twice (its chunk re-run after the node loss) is written once"
    run = store.query(db, "SELECT status, n_done FROM runs").iloc[0]
    assert (run["status"], run["n_done"]) == ("ok", total)
    assert re.search(rf"{total} matches, (\d+) already done, (\d+) played, 0 errors", out), out
    if proc.returncode == 0:
        assert f"0 already done, {total} played" in out


def test_resume_and_the_response_cache_work_on_the_cluster(cluster, tmp_path, monkeypatch):
    monkeypatch.setenv("ARENA_CACHE", str(tmp_path / "cache.sqlite"))
    failing = {"on": True}

    def answer(req):
        return StubReply("", status=400) if failing["on"] and "Round 2 of" in str(req) else StubReply(
            '{"chosen_number": 10}')

    with StubServer(answer) as model:
        spec = parse_spec(guessing(model.url, "resume", repeats=6))
        first = asyncio.run(run_spec(spec, tmp_path / "a.duckdb", progress=False, address=cluster.address))
        assert first.errors == first.played == 6  # every match failed in round 2
        failing["on"] = False
        second = asyncio.run(run_spec(spec, tmp_path / "a.duckdb", progress=False, address=cluster.address))
        assert (second.skipped, second.played, second.errors) == (0, 6, 0)
        asked = len(model.requests)
        third = asyncio.run(run_spec(spec, tmp_path / "b.duckdb", progress=False, address=cluster.address))
        assert third.errors == 0 and len(model.requests) == asked, "a re-run is answered from the driver's cache"
    matches = store.query(tmp_path / "a.duckdb", "SELECT status FROM matches")
    assert len(matches) == 6 and (matches["status"] == "ok").all(), "the errored attempts were replaced"
    cached = store.query(tmp_path / "b.duckdb", "SELECT bool_and(cached) AS all_cached FROM turns WHERE seat >= 0")
    assert cached["all_cached"][0]


def test_cancel_keeps_the_finished_matches_and_a_rerun_finishes_the_run(cluster, tmp_path):
    # Half a second a call: a match lasts a second, so the run (8 waves of 2) is still going when 2 matches
    # are in the database (a flush a second) and the interrupt lands mid-run on a quiet machine too.
    with StubServer(lambda req: StubReply('{"chosen_number": 33}', delay=0.5)) as model:
        _cancel_then_rerun(guessing(model.url, "cancel", repeats=16, concurrency=2), cluster.address, tmp_path)


def _cancel_then_rerun(spec: dict, address: str, tmp_path: Path) -> None:
    cmd, db = engine_run(spec, tmp_path, address)
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        time.sleep(0.2)
        seen = read_when_free(db, "SELECT count(*) AS n FROM matches")
        if seen is not None and seen["n"][0] >= 2:
            break
    proc.send_signal(signal.SIGINT)  # what Ctrl-C and the dashboard's Cancel send
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130 and "interrupted" in err
    kept = store.query(db, "SELECT count(*) AS n FROM matches")["n"][0]
    assert store.query(db, "SELECT status FROM runs")["status"][0] == "cancelled" and 2 <= kept < 16
    again = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and f"{kept} already done" in again.stdout, again.stderr
    final = store.query(db, "SELECT count(DISTINCT match_id) AS ids, count(*) AS n FROM matches").iloc[0]
    assert final.tolist() == [16, 16]


def test_turn_level_progress_reaches_the_driver_while_matches_play_on_the_workers(cluster, tmp_path):
    """`--progress-file` (what the Launch page reads) counts the decisions made on the workers as they are made:
    it shows turns, tokens and dollars of a match the database has not seen end, and at the end it agrees with
    the turn log."""
    answer = StubReply('{"chosen_number": 33}', delay=0.5, prompt_tokens=40, completion_tokens=3)
    with StubServer(lambda req: answer) as model:
        spec = guessing(model.url, "live", repeats=2, concurrency=2, rounds=6)  # each match lasts >= 3 s
        spec["games"][0]["lineups"][0]["all"]["agent"] = "openai/gpt-4o-mini"  # a model with a price
        cmd, db = engine_run(spec, tmp_path, cluster.address)
        live = tmp_path / "progress.json"
        proc = subprocess.Popen(cmd + ["--progress-file", str(live)], cwd=ROOT, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        during = None
        deadline = time.monotonic() + 180
        while during is None and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
            figures = read_progress(live)
            if figures and figures["llm_turns"] > 0:
                finished = read_when_free(db, "SELECT count(*) AS n FROM matches")
                during = (figures, 0 if finished is None else finished["n"][0])
        out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert during is not None, "no turn-level progress while the run played"
    figures, finished = during
    assert finished == 0, "progress counted turns before any match reached the database"
    assert figures["tokens_in"] == 40 * figures["llm_turns"] and figures["status"] == "playing"
    assert figures["cost_usd"] > 0 and figures["unpriced_calls"] == 0
    final = read_progress(live)
    logged = store.query(db, """SELECT count(*) AS turns, sum(tokens_in) AS tokens_in, sum(tokens_out) AS tokens_out,
                                       sum(cost_usd) AS usd FROM turns WHERE seat IS NOT NULL""").iloc[0]
    assert final["status"] == "finished" and final["matches_started"] == 2
    assert (final["turns"], final["llm_turns"]) == (logged["turns"], logged["turns"]) == (24, 24)
    assert (final["tokens_in"], final["tokens_out"]) == (logged["tokens_in"], logged["tokens_out"])
    assert final["cost_usd"] == pytest.approx(logged["usd"]) and final["cost_usd"] > 0
    assert "finished: 24 turns in 2 matches" in out


def test_a_chunk_whose_worker_is_lost_plays_again_only_the_matches_it_had_not_delivered():
    """Ray's own retry of a generator task drops what the new attempt yields at positions already consumed; the
    matches of a chunk finish in another order each attempt, so a match never delivered could be dropped and the
    run wait forever. play_part starts a new task for exactly the matches not yet delivered."""
    from ray.exceptions import RayTaskError, WorkerCrashedError

    plans = parse_spec({"name": "lost", "repeats": 4, "games": [{"game": "guessing_game", "params": {
        "players": 2, "rounds": 1}, "lineups": [{"all": "bot:random"}]}]}).matches
    asked, delivered, notes = [], [], []

    def record(plan):
        return store.MatchRecord(match={"match_id": plan.match_id}, seats=[])

    async def value(item):
        if isinstance(item, Exception):
            raise item
        return item

    def start(part):
        asked.append([p.match_id for p in part])
        if len(asked) == 1:  # two matches and a note arrive, then the node goes
            items = [record(part[2]), ["a note"], record(part[0]), WorkerCrashedError()]
        else:  # the new attempt finishes its matches in another order
            items = [record(p) for p in reversed(part)]

        async def stream():
            for item in items:
                yield value(item)
        return stream()

    asyncio.run(ray_executor.play_part(start, plans, delivered.append, notes.append))
    ids = [p.match_id for p in plans]
    assert asked == [ids, [ids[1], ids[3]]]
    assert sorted(r.match["match_id"] for r in delivered) == sorted(ids) and notes == ["a note"]

    def failing(part):  # the chunk's own code failed: that is no lost worker, and it is not played again
        asked.append(part)

        async def stream():
            yield value(RayTaskError("play_chunk", "Traceback ...", ValueError("bad")))
        return stream()

    asked.clear()
    with pytest.raises(RayTaskError):
        asyncio.run(ray_executor.play_part(failing, plans, delivered.append, notes.append))
    assert len(asked) == 1


def test_a_cluster_runs_summaries_are_a_local_runs(cluster, tmp_path):
    """The driver alone writes, so the summaries it keeps (engine/store/summaries.py) are those of the same run played
    by the local executor, row for row, and a rebuild from the cluster run's log gives them again (issue 28 pt 5)."""
    from tests.test_summaries import GAMES, summary_rows

    raw = {"name": "summed", "seed": 3, "repeats": 3, "concurrency": 2, "games": GAMES}
    on_cluster, here = tmp_path / "cluster.duckdb", tmp_path / "local.duckdb"
    played = asyncio.run(run_spec(parse_spec(raw | {"executor": "ray"}), on_cluster, progress=False,
                                  address=cluster.address))
    assert played.errors == 0 and played.played > 10
    assert asyncio.run(run_spec(parse_spec(raw), here, progress=False)).played == played.played
    workers = store.query(on_cluster, "SELECT DISTINCT worker FROM matches")["worker"]
    assert workers.str.startswith("ray:").all(), "the matches were played on the cluster"
    assert store.summaries_in_step(on_cluster)
    pd.testing.assert_frame_equal(summary_rows(on_cluster), summary_rows(here), check_exact=False, rtol=1e-12)
    metrics = "SELECT * FROM metric_summary ORDER BY ALL"
    pd.testing.assert_frame_equal(store.query(on_cluster, metrics), store.query(here, metrics), check_exact=False,
                                  rtol=1e-12)
    store.rebuild_summaries(on_cluster)
    pd.testing.assert_frame_equal(summary_rows(on_cluster), summary_rows(here), check_exact=False, rtol=1e-12)
