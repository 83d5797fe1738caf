"""`python -m engine run SPEC --until-separated [--budget-usd X | --budget-matches N]`: the spec's agents and
two-seat games played as an adaptive, paired study (engine/study/certainty.py) in batches of deals, until every pair of
adjacent ranks is separated, its looks are spent or the budget ends.

A deal is two matches on one seed, the second with the seats reversed (`matches.mirror`, `matches.deal`); a batch's
matches carry its look's number in `matches.repeat`. The study is read back from the database before each batch
(its complete deals, its looks, its dollars and matches), so a stopped study continues where it was: the same
command again.
"""

from __future__ import annotations

import json
from pathlib import Path

from engine.play.runner import run_spec
from engine.play.spec import MatchPlan, RunSpec, _hash_of
from engine.study import certainty
from engine.study.certainty_reads import Frame, deal_costs, frame_of, read_study


def batch_plans(spec: RunSpec, frame: Frame, study: certainty.Study, batch: list[certainty.Pairing]
                ) -> list[MatchPlan]:
    """The matches of a batch: per deal, the lower-numbered agent in seat 1 then its mirror, on the pairing's next
    seed (its deals so far, counting those of the batch before it), the look's number as their `repeat`."""
    plans, planned = [], {}
    for pairing in batch:
        a, b, g = pairing
        seed = study.deals.count(pairing) + planned.get(pairing, 0)
        planned[pairing] = planned.get(pairing, 0) + 1
        game, preset, params = frame.games[g]
        deal = _hash_of(json.dumps([spec.run_id, game, preset, params, frame.names[a], frame.names[b], seed],
                                   sort_keys=True, default=str), 12)
        for mirror, seats in ((False, [frame.agents[a], frame.agents[b]]), (True, [frame.agents[b], frame.agents[a]])):
            plans.append(MatchPlan(match_id=_hash_of(f"{deal}:{mirror}", 16), run_id=spec.run_id, game=game,
                                   preset=preset, params=params, seed=seed, repeat=study.looks, lineup=int(mirror),
                                   seats=seats, deadline_s=spec.matches[0].deadline_s, mirror=mirror, deal=deal))
    return plans


class StudyFailed(Exception):
    """A batch whose every match ended in an error: playing on would only repeat them."""


async def until_separated(spec: RunSpec, db: str | Path, budget_usd: float | None = None,
                          budget_matches: int | None = None, progress: bool = True) -> certainty.Study:
    """Play the study batch by batch until `Study.next_batch` has nothing more; the study as it ends. Each batch
    counts as a look and its matches against the budget, errored ones too (an errored deal is not read back, so the
    database alone would not see them spent); StudyFailed when every match of a batch ends in an error."""
    frame = frame_of(spec)
    history: list[dict] = []
    looks = matches = 0  # this command's batches and their matches
    before = None  # the looks and matches the database held when the command began
    while True:
        study = read_study(db, spec.run_id, frame)
        if before is None:
            before = study.looks, study.matches
        study.looks, study.matches = max(study.looks, before[0] + looks), max(study.matches, before[1] + matches)
        if study.looks:
            history.append(study.snapshot())
        cost = deal_costs(db, spec.run_id, frame)
        batch = study.next_batch(cost, budget_usd, budget_matches)
        if not batch:
            study.history = history
            return study
        plans = batch_plans(spec, frame, study, batch)
        summary = await run_spec(RunSpec(spec.name, spec.run_id, spec.raw, spec.concurrency, spec.model_concurrency,
                                         plans, spec.model_limits, spec.executor), db, progress=progress)
        looks, matches = looks + 1, matches + len(plans)
        if summary.played and summary.errors == summary.played:
            raise StudyFailed(f"every match of look {study.looks + 1} ended in an error, the first "
                              f"{summary.error_messages[0]}")


def report(study: certainty.Study, frame: Frame) -> list[str]:
    """The study in lines: each look of this command's batches (its matches, dollars, widest adjacent interval and
    open pairs: cost against certainty), then the order with each adjacent pair's share and interval."""
    lines = ["look  matches  usd  widest adjacent interval  open pairs"]
    lines += [f"{h['look']:>4}  {h['matches']:>7}  {h['usd']:.4f}  {h['widest']:.3f}  {h['open']}"
              for h in study.history]
    ranked = certainty.order(study.deals)
    for upper, lower in zip(ranked, ranked[1:], strict=False):
        share, lo, hi = certainty.pair_interval(study.deals, upper, lower)
        lines.append(f"{frame.names[upper]} over {frame.names[lower]}: {share:.3f} "
                     f"[{max(lo, 0.0):.3f}, {min(hi, 1.0):.3f}]"  # a share: its normal interval clipped to 0-1
                     + ("" if lo > 0.5 else " (not separated)"))
    return lines
