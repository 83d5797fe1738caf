"""A launch that plays as an adaptive study (`python -m engine run SPEC --until-separated [--budget-usd X |
--budget-matches N]`, engine/study/certainty_run.py): its settings, kept in the run's launch folder beside its spec so
that Resume plays it the same way, and where it stands, read from the database (engine/study/certainty_reads.py)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from engine import store
from engine.play.spec import parse_spec
from engine.study import certainty
from engine.study.certainty_reads import deal_costs, frame_of, read_study
from engine.wording import count, usd

UNITS = {"dollars": "budget_usd", "matches": "budget_matches"}  # the form's budget kinds -> StudySettings' fields


@dataclass(frozen=True)
class StudySettings:
    """An adaptive study's budget: dollars, matches or none (it stops when adjacent ranks are separated or its
    looks are spent)."""

    budget_usd: float | None = None
    budget_matches: int | None = None

    def flags(self) -> list[str]:
        """The run command's flags that play the spec as this study."""
        flags = ["--until-separated"]
        if self.budget_usd is not None:
            flags += ["--budget-usd", str(self.budget_usd)]
        if self.budget_matches is not None:
            flags += ["--budget-matches", str(self.budget_matches)]
        return flags

    def budget(self) -> str:
        if self.budget_usd is not None:
            return f"budget {usd(self.budget_usd)}"
        if self.budget_matches is not None:
            return f"budget {count(self.budget_matches, 'match')}"
        return "no budget"


def budget_problem(amount: float, unit: str) -> str | None:
    """Why a budget is refused (none above zero plays a match), or None."""
    return None if amount > 0 else f"budget: must be more than 0 {unit}, got {amount:g}"


def save(path: Path, settings: StudySettings) -> None:
    path.write_text(json.dumps(asdict(settings)), encoding="utf-8")


def load(path: Path) -> StudySettings | None:
    """The settings a launch kept, or None: the launch played its grid once (or was not launched from here)."""
    try:
        return StudySettings(**json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return None


@dataclass(frozen=True)
class Standing:
    """Where a study stands: its looks (batches begun), matches and dollars, whether every adjacent pair of ranks is
    separated, and whether it is done (separated, its looks spent or its budget unable to buy another deal)."""

    looks: int
    matches: int
    spent_usd: float
    separated: bool
    done: bool

    def progress(self, settings: StudySettings) -> float:
        """How far along, from 0 to 1: its budget spent, or without a budget its looks taken."""
        if self.done:
            return 1.0
        if settings.budget_matches is not None:
            return min(self.matches / settings.budget_matches, 1.0)
        if settings.budget_usd is not None:
            return min(self.spent_usd / settings.budget_usd, 1.0)
        return min(self.looks / certainty.LOOKS, 1.0)

    def text(self, settings: StudySettings) -> str:
        state = "adjacent ranks separated" if self.separated else "adjacent ranks not yet separated"
        return (f"adaptive study: {self.looks} of {certainty.LOOKS} looks, {count(self.matches, 'match')}, "
                f"{usd(self.spent_usd)} ({settings.budget()}); {state}"
                + ("; done" if self.done else ""))


# (db, run id, settings) -> (store.generation, standing)
_STANDINGS: dict[tuple[str, str, StudySettings], tuple[int, Standing]] = {}


def standing(db: str | Path, run_id: str, raw: dict[str, Any], settings: StudySettings) -> Standing:
    """The study as the database holds it, read once per state of the database (the runs panel asks every 2 s)."""
    state = store.generation(db)
    key = (str(db), run_id, settings)
    kept = _STANDINGS.get(key)
    if kept is None or kept[0] != state:
        spec = parse_spec(raw)
        frame = frame_of(spec)
        study = read_study(db, run_id, frame)
        batch = study.next_batch(deal_costs(db, run_id, frame), settings.budget_usd, settings.budget_matches)
        kept = _STANDINGS[key] = (state, Standing(study.looks, study.matches, study.spent_usd,
                                                              bool(study.deals.total()) and study.separated(),
                                                              not batch))
    return kept[1]
