"""What MAgIC's three game-theory scenarios share (MAgIC paper §3.2, App. A): the settings on disk.

Each scenario's settings are `engine/data/magic/<game>/<n>.json` in the authors' format: groups of
parameters (airline descriptions, payoff tables, multipliers) x 3 seats of the player under test
(`test_player_name`); files 3(g-1) .. 3(g-1)+2 are group g, one per test seat in any order. File 0 is
the authors' released setting byte for byte (cathyxl/MAgIC `topics_release/<game>/settings/0.json`), so
group 1 holds its parameters. Cost sharing and the Prisoner's Dilemma have 7 groups (21 settings);
the Public Good has 8: the released multiplier 3.5, then the paper's seven (1, 1.2, ... 3). A match
plays one group (parameter `group`, presets `magic_1`..); the run spec's `{challenger: A, others: B}`
lineup seats the challenger in each seat in turn, so the presets x 3 lineups replay the competitions.
The three files of a group must agree on everything but the seat: that is checked on load.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from engine.games.base import Game, Param

DATA_DIR = Path(__file__).resolve().parent.parent / "data" / "magic"
SEATS = 3
TEST_SEATS = {f"Player {s + 1}" for s in range(SEATS)}


@lru_cache(maxsize=16)
def group_count(game: str) -> int:
    """How many setting groups `game` has on disk."""
    return len(list((DATA_DIR / game).glob("*.json"))) // SEATS


@lru_cache(maxsize=64)
def _load_group(game: str, group: int) -> str:
    count = group_count(game)
    if not 1 <= group <= count:
        raise ValueError(f"MAgIC group must be 1..{count}, got {group}")
    settings, seats = [], set()
    for n in range(SEATS * (group - 1), SEATS * group):
        path = DATA_DIR / game / f"{n}.json"
        data = json.loads(path.read_text(encoding="utf-8"))
        seats.add(data.pop("test_player_name", None))
        settings.append(data)
    if seats != TEST_SEATS:
        raise ValueError(f"{game} group {group}: the test_player_name of its three files must be Player 1, 2 and 3")
    if any(s != settings[0] for s in settings[1:]):
        raise ValueError(f"the three settings of {game} group {group} differ beyond the test seat")
    return json.dumps(settings[0])


def load_group(game: str, group: int) -> dict[str, Any]:
    """The parameters of one group of `game`'s settings (a fresh copy)."""
    return json.loads(_load_group(game, group))


def group_param(game: str, default: int, optional: bool) -> Param:
    """The MAgIC group; with `optional`, 0 means: play the game's own parameters instead."""
    count = group_count(game)
    note = "; 0 = the parameters given below" if optional else ""
    return Param(default, f"MAgIC setting group 1..{count}{note}", lo=0 if optional else 1, hi=count)


def group_presets(game: str) -> dict[str, dict[str, Any]]:
    return {f"magic_{g}": {"group": g} for g in range(1, group_count(game) + 1)}


class MagicScenario(Game):
    """One of the three scenarios: three seats, and besides `default` a preset `magic_<g>` per setting group
    on disk (the subclass names its `group` parameter with `group_param`)."""

    paper = "MAgIC"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.presets = {"default": {}} | group_presets(cls.name)

    @classmethod
    def n_seats(cls, params: dict[str, Any]) -> int:
        return SEATS
