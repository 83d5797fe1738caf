"""Are the statistics libraries fast enough for the dashboard? Times the Wilson interval (statsmodels, which the
engine calls) and our Holm correction against statsmodels' multipletests. The robustness page runs one Holm
correction per factor and game: with 4 factors and 16 games, 64 a view, against a budget of 300 ms for the
page's call (bench/dashboard.py).

    .venv/bin/python bench/stats.py [--calls 2000]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from statsmodels.stats.multitest import multipletests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from engine.score import stats  # noqa: E402

PAGE_CORRECTIONS = 4 * 16  # factors x games: the Holm corrections of one robustness view


def per_call_ms(fn: Callable[[int], object], calls: int) -> float:
    start = time.perf_counter()
    for i in range(calls):
        fn(i)
    return (time.perf_counter() - start) * 1000 / calls


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=2000)
    calls = parser.parse_args().calls
    rng = np.random.default_rng(0)
    wins, n = rng.integers(0, 50, (calls, 20)), np.full((calls, 20), 50)
    wilson = per_call_ms(lambda i: stats.wilson_interval(wins[i], n[i]), calls)
    print(f"Wilson (statsmodels, 20 agents a call) {wilson:.3f} ms/call")
    p = rng.uniform(0, 0.1, (calls, 8))
    ballast = [{"row": i, "cells": [str(i)] * 20} for i in range(200_000)]  # a dashboard process's live objects
    mine = per_call_ms(lambda i: stats.holm(p[i]), calls)
    theirs = per_call_ms(lambda i: multipletests(p[i], method="holm"), min(calls, 20))
    print(f"Holm (8 p-values) ours {mine:.3f} ms/call, statsmodels {theirs:.1f} ms/call (a gc.collect() each, "
          f"{len(ballast):,} objects alive): statsmodels x{theirs / mine:.0f}; a robustness view's "
          f"{PAGE_CORRECTIONS} corrections: ours {mine * PAGE_CORRECTIONS:.1f} ms, "
          f"statsmodels {theirs * PAGE_CORRECTIONS / 1000:.1f} s")


if __name__ == "__main__":
    main()
