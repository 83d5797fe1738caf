"""How close the runner gets to ideal concurrency, and what that buys over the papers' one-call-at-a-time loops.

A stub provider, in a process of its own like a real one, answers every call after a fixed latency
(1 s). Matches of Guess 2/3 of the Average between LLM seats (4 seats x 16 rounds = 64 calls each,
16 matches at once) are played through the real path (spec, runner, LLM agent, litellm, HTTP,
DuckDB) until 1,024 calls are made with at most 64 in flight. The ideal wall time is
calls x latency / concurrency; the ratio must stay at or below 1.25. The same work run one call
at a time, as the papers' code runs it, would take about calls x latency: a sample of calls is
measured that way and extrapolated.

    .venv/bin/python bench/concurrency.py [--calls 1024] [--concurrency 64] [--latency 1.0] [--sample-calls 16]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ["ARENA_CACHE"] = "off"  # every call must reach the provider
os.environ.setdefault("OPENAI_API_KEY", "stub-key-for-the-benchmark")

from engine import store  # noqa: E402
from engine.agents.llm import load_litellm  # noqa: E402
from engine.play.runner import run_spec  # noqa: E402
from engine.play.spec import parse_spec  # noqa: E402
from engine.testing import StubReply, StubServer  # noqa: E402

MAX_RATIO = 1.25


def serve_stub(latency: float, conn: Connection) -> None:
    """The provider: sends its URL, then answers "count" with the calls served and the CPU seconds it spent
    since the last count."""
    reply = StubReply('{"chosen_number": 33}', delay=latency)
    with StubServer(lambda req: reply) as stub:
        conn.send(stub.url)
        cpu = time.process_time()
        while conn.recv() != "stop":
            conn.send((len(stub.requests), time.process_time() - cpu))
            stub.requests.clear()
            cpu = time.process_time()


@dataclass
class Measured:
    wall: float
    calls: int
    turns: int
    cpu: float = 0.0       # CPU seconds of this process (the runner and every model call) during the run
    stub_cpu: float = 0.0  # CPU seconds of the stub provider during the run (on the same cores, not the engine)
    worker_cpu: float | None = None  # CPU seconds of the worker processes (local or Ray's) that played the matches
    workers: str = "Ray's workers"

    def cpu_line(self) -> str:
        """CPU per call: unlike the wall time, a figure that a busy machine does not change."""
        here = f"{self.cpu / self.calls * 1000:.2f} ms in the engine's process"
        if self.worker_cpu is not None:
            here = f"{self.worker_cpu / self.calls * 1000:.2f} ms in {self.workers} + {here} (the driver)"
        return f"CPU per call: {here}, {self.stub_cpu / self.calls * 1000:.2f} ms in the stub provider"


async def play(model: str, url: str, matches: int, players: int, rounds: int, concurrency: int, db: Path,
               executor: str = "local", workers: int = 1) -> float:
    seat = {"agent": model, "api_base": url, "temperature": 1.0, "max_tokens": 16}
    raw = {"name": db.stem, "seed": 0, "repeats": matches, "concurrency": matches, "model_concurrency": concurrency,
           "games": [{"game": "guessing_game", "params": {"players": players, "rounds": rounds},
                      "lineups": [{"all": seat}]}]}
    start = time.perf_counter()
    summary = await run_spec(parse_spec(raw), db, progress=False, executor=executor, workers=workers)
    if summary.errors:
        raise SystemExit(f"{summary.errors} matches failed: {summary.error_messages[:3]}")
    return time.perf_counter() - start


async def warm_up(model: str, url: str, provider: Connection) -> None:
    """One call first: the provider SDK's lazy imports are start-up cost, like litellm's own import."""
    litellm = load_litellm()
    await litellm.acompletion(model=model, messages=[{"role": "user", "content": "hi"}], api_base=url)
    provider.send("count")
    provider.recv()


async def measure_run(args: argparse.Namespace, url: str, provider: Connection, db: Path, matches: int,
                      rounds: int, concurrency: int, executor: str = "local", workers: int = 1) -> Measured:
    """Play `matches` at once, `rounds` rounds each, at most `concurrency` calls in flight (over `workers`
    processes of the local executor); count the calls made."""
    cpu = time.process_time()
    wall = await play(args.model, url, matches, args.players, rounds, concurrency, db, executor, workers)
    cpu = time.process_time() - cpu
    provider.send("count")
    turns = store.query(db, "SELECT count(*) AS n FROM turns WHERE seat IS NOT NULL")["n"][0]
    calls, stub_cpu = provider.recv()
    return Measured(wall, calls, int(turns), cpu, stub_cpu)


async def measure(args: argparse.Namespace, url: str, provider: Connection, tmp: Path) -> tuple[Measured, Measured]:
    await warm_up(args.model, url, provider)
    parallel = max(1, args.concurrency // args.players)  # together they keep every slot busy
    concurrent = await measure_run(args, url, provider, tmp / "concurrent.duckdb", parallel,
                                   -(-args.calls // (parallel * args.players)), args.concurrency)
    sequential = await measure_run(args, url, provider, tmp / "sequential.duckdb", 1,
                                   max(1, args.sample_calls // args.players), 1)
    return concurrent, sequential


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1024)
    parser.add_argument("--concurrency", type=int, default=64, help="calls in flight")
    parser.add_argument("--latency", type=float, default=1.0, help="seconds the stub takes per call")
    parser.add_argument("--sample-calls", type=int, default=16, help="calls measured one at a time")
    parser.add_argument("--players", type=int, default=4, help="LLM seats per match (one call each per round)")
    parser.add_argument("--model", default="openai/bench-model", help="the litellm route to the stub")
    args = parser.parse_args()

    ours, theirs = multiprocessing.Pipe()
    provider = multiprocessing.get_context("spawn").Process(target=serve_stub, args=(args.latency, theirs))
    provider.start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            run, sample = asyncio.run(measure(args, ours.recv(), ours, Path(tmp)))
    finally:
        ours.send("stop")
        provider.join(timeout=10)

    ideal = run.calls * args.latency / args.concurrency
    ratio = run.wall / ideal
    sequential = sample.wall / sample.calls * run.calls
    print(f"calls made:     {run.calls} to {args.model} ({run.turns} turns recorded)")
    print(f"concurrency:    {args.concurrency} calls in flight, {args.latency:g} s per call")
    print(f"wall time:      {run.wall:.2f} s")
    print(f"ideal:          {ideal:.2f} s  (calls x latency / concurrency)")
    print(f"ratio:          {ratio:.3f}  (must be <= {MAX_RATIO})")
    print(run.cpu_line())
    print(f"one at a time:  {sequential:.0f} s  (extrapolated: {sample.calls} calls measured one at a time took "
          f"{sample.wall:.2f} s, as the papers' code runs them)")
    print(f"speed-up:       {sequential / run.wall:.1f}x")
    return 0 if ratio <= MAX_RATIO and run.calls == run.turns >= args.calls else 1


if __name__ == "__main__":
    sys.exit(main())
