"""What MAgIC's three game-theory scenarios share (seed 000 §3.2, App. A): the settings on disk.

Each scenario has 21 settings, `engine/data/magic/<game>/<n>.json` in the authors' format: 7 groups of
parameters (airline descriptions, payoff tables, multipliers) x 3 seats of the player under test
(`test_player_name`), file n = group (n // 3) + 1 at seat n % 3. A match plays one group (parameter
`group`, presets `magic_1`..`magic_7`); the run spec's `{challenger: A, others: B}` lineup seats the
challenger in each seat in turn, so 7 presets x 3 lineups replay the 21 competitions. The three files
of a group must agree on everything but the seat: that is checked on load.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from engine.games.base import Param

DATA_DIR = Path(__file__).resolve().parent.parent / "data" / "magic"
GROUPS = 7
SEATS = 3


def setting_file(game: str, group: int, seat: int) -> Path:
    return DATA_DIR / game / f"{SEATS * (group - 1) + seat}.json"


@lru_cache(maxsize=64)
def _load_group(game: str, group: int) -> str:
    if not 1 <= group <= GROUPS:
        raise ValueError(f"MAgIC group must be 1..{GROUPS}, got {group}")
    settings = []
    for seat in range(SEATS):
        data = json.loads(setting_file(game, group, seat).read_text(encoding="utf-8"))
        if data.pop("test_player_name", None) != f"Player {seat + 1}":
            raise ValueError(f"{setting_file(game, group, seat)}: test_player_name must be 'Player {seat + 1}'")
        settings.append(data)
    if any(s != settings[0] for s in settings[1:]):
        raise ValueError(f"the three settings of {game} group {group} differ beyond the test seat")
    return json.dumps(settings[0])


def load_group(game: str, group: int) -> dict[str, Any]:
    """The parameters of one group of `game`'s settings (a fresh copy)."""
    return json.loads(_load_group(game, group))


def group_param(default: int, optional: bool) -> Param:
    """The MAgIC group; with `optional`, 0 means: play the game's own parameters instead."""
    note = "; 0 = the parameters given below" if optional else ""
    return Param(default, f"MAgIC setting group 1..{GROUPS}{note}", lo=0 if optional else 1, hi=GROUPS)


def group_presets() -> dict[str, dict[str, Any]]:
    return {f"magic_{g}": {"group": g} for g in range(1, GROUPS + 1)}
