"""What the papers keep in every database, registered with the store (engine/store/summary_registry.py): their
summaries (the social boards' seats of Who is Spy and MAgIC, γ-Bench's table and per-round curves), registered as
their modules are imported, and their published rows (engine/papers/published.py). The entry points that write or
serve (the command line, the dashboard) import this module, so a process they start keeps every paper's summary; a
process that has not registered a summary a database keeps may not write to it."""

from engine.papers import published
from engine.papers.gamabench.summary import GAMABENCH_SUMMARY, STEP_SUMMARY
from engine.papers.seat_summary import SEAT_SUMMARY
from engine.store.summary_registry import register_reference_rows

PAPER_SUMMARIES = (SEAT_SUMMARY, GAMABENCH_SUMMARY, STEP_SUMMARY)
register_reference_rows(published.fill)
