"""How close the runner gets to ideal concurrency, and what that buys over the papers' one-call-at-a-time loops.

A stub provider answers every call after a fixed latency (1 s). Matches of Guess 2/3 of the Average
(2 LLM seats x 8 rounds = 16 calls each) are played through the real path (runner, LLM agent,
litellm, HTTP) until 1,024 calls are made with at most 64 in flight. The ideal wall time is
calls x latency / concurrency; the ratio must stay at or below 1.25. The same work run one call at a
time would take calls x latency: a sample of matches is measured that way and extrapolated.

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
from multiprocessing.connection import Connection
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ["ARENA_CACHE"] = "off"  # every call must reach the provider
os.environ.setdefault("OPENAI_API_KEY", "stub-key-for-the-benchmark")

from engine import store  # noqa: E402
from engine.agents.llm import load_litellm  # noqa: E402
from engine.runner import run_spec  # noqa: E402
from engine.spec import parse_spec  # noqa: E402
from engine.testing import StubReply, StubServer  # noqa: E402

PLAYERS, ROUNDS = 2, 8
CALLS_PER_MATCH = PLAYERS * ROUNDS
MAX_RATIO = 1.25


def serve_stub(latency: float, conn: Connection) -> None:
    """The provider, in a process of its own as a real one would be: sends its URL, then on any message
    the number of calls it has answered, until told to stop."""
    reply = StubReply('{"chosen_number": 33}', delay=latency)
    with StubServer(lambda req: reply) as stub:
        conn.send(stub.url)
        while conn.recv() != "stop":
            conn.send(len(stub.requests))
            stub.requests.clear()


def spec(url: str, matches: int, concurrency: int, name: str) -> dict:
    seat = {"agent": "openai/bench-model", "api_base": url, "temperature": 1.0, "max_tokens": 16}
    return {"name": name, "seed": 0, "repeats": matches,
            "concurrency": matches, "model_concurrency": concurrency,
            "games": [{"game": "guessing_game", "params": {"players": PLAYERS, "rounds": ROUNDS},
                       "lineups": [{"all": seat}]}]}


def play(url: str, matches: int, concurrency: int, name: str, db: Path) -> float:
    start = time.perf_counter()
    summary = asyncio.run(run_spec(parse_spec(spec(url, matches, concurrency, name)), db, progress=False))
    wall = time.perf_counter() - start
    if summary.errors:
        raise SystemExit(f"{summary.errors} matches failed: {summary.error_messages[:3]}")
    return wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1024)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--latency", type=float, default=1.0, help="seconds the stub takes per call")
    parser.add_argument("--sample-calls", type=int, default=16, help="calls measured one at a time")
    args = parser.parse_args()
    matches = -(-args.calls // CALLS_PER_MATCH)
    calls = matches * CALLS_PER_MATCH
    sample_matches = max(1, args.sample_calls // CALLS_PER_MATCH)

    ours, theirs = multiprocessing.Pipe()
    provider = multiprocessing.get_context("spawn").Process(target=serve_stub, args=(args.latency, theirs))
    provider.start()
    url = ours.recv()
    load_litellm()  # its import is start-up cost, not part of the run
    try:
        with tempfile.TemporaryDirectory() as tmp:
            db = Path(tmp) / "concurrent.duckdb"
            wall = play(url, matches, args.concurrency, "bench-concurrent", db)
            ours.send("count")
            made = ours.recv()
            n_turns = store.query(db, "SELECT count(*) AS n FROM turns WHERE seat IS NOT NULL")["n"][0]
            sample_wall = play(url, sample_matches, 1, "bench-sequential", Path(tmp) / "sequential.duckdb")
            ours.send("count")
            sample_calls = ours.recv()
    finally:
        ours.send("stop")
        provider.join(timeout=10)

    ideal = calls * args.latency / args.concurrency
    sequential = sample_wall / sample_calls * calls
    ratio = wall / ideal
    print(f"calls made:        {made} ({matches} matches x {CALLS_PER_MATCH}; {n_turns} turns recorded)")
    print(f"concurrency:       {args.concurrency} calls in flight, {args.latency:g} s per call")
    print(f"wall time:         {wall:.2f} s")
    print(f"ideal:             {ideal:.2f} s  (calls x latency / concurrency)")
    print(f"ratio:             {ratio:.3f}  (must be <= {MAX_RATIO})")
    print(f"one at a time:     {sequential:.1f} s  (extrapolated from {sample_calls} calls measured one at a "
          f"time in {sample_wall:.2f} s, as the papers' code runs them)")
    print(f"speed-up:          {sequential / wall:.1f}x")
    return 0 if ratio <= MAX_RATIO and made == calls == n_turns else 1


if __name__ == "__main__":
    sys.exit(main())
