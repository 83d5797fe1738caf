"""bench/dashboard.py's own measures: each call's peak memory is its own (the high-water mark reset before it) while
the process's peak, which the verdict compares to the budget, is never lost by a reset; and the calls it makes only
on request, and the date ranges it times among the pages' calls, run on the bench's rows."""

from __future__ import annotations

from bench import dashboard


def test_a_calls_peak_is_its_own_and_the_processs_peak_survives_the_reset(capsys):
    held = bytearray(64 * 2**20)  # 64 MB touched, then let go: the process's peak from now on
    held[::4096] = b"x" * len(held[::4096])
    del held
    peak = dashboard.peak_rss_mb()
    dashboard.run_timed("a small call", lambda: sum(range(1000)), 1, 150.0)
    grown = float(capsys.readouterr().out.split("peak +")[1].split("MB")[0])
    assert grown < 16  # the 64 MB held before are not this call's
    assert dashboard.peak_rss_mb() >= peak  # the reset kept it


def test_the_calls_made_on_request_and_a_date_ranges_run_on_the_benchs_rows(tmp_path):
    db = tmp_path / "bench.duckdb"
    dashboard.fill(db, 320, 10)
    asked = {name: fn() for name, fn in dashboard.on_request(db)}
    assert len(asked["TrueSkill one run (replayed from scratch)"]) > 0
    timed = dict(dashboard.page_queries(db)["leaderboard"])
    ranges = {name: timed[name]() for name in ("agent_figures of a day", "agent_figures of a week",
                                               "agent_figures from the first day on", "Bradley-Terry of a week")}
    assert len(ranges["agent_figures of a week"]) > 0 and len(ranges["Bradley-Terry of a week"]) > 0
    every_day = ranges["agent_figures from the first day on"]
    assert 0 < ranges["agent_figures of a day"]["matches"].sum() < every_day["matches"].sum()
