"""docs/PAPERS.md says what is shipped from γ-Bench's records, truthfully (issue 43): the counts it gives are the
files in the repository, and it claims no record of the authors' folder missing."""

from __future__ import annotations

import re

from engine import store

PAPERS = (store.ROOT / "docs" / "PAPERS.md").read_text(encoding="utf-8")


def files_under(folder: str) -> int:
    return sum(1 for path in (store.ROOT / folder).rglob("*.json"))


def test_papers_counts_the_shipped_gamabench_records_as_the_repository_holds_them():
    shipped = re.search(r"the (\d+) files of `engine/papers/gamabench/raw_results/`", PAPERS)
    trimmed = re.search(r"trimmed copies of (\d+) other records in `tests/data/gamabench/`", PAPERS)
    assert shipped and int(shipped[1]) == files_under("engine/papers/gamabench/raw_results")
    studies = re.search(r"of (\d+) records of\s+the paper's studies in `tests/data/gamabench_studies/`", PAPERS)
    assert trimmed and int(trimmed[1]) == files_under("tests/data/gamabench")
    assert studies and int(studies[1]) == files_under("tests/data/gamabench_studies")


def test_papers_claims_no_leaderboard_record_missing_from_the_authors_folder():
    assert not re.search(r"the folder has no|\(\d+ of 5 runs", PAPERS)
