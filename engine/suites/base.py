"""What a suite is: the games (and rule variants) a paper plays, how its leaderboard is computed over a
selection, and the figures its paper plots. Declarations only: the functions a suite names are
imported when first called (`Scorer`), so a scorer may read its suite's game list without a cycle.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from engine.selection import ALL, Selection, Variant


@dataclass(frozen=True)
class Scorer:
    """A function named `package.module:function`, imported on its first call."""

    path: str

    def resolve(self) -> Callable[..., pd.DataFrame]:
        module, _, name = self.path.partition(":")
        return getattr(importlib.import_module(module), name)

    def __call__(self, *args, **kwargs) -> pd.DataFrame:
        return self.resolve()(*args, **kwargs)


@dataclass(frozen=True)
class Chart:
    """How a figure's table is drawn (plotly express): `kind` 'line' or 'bar'; `y` None = every numeric
    column but `x` and those in `skip`."""

    kind: str
    x: str
    y: tuple[str, ...] | str | None = None
    color: str | None = None
    facet_col: str | None = None
    barmode: str | None = None
    skip: tuple[str, ...] = ()
    x_title: str | None = None
    y_title: str | None = None

    def columns(self, table: pd.DataFrame) -> list[str] | str:
        if isinstance(self.y, str):
            return self.y
        if self.y:
            return list(self.y)
        return [c for c in table.columns if c != self.x and c not in self.skip
                and pd.api.types.is_numeric_dtype(table[c])]


@dataclass(frozen=True)
class Figure:
    """One of a paper's per-game figures: `table(db, filters=selection)` over the selection narrowed to one of
    `games`, drawn by `chart` when given; `name` may hold `{game}`, the file name of its download."""

    name: str
    title: str
    games: tuple[str, ...]
    table: Scorer
    chart: Chart | None = None
    show_table: bool = True

    def compute(self, db: str | Path, selection: Selection) -> pd.DataFrame:
        return self.table(db, filters=selection)


@dataclass(frozen=True)
class Headline:
    """The number a suite's headline table ranks by, in the unit `title` states: `rating` (Bradley-Terry, Elo
    scale), `win_rate` (the one win rate of engine/headline.py), or `score`, the mean per seat of the stored metric
    `metric`, on the scale `bounds`."""

    by: str = "rating"
    title: str = "rating"
    metric: str = ""
    bounds: tuple[float, float] | None = None  # the score's scale: its interval never reaches past it

    def __post_init__(self) -> None:
        if self.by not in ("rating", "win_rate", "score") or (self.by == "score") != bool(self.metric):
            raise ValueError(f"a headline ranks by rating, win_rate or score (with its metric), not {self}")


@dataclass(frozen=True)
class Suite:
    """A paper's benchmark. `variants` are the games (under their rule sets) it scores; `board(db, filters=...)`
    is its leaderboard as the paper defines it; `figures` what its paper plots per game. `caption` explains the
    table, `empty` says what to play when there is none. `slow` marks a leaderboard that replays ratings (the
    dashboard asks before computing it on a large new selection)."""

    name: str
    title: str
    paper: str
    variants: tuple[Variant, ...]
    board: Scorer | None = None
    figures: tuple[Figure, ...] = ()
    caption: str = ""
    empty: str = ""
    slow: bool = False
    narrow: bool = False  # the board reads any selection: narrow it to `variants` first
    headline: Headline = Headline()
    self_play: bool = False  # the paper plays one model in every seat: its own table keeps self-play


    @property
    def games(self) -> tuple[str, ...]:
        """The games it plays, in its own order, each once."""
        return tuple(dict.fromkeys(v.game for v in self.variants))

    def leaderboard(self, db: str | Path, selection: Selection = ALL) -> pd.DataFrame:
        """The suite's table over the selected contested matches (`selection.contested_sql`): self-play of a
        competitive game (every seat one agent) is left out, as the headline leaves it out, unless the paper's
        protocol is self-play (`self_play`); a cooperative game's matches all count."""
        if self.board is None:
            return pd.DataFrame()
        selection = replace(selection, contested=not self.self_play)
        return self.board(db, filters=selection.within(self.variants) if self.narrow else selection)

    def figures_of(self, game: str) -> tuple[Figure, ...]:
        return tuple(f for f in self.figures if game in f.games)
