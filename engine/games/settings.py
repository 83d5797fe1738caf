"""A match's setting, named one way on every page and table: its preset and the parameters that differ from the
game's defaults ("vanilla" when none does: γ-Bench's own rule for its table, `engine.papers.gamabench.scores`)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd

from engine.games import get_game

NOT_A_SETTING = {"valuation_seed"}  # changes no rule a player faces


def setting_of(game: str, params: dict[str, Any]) -> dict[str, Any]:
    """The parameters that differ from the paper's defaults (empty: the vanilla setting)."""
    defaults = get_game(game).resolve_params({})
    return {k: v for k, v in params.items() if k not in NOT_A_SETTING and defaults.get(k) != v}


def setting_label(game: str, preset: str | None, params: str | dict | None) -> str:
    """A setting (a match's preset and params) as every page names it, by the rule of γ-Bench's own table: "vanilla"
    when its params are the game's defaults (`setting_of`), else "custom: players=3, rounds=1" naming
    those that differ; a preset that changes a default first ("no_hint · custom: hint=false"; bar_game's
    "implicit", the paper's own mode, changes none and names nothing)."""
    values = json.loads(params) if isinstance(params, str) and params else dict(params or {})
    try:
        changed = setting_of(game, values)
    except (KeyError, ValueError):  # a game this engine no longer knows: every param is the setting
        changed = values
    shown = ", ".join(f"{k}={f'{v:.2f}' if isinstance(v, float) else json.dumps(v).strip(chr(34))}"
                      for k, v in sorted(changed.items()))
    name = f"custom: {shown}" if changed else "vanilla"
    return f"{preset} · {name}" if _changes_a_default(game, preset) else name


def _changes_a_default(game: str, preset: str | None) -> bool:
    """Whether `preset` sets a parameter away from the game's default (a preset unknown here: assumed so)."""
    if preset in (None, "", "default"):
        return False
    try:
        cls = get_game(game)
        values = cls.presets[preset]
    except (KeyError, ValueError):
        return True
    defaults = cls.resolve_params({})
    return any(defaults.get(k) != v for k, v in values.items())


def setting_labels(rows: pd.DataFrame) -> pd.Series:
    """`setting_label` of each row of a frame with game, preset and params columns, computed once per distinct
    setting: a model's scores on a large database are hundreds of thousands of rows of a few dozen settings."""
    if rows.empty:
        return pd.Series([], index=rows.index, dtype=object)
    keys = rows[["game", "preset", "params"]]
    codes = keys.groupby(list(keys), dropna=False, sort=False).ngroup().to_numpy()
    first = np.unique(codes, return_index=True)[1]  # each setting's first row, in the order of `codes`
    labels = [setting_label(game, preset if isinstance(preset, str) else None, params if isinstance(params, str)
                            else None) for game, preset, params in keys.iloc[first].itertuples(index=False)]
    return pd.Series(np.array(labels, dtype=object)[codes], index=rows.index, dtype=object)
