"""What a dashboard process imports holds memory for as long as it serves (bench/dashboard.py: Python held ~420 MB
once every page was drawn): no page loads scipy.stats or statsmodels (45 MB for a Wilson interval and two
quantiles), and the Wilson interval that replaced statsmodels' is its formula to the last bits."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

from bench.dashboard import fill
from engine.score import stats

ROOT = Path(__file__).resolve().parent.parent
PAGES = ("overview", "launch", "leaderboard", "abilities", "games", "robustness", "transcripts", "glossary")
SERVE_EVERY_PAGE = f"""
import os, sys
sys.path.insert(0, {str(ROOT)!r})
os.environ["ARENA_DB"] = sys.argv[1]
from streamlit.testing.v1 import AppTest
from tests.page_run import serve_like_the_dashboard
serve_like_the_dashboard()
app = AppTest.from_file({str(ROOT / "app.py")!r}, default_timeout=300).run()
for page in {PAGES!r}:
    app.switch_page(f"pages/{{page}}.py").run()
    assert not app.exception, (page, app.exception)
print(sorted(m for m in ("scipy.stats", "statsmodels") if m in sys.modules))
"""


def test_no_page_imports_scipy_stats_or_statsmodels(tmp_path):
    db = tmp_path / "bench.duckdb"
    fill(db, 320, 10)  # every game the pages draw
    served = subprocess.run([sys.executable, "-c", SERVE_EVERY_PAGE, str(db)], capture_output=True, text=True,
                            timeout=600, cwd=ROOT)
    assert served.returncode == 0, served.stderr[-2000:]
    assert served.stdout.strip().splitlines()[-1] == "[]"


def test_the_wilson_interval_is_statsmodels_formula():
    from statsmodels.stats.proportion import proportion_confint

    rng = np.random.default_rng(3)
    n = rng.integers(0, 60, 2000).astype(float)
    wins = np.minimum(np.floor(rng.random(2000) * (n + 1)) + np.where(rng.random(2000) < 0.2, 0.5, 0.0), n)
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = proportion_confint(wins, n, alpha=stats.ALPHA, method="wilson")
    for ours, theirs in zip(stats.wilson_interval(wins, n), expected, strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-15)  # NaN where n = 0, in both
    assert stats.Z95 == 1.959963984540054
