"""The local executor over worker processes (engine/play/local_workers.py): every match played once by the workers
and written by the driver, every decision reported, the response cache and the driver's environment used in
the workers, secrets redacted there too; a killed driver leaves no worker calling the provider, and the run
resumes."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from engine import store
from engine.play import playing
from engine.play.playing import this_worker
from engine.play.runner import default_workers, run_spec
from engine.play.spec import parse_spec
from engine.testing import StubReply

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent


def guessing(url: str, name: str, repeats: int, rounds: int = 2, model: str = "openai/worker-model") -> dict:
    seat = {"agent": model, "api_base": url, "max_tokens": 8}
    return {"name": name, "seed": 3, "repeats": repeats, "concurrency": 4, "games": [{
        # the stub's default answer wraps its JSON in prose: the arena's lenient reading finds it
        "game": "guessing_game", "params": {"players": 2, "rounds": rounds, "reading": "lenient"},
        "lineups": [{"all": seat}]}]}


def decisions(db) -> int:
    return int(store.query(db, "SELECT count(*) AS n FROM turns WHERE seat IS NOT NULL")["n"][0])


def test_two_workers_play_every_match_once_and_the_driver_hears_every_turn(stub, db_path):
    notes = []
    summary = asyncio.run(run_spec(parse_spec(guessing(stub.url, "spread", repeats=6)), db_path, progress=False,
                                   workers=2, on_turn=notes.append))
    assert (summary.played, summary.errors) == (6, 0), summary.error_messages
    matches = store.query(db_path, "SELECT match_id, status, worker FROM matches")
    assert len(matches) == matches["match_id"].nunique() == 6 and set(matches["status"]) == {"ok"}
    workers = set(matches["worker"])
    assert len(workers) == 2 and this_worker() not in workers, "played in two processes other than this one"
    assert len(notes) == decisions(db_path) == len(stub.requests) == 6 * 2 * 2


def test_workers_answer_from_the_cache_and_redact_with_the_drivers_environment(stub, db_path, tmp_path, monkeypatch):
    """The environment is the driver's at the run (a worker is forked from a server that may have started before
    it changed): the cache it names, the key it holds, which never reaches the database."""
    monkeypatch.setenv("ARENA_CACHE", str(tmp_path / "cache.sqlite"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-worker-secret-0123456789")
    stub.responder = lambda req: StubReply('{"chosen_number": 20, "note": "sk-worker-secret-0123456789"}')
    first = asyncio.run(run_spec(parse_spec(guessing(stub.url, "cached", repeats=4)), db_path, progress=False,
                                 workers=2))
    assert first.errors == 0, first.error_messages
    asked = len(stub.requests)
    assert asked == 4 * 2 * 2
    again = asyncio.run(run_spec(parse_spec(guessing(stub.url, "cached-again", repeats=4)), db_path, progress=False,
                                 workers=2))
    assert again.errors == 0 and len(stub.requests) == asked, "the second run answered from the cache"
    turns = store.query(db_path, "SELECT response, cached FROM turns WHERE seat IS NOT NULL")
    assert turns["response"].str.contains("sk-worker-secret").sum() == 0
    assert turns["response"].str.contains(r"\*\*\*").all()
    assert turns["cached"].sum() == 4 * 2 * 2


def test_default_workers_one_per_core_for_models_over_the_network_else_this_process():
    def spec(agent: str):
        return parse_spec({"name": "w", "games": [{"game": "guessing_game", "params": {"players": 2},
                                                   "lineups": [[agent, "bot:random"]]}]})

    assert default_workers(spec("openai/gpt-4o-mini")) == os.cpu_count()
    assert default_workers(spec("bot:random")) == 1
    assert default_workers(spec("local/smollm2")) == 1


@pytest.mark.parametrize(("option", "said"), [
    (["--workers", "0"], "--workers: must be at least 1"),
    (["--workers", "100000"], "--workers: at most "),  # an attacker's report: 100,000 processes were attempted
    (["--concurrency", "99999999"], "--concurrency: at most 10,000")])
def test_workers_and_concurrency_are_bounded_before_anything_starts(tmp_path, option, said):
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(guessing("http://127.0.0.1:9/v1", "zero", repeats=1)))
    done = subprocess.run([sys.executable, "-m", "engine", "run", str(path), "--db", str(tmp_path / "r.duckdb"),
                           *option], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and said in done.stderr and not (tmp_path / "r.duckdb").exists(), done.stderr


def wait_for(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.1)


def test_a_killed_driver_leaves_no_worker_calling_and_the_run_resumes(stub, tmp_path):
    stub.responder = lambda req: StubReply('{"chosen_number": 20}', delay=0.2)
    path, db = tmp_path / "spec.yaml", tmp_path / "results.duckdb"
    path.write_text(yaml.safe_dump(guessing(stub.url, "killed", repeats=40, rounds=4)))
    cmd = [sys.executable, "-m", "engine", "run", str(path), "--db", str(db), "--quiet", "--workers", "2"]
    driver = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: len(stub.requests) >= 20, 180, "the workers' first calls")
    finally:
        os.kill(driver.pid, signal.SIGKILL)
        driver.wait()

    def calls_stopped() -> bool:
        before = len(stub.requests)
        time.sleep(1.0)  # several calls' time: a live worker keeps 4 in flight, 0.2 s each
        return len(stub.requests) == before

    wait_for(calls_stopped, 60, "the workers to stop calling after their driver was killed")
    assert len(stub.requests) < 40 * 2 * 4, "killed before the end"
    again = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    matches = store.query(db, "SELECT match_id, status FROM matches")
    assert len(matches) == matches["match_id"].nunique() == 40 and set(matches["status"]) == {"ok"}


def test_model_matches_start_spread_over_the_ramp_and_bot_matches_at_once(stub, db_path):
    """Started together, a run's model calls would come back together every turn (see playing.play_here)."""
    arrivals = []
    # each match lasts longer than the ramp, so every one of the 8 players starts its own
    stub.responder = lambda req: arrivals.append(time.monotonic()) or StubReply('{"chosen_number": 5}',
                                                                               delay=playing.RAMP_S + 0.2)
    seat = {"agent": "openai/stub-model", "api_base": stub.url}
    raw = {"name": "ramp", "seed": 1, "repeats": 8, "concurrency": 8, "games": [
        {"game": "guessing_game", "params": {"players": 2, "rounds": 1}, "lineups": [{"all": seat}]}]}
    assert asyncio.run(run_spec(parse_spec(raw), db_path, progress=False)).errors == 0
    assert len(arrivals) == 16
    assert max(arrivals) - min(arrivals) >= playing.RAMP_S * 3 / 4  # the last of 8 starts 7/8 of the way in (all
    # at once: within ~0.05 s)

    plans = parse_spec({"name": "bots", "repeats": 8, "games": [
        {"game": "tictactoe", "lineups": [{"all": "bot:random"}]}]}).matches
    assert not playing.calls_a_remote_model(plans)  # bots (and the embedded model) do not wait


def test_the_fork_servers_preload_leaves_a_workers_first_call_nothing_slow_to_import():
    """A worker forked after `engine.play.worker_preload` has its own code and litellm's first-call imports in memory:
    none of the match loop, the store, litellm's proxy types or the tokenizer is imported by the first call. Fails when
    a newer litellm moves what its first call imports (each worker would spend ~0.2 s on it again)."""
    probe = """
import asyncio, sys
import engine.play.worker_preload
from engine.agents.llm import load_litellm
from engine.testing import StubReply, StubServer
before = set(sys.modules)
with StubServer(lambda request: StubReply("ok")) as stub:
    asyncio.run(load_litellm().acompletion(model="openai/first", api_base=stub.url, api_key="k",
                                           messages=[{"role": "user", "content": "first?"}]))
slow = ("engine.", "litellm.proxy", "tiktoken", "pandas", "duckdb")
print(sorted(m for m in set(sys.modules) - before if m.startswith(slow) and m != "engine.testing"))
"""
    out = subprocess.run([sys.executable, "-c", probe], cwd=Path(playing.__file__).parents[2], capture_output=True,
                         text=True, timeout=120, env=os.environ | {"LITELLM_LOCAL_MODEL_COST_MAP": "True"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"
