"""Who holds what in a social game: the word setting a match plays, the seat of the special role, and
the setting's scripted clues re-dealt by role. A part of `SocialDeduction` (rounds.py), which supplies
`self.p` (the parameters), `self.seed`, `self.rng`, `self.alive` (one entry per seat) and `self.special`
(the special seat, once `pick_special` has chosen it); a game's `deal` calls these."""

from __future__ import annotations

import random
from typing import Any


class Dealing:
    p: dict[str, Any]
    seed: int
    rng: random.Random
    alive: list[bool]
    special: int

    def setting_index(self, count: int) -> int:
        return self.setting_for(self.p, self.seed, count)

    @staticmethod
    def setting_for(params: dict[str, Any], seed: int, count: int) -> int:
        chosen = params["setting"]
        return seed % count if chosen == -1 else chosen

    @classmethod
    def named_seat(cls, params: dict[str, Any], seed: int) -> int | None:
        """The special seat the match's word setting names (None: the deal draws one)."""
        return None

    @classmethod
    def special_seat_for(cls, params: dict[str, Any], seed: int) -> int | None:
        """The seat that will hold the special role in the match of `params` and `seed`, known before it
        is played (None when the deal draws it): `pick_special`'s rule on `named_seat`."""
        if params["role_seat"] >= 0:
            return params["role_seat"]
        named = cls.named_seat(params, seed)
        return named if named is not None and named < params["players"] else None

    def pick_special(self, named_seat: int | None) -> int:
        n = len(self.alive)
        if self.p["role_seat"] >= 0:
            return self.p["role_seat"]
        return named_seat if named_seat is not None and named_seat < n else self.rng.randrange(n)

    def scripted(self, setting_clues: dict[str, Any], named_seat: int) -> dict[int, list[str]]:
        """The setting's scripted clues re-dealt by role: the special seat gets the setting's special
        player's clues, the other seats the remaining players' clues in order."""
        if not self.p["fixed_clues"]:
            return {}
        per_player = [setting_clues[f"Player {i + 1}"] for i in range(len(setting_clues))]
        per_player = [c if isinstance(c, list) else [c] for c in per_player]
        if len(per_player) != len(self.alive):
            raise ValueError(f"fixed_clues needs {len(per_player)} players (the setting's), not {len(self.alive)}")
        common = iter(c for i, c in enumerate(per_player) if i != named_seat)
        dealt = {s: (per_player[named_seat] if s == self.special else next(common)) for s in range(len(self.alive))}
        return {s: clues for s, clues in dealt.items() if not self.under_test(s)}

    def under_test(self, seat: int) -> bool:
        """Whether `seat` is the challenger's (never scripted): by `tested_role`, else `challenger_seat`."""
        tested = self.p["tested_role"]
        if tested:
            return (seat == self.special) == (tested == "special")
        return seat == self.p["challenger_seat"]
