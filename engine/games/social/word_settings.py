"""The social games' word settings, read from engine/data: MAgIC's settings files (one JSON file per
setting, in the authors' format) and LLMArena's undercover word pairs (also Who-is-Spy's)."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent.parent.parent / "data"


@lru_cache(maxsize=8)
def magic_settings(game: str) -> list[dict[str, Any]]:
    """MAgIC-style settings of `game` (chameleon, undercover), in file-number order."""
    folder = DATA_DIR / "magic" / game
    files = sorted(folder.glob("*.json"), key=lambda p: int(p.stem))
    return [json.loads(p.read_text(encoding="utf-8")) for p in files]


@lru_cache(maxsize=1)
def llmarena_word_pairs() -> list[tuple[str, str]]:
    """LLMArena's undercover word pairs (the file the paper calls 69 has 70 lines) ("Apple - Pear")."""
    lines = (DATA_DIR / "llmarena" / "undercover_words.txt").read_text(encoding="utf-8").splitlines()
    return [tuple(w.strip() for w in line.split(" - ", 1)) for line in lines if " - " in line]
