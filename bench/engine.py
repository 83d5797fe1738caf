"""The engine's own speed: bots-only throughput, whether a write's cost grows with the database, the overhead
against a slow model at high concurrency, and a long run's memory.

1. `python -m engine run` plays 10,000 random-vs-random TicTacToe matches into a fresh database; the wall
   time includes the interpreter's start-up and imports. Prints decisions/s and matches/s. Target: <= 40 s.
2. The next 10,000 (another run) into the same database. Target: within 1.3x of the first.
3. A stub provider (a process of its own) answers every call after 1 s; matches of Guess 2/3 of the Average
   between LLM seats keep 256 calls in flight through the real path (spec, runner, LLM agent, litellm,
   HTTP, DuckDB), played by the local executor (its worker processes, one per core, as `engine run` does;
   this process writing) and then by a local Ray cluster (a worker per core, the driver writing), each
   warmed up by a short run first. Prints wall / ideal, ideal = calls x latency / concurrency. Target:
   <= 1.10. Also prints the CPU seconds per call (process CPU / calls) of this process, of the workers and
   of the stub: figures a busy machine does not change, unlike the ratio. 256 calls a second on 2 cores
   leave ~7.8 ms of CPU per call for everything (engine, litellm, HTTP, the database writer and the stub).
4. `python -m engine run` plays 100,000 bot matches of Guess 2/3 of the Average (3 players, 2 rounds: 5 to 10
   minutes here) into a fresh database; prints the process's peak RSS. A run's memory is bounded by its
   concurrency, not its length (finished matches are written as they come, and the run waits for its writer).
   Target: <= 600 MB.

    .venv/bin/python bench/engine.py [--matches 10000] [--calls 4096] [--concurrency 256] [--latency 1.0]
                                     [--workers CORES] [--executors local,ray] [--memory-matches 100000]

`--matches 0 --memory-matches 0 --executors local --workers 1` keeps only the overhead run in this process: the
CPU per call a change to litellm is measured by, with and without it (docs/RUNNING.md).
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # before bench/ (this script's folder), whose engine.py is this file
os.environ["ARENA_CACHE"] = "off"  # every call must reach the provider
os.environ.setdefault("OPENAI_API_KEY", "stub-key-for-the-benchmark")

from concurrency import Measured, measure_run, serve_stub, warm_up  # noqa: E402

from engine import store  # noqa: E402

MAX_FIRST_S = 40.0
MAX_GROWTH = 1.3
MAX_OVERHEAD = 1.10
MAX_PEAK_MB = 600


def bots_run(db: Path, tmp: Path, seed: int, matches: int) -> tuple[float, int]:
    """Wall seconds of one `python -m engine run` of `matches` bot matches, and the decisions it recorded."""
    spec = {"name": f"bench-bots-{seed}", "seed": seed, "repeats": matches, "concurrency": 64,
            "games": [{"game": "tictactoe", "lineups": [{"all": "bot:random"}]}]}
    path = tmp / f"bots-{seed}.yaml"
    path.write_text(yaml.safe_dump(spec))
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "engine", "run", str(path), "--db", str(db), "--quiet"], cwd=ROOT,
                   check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    run_id = store.query(db, "SELECT run_id FROM runs WHERE name = ?", [spec["name"]])["run_id"][0]
    decisions = store.query(db, """SELECT count(*) AS n FROM turns JOIN matches USING (match_id)
                                   WHERE run_id = ? AND seat IS NOT NULL""", [run_id])["n"][0]
    return wall, int(decisions)


def long_run_peak(db: Path, tmp: Path, matches: int) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one `python -m engine run` of `matches` guessing-game bot matches."""
    per_lineup = min(matches, 10_000)  # a spec's repeats are at most 10,000: the rest come from more lineups
    lineups = [{"all": "bot:random"}] * -(-matches // per_lineup)
    spec = {"name": "bench-memory", "seed": 0, "repeats": per_lineup, "concurrency": 64, "games": [
        {"game": "guessing_game", "params": {"players": 3, "rounds": 2}, "lineups": lineups}]}
    path = tmp / "memory.yaml"
    path.write_text(yaml.safe_dump(spec))
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "engine", "run", str(path), "--db", str(db), "--quiet"], cwd=ROOT,
                             stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)  # this child's own peak, not the largest of every child so far
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"the long run failed ({os.waitstatus_to_exitcode(status)})")
    return time.perf_counter() - start, usage.ru_maxrss / 1024


def worker_pids(db: Path) -> set[int]:
    """The Ray worker processes (all on this machine) that played the matches in `db` (`matches.worker`)."""
    workers = store.query(db, "SELECT DISTINCT worker FROM matches")["worker"]
    return {int(w.rsplit(":", 1)[1]) for w in workers}


def process_cpu(pid: int, children: bool = False) -> float:
    """CPU seconds a live process has used so far (user + system, from /proc), or its children that ended."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    first = 13 if children else 11
    return (int(fields[first]) + int(fields[first + 1])) / os.sysconf("SC_CLK_TCK")


def local_workers_cpu() -> float:
    """CPU seconds of the local executor's worker processes that have ended: children of the fork server."""
    from multiprocessing import forkserver

    time.sleep(0.5)  # the server collects its ended children on SIGCHLD
    return process_cpu(forkserver._forkserver._forkserver_pid, children=True)


def overhead(args: argparse.Namespace, tmp: Path, executor: str) -> Measured:
    """The wall time, calls and CPU of LLM matches keeping `concurrency` calls to a 1 s stub in flight, played by the
    local executor's worker processes (`local`) or by a local Ray cluster's workers (`ray`, one per core); both
    warmed up before the clock (the fork server's litellm import, Ray's start)."""
    ours, theirs = multiprocessing.Pipe()
    provider = multiprocessing.get_context("spawn").Process(target=serve_stub, args=(args.latency, theirs))
    provider.start()
    parallel = max(1, args.concurrency // args.players)  # together they keep every slot busy
    rounds = -(-args.calls // (parallel * args.players))

    async def measured():
        url = ours.recv()
        await warm_up(args.model, url, ours)
        if executor == "ray":
            from engine.play.ray_executor import connect

            connect(None)
        warm = tmp / f"warm-{executor}.duckdb"
        await measure_run(args, url, ours, warm, parallel, 1, args.concurrency, executor, args.workers)
        if executor == "ray":
            before = {pid: process_cpu(pid) for pid in worker_pids(warm)}
        elif args.workers > 1:
            before_local = local_workers_cpu()
        db = tmp / f"overhead-{executor}.duckdb"
        run = await measure_run(args, url, ours, db, parallel, rounds, args.concurrency, executor, args.workers)
        if executor == "ray":
            run.worker_cpu = sum(process_cpu(pid) - before.get(pid, 0.0) for pid in worker_pids(db))
        elif args.workers > 1:
            run.worker_cpu = local_workers_cpu() - before_local
            run.workers = f"{args.workers} local worker processes"
        return run

    try:
        run = asyncio.run(measured())
    finally:
        ours.send("stop")
        provider.join(timeout=10)
        if executor == "ray":
            import ray

            ray.shutdown()
    return run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=10_000, help="bot matches per run (0: skip the bots runs)")
    parser.add_argument("--calls", type=int, default=4096, help="model calls of the overhead run")
    parser.add_argument("--concurrency", type=int, default=256, help="model calls in flight")
    parser.add_argument("--latency", type=float, default=1.0, help="seconds the stub takes per call")
    parser.add_argument("--players", type=int, default=4, help="LLM seats per match")
    parser.add_argument("--model", default="openai/bench-model")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help="processes of the local executor (default: one per core, as engine run)")
    parser.add_argument("--executors", default="local,ray", type=lambda text: text.split(","),
                        help="the executors of the overhead runs, comma-separated (local, ray)")
    parser.add_argument("--memory-matches", type=int, default=100_000, help="matches of the long run (0: skip it)")
    args = parser.parse_args()
    if not args.executors or set(args.executors) - {"local", "ray"}:
        parser.error(f"--executors takes local, ray or both, not {','.join(args.executors)}")

    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        db = tmp / "bots.duckdb"
        if args.matches:
            first, first_decisions = bots_run(db, tmp, 0, args.matches)
            second, second_decisions = bots_run(db, tmp, 1, args.matches)
        overheads = {executor: overhead(args, tmp, executor) for executor in args.executors}
        long_wall, peak_mb = long_run_peak(tmp / "memory.duckdb", tmp, args.memory_matches) if args.memory_matches \
            else (0.0, 0.0)

    if args.matches:
        growth = second / first
        print(f"bots, first {args.matches:,} TicTacToe matches (fresh database, incl. start-up):  {first:.1f} s  "
              f"(must be <= {MAX_FIRST_S:g})")
        print(f"  {first_decisions / first:,.0f} decisions/s, {args.matches / first:,.0f} matches/s")
        print(f"bots, next {args.matches:,} into the same database:  {second:.1f} s  "
              f"({growth:.2f}x the first, must be <= {MAX_GROWTH})")
        print(f"  {second_decisions / second:,.0f} decisions/s, {args.matches / second:,.0f} matches/s")
    ratios = {}
    for executor, run in overheads.items():
        ideal = run.calls * args.latency / args.concurrency
        ratios[executor] = run.wall / ideal
        print(f"overhead, {executor} executor: {run.calls} calls to a {args.latency:g} s model, {args.concurrency} in "
              f"flight: {run.wall:.2f} s against an ideal {ideal:.2f} s, ratio {run.wall / ideal:.3f} "
              f"(must be <= {MAX_OVERHEAD})")
        print(f"  {run.cpu_line()}")
    if args.memory_matches:
        print(f"memory, {args.memory_matches:,} guessing-game bot matches in one run: peak RSS {peak_mb:.0f} MB "
              f"(must be <= {MAX_PEAK_MB}), {long_wall:.0f} s")
    ok = ((not args.matches or (first <= MAX_FIRST_S and growth <= MAX_GROWTH)) and min(ratios.values()) <= MAX_OVERHEAD
          and peak_mb <= MAX_PEAK_MB)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
