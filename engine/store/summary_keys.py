"""What each summary table the store keeps sums by (its keys: the other columns are the sums) and how an agent is
told apart in them, shared by the modules that compute their rows (engine/store/summary_*.py) and the writer's merge
(engine/store/summaries.py). The papers' summaries declare their keys where they are registered
(engine/store/summary_registry.py)."""

from __future__ import annotations

# an agent: its name (`seats.agent_name`, what tells agents apart), its label and the settings its name shows
SIDE = ("agent_name", "label", "temperature", "prompt_version", "max_tokens")
KEYS = ("run_id", "game", "params", "preset", "several", "fallbacks", *SIDE)
PAIR_KEYS = ("run_id", "game", "params", "preset", "together", "kind", *(f"a_{c}" for c in SIDE),
             *(f"b_{c}" for c in SIDE), "pairs", "score_sum", "comparisons")
# each table and the columns it sums by (the others are the sums; a row whose first sum is 0 is dropped)
SUMMARIES = {"agent_summary": KEYS, "metric_summary": (*KEYS, "name"), "pairwise_summary": PAIR_KEYS,
             "agent_settings": SIDE, "run_totals": ("run_id",)}
# the summaries a date range sums, each kept a second time by the day its matches finished (`day`, the date of
# `matches.finished_at`, as `Selection.where` picks a range): a range of days is then a sum of rows, where computing
# every match's rows in it from the log is too slow for a page. The table without the day is the
# day's rows summed: a page that reads no range sums fewer rows.
BY_DAY = {table: f"{table}_by_day" for table in ("agent_summary", "metric_summary", "pairwise_summary")}
SUMMARIES |= {by_day: (*SUMMARIES[table], "day") for table, by_day in BY_DAY.items()}
# what tells `match_scores`' rows apart (one per match and agent: it is appended and deleted, never summed)
MATCH_SCORE_KEYS = ("match_id", "agent_name", "label", "prompt_version", "temperature", "strategy", "max_tokens")
