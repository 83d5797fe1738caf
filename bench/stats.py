"""Are the statistics libraries fast enough for the dashboard? Times, on the same random samples, our t-tests
(t by formula, the p from scipy's t distribution) against scipy.stats.ttest_ind / ttest_rel, our Holm
correction against statsmodels' multipletests, and the Wilson interval (statsmodels, which the engine
calls). The robustness page runs one t-test per level of each factor and game, and one Holm correction per
factor and game: with 4 factors, 16 games and a few levels each, a few hundred tests a view, against a
budget of 300 ms for the page's call (bench/dashboard.py).

    .venv/bin/python bench/stats.py [--calls 2000]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from engine.score import stats  # noqa: E402

PAGE_TESTS = 4 * 16 * 4  # factors x games x levels: the t-tests of one robustness view at most


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
    a, b = rng.normal(50, 10, (calls, 30)), rng.normal(55, 10, (calls, 30))
    pairs = {
        "Welch t": (lambda i: stats.welch_test(a[i], b[i]), lambda i: sps.ttest_ind(a[i], b[i], equal_var=False)),
        "paired t": (lambda i: stats.paired_test(a[i], b[i]), lambda i: sps.ttest_rel(a[i], b[i])),
    }
    for name, (ours, scipys) in pairs.items():
        mine, theirs = per_call_ms(ours, calls), per_call_ms(scipys, calls)
        print(f"{name:9s} ours {mine:.3f} ms/call, scipy {theirs:.3f} ms/call: scipy x{theirs / mine:.1f}; "
              f"a robustness view's {PAGE_TESTS} tests: ours {mine * PAGE_TESTS:.0f} ms, "
              f"scipy {theirs * PAGE_TESTS:.0f} ms")
    wins, n = rng.integers(0, 50, (calls, 20)), np.full((calls, 20), 50)
    wilson = per_call_ms(lambda i: stats.wilson_interval(wins[i], n[i]), calls)
    print(f"Wilson (statsmodels, 20 agents a call) {wilson:.3f} ms/call")
    p = rng.uniform(0, 0.1, (calls, 8))
    ballast = [{"row": i, "cells": [str(i)] * 20} for i in range(200_000)]  # a dashboard process's live objects
    mine = per_call_ms(lambda i: stats.holm(p[i]), calls)
    theirs = per_call_ms(lambda i: multipletests(p[i], method="holm"), min(calls, 20))
    print(f"Holm (8 p-values) ours {mine:.3f} ms/call, statsmodels {theirs:.1f} ms/call (a gc.collect() each, "
          f"{len(ballast):,} objects alive): statsmodels x{theirs / mine:.0f}")


if __name__ == "__main__":
    main()
