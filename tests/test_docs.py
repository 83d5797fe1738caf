"""The repository explains itself: no tracked file points to material a clone does not have (the reference
notes beside the original checkout, or papers cited by their place in a folder of seeds instead of their
title; docs/PAPERS.md names the papers)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Spelled in pieces so that this file does not match itself.
OUTSIDE = re.compile("|".join([r"\.\./" + "shared", "seeds?[ _/]0" + r"0\d", r"\b(?:SPEC|DESIGN)\." + "md"]),
                     re.IGNORECASE)


def tracked_files() -> list[Path]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    return [ROOT / name for name in out.decode().split("\0") if name]


def pointers_outside(text: str) -> list[str]:
    return [match.group(0) for match in OUTSIDE.finditer(text)]


def test_the_pattern_finds_each_kind_of_pointer_outside():
    assert pointers_outside("see ../shared/SPEC.md") == ["../shared", "SPEC.md"]
    assert pointers_outside("(MAgIC, seed 000 §3.1)") == ["seed 000"]
    assert pointers_outside("rules in DESIGN.md and Seed 003") == ["DESIGN.md", "Seed 003"]
    assert pointers_outside("docs/GAMES.md; a match seed 42; seed 0 of repeat 1; the MAgIC paper §3.1") == []


def test_no_tracked_file_points_outside_the_repository():
    files = tracked_files()
    assert len(files) > 300 and ROOT / "README.md" in files
    found = []
    for path in files:
        if not path.is_file():
            continue
        text = path.read_bytes().decode("utf-8", errors="ignore")
        found += [f"{path.relative_to(ROOT)}: {hit}" for hit in pointers_outside(text)]
    assert found == []
