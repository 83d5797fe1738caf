"""The summaries the papers keep, registered with the store as their modules are imported
(engine/store/summary_registry.py): the social boards' seats (Who is Spy, MAgIC) and γ-Bench's table and per-round
curves. The entry points that write or serve (the command line, the dashboard) import this module, so a process
they start keeps every paper's summary; a process that has not registered a summary a database keeps may not write
to it."""

from engine.store.summary_gamabench import GAMABENCH_SUMMARY, STEP_SUMMARY
from engine.store.summary_seats import SEAT_SUMMARY

PAPER_SUMMARIES = (SEAT_SUMMARY, GAMABENCH_SUMMARY, STEP_SUMMARY)
