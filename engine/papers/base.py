"""What a suite is: the games (and rule variants) a paper plays, how its leaderboard is computed over a
selection, how that table is shown (`TableLayout`), and the figures its paper plots. A suite names its scorers
as functions; the games and columns a suite and its scorers share sit in the paper's `games.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

import pandas as pd

from engine.store.selection import ALL, Selection, Variant

# a scorer: `(db, selection=...)` -> its table
Scorer = Callable[..., pd.DataFrame]


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

    def y_label(self, columns: list[str], unit: str = "") -> str:
        """The y axis's title: the one series' own name when the chart draws one (a bare "value" over a single
        unlabelled curve says nothing), else the unit the series share, else `y_title` (the legend names each)."""
        if len(columns) == 1:
            return f"{columns[0]} ({unit})" if unit else columns[0]
        return unit or self.y_title or "value"

    def columns(self, table: pd.DataFrame) -> list[str] | str:
        if isinstance(self.y, str):
            return self.y
        if self.y:
            return list(self.y)
        return [c for c in table.columns if c != self.x and c not in self.skip
                and pd.api.types.is_numeric_dtype(table[c])]


@dataclass(frozen=True)
class Figure:
    """One of a paper's per-game figures: `table(db, selection=...)` over the selection narrowed to one of
    `games`, drawn by `chart` when given; `name` may hold `{game}`, the file name of its download; `units`: the units
    of its figures, written in their headers as its suite's table's (`TableLayout.units`)."""

    name: str
    title: str
    games: tuple[str, ...]
    table: Scorer
    chart: Chart | None = None
    show_table: bool = True
    units: Mapping[str, str] = field(default_factory=dict)

    def compute(self, db: str | Path, selection: Selection) -> pd.DataFrame:
        return self.table(db, selection=selection)


@dataclass(frozen=True)
class Headline:
    """The number a suite's headline table ranks by, in the unit `title` states: `rating` (Bradley-Terry, Elo
    scale), `win_rate` (the one win rate of engine/papers/headline.py), or `score`, the mean per seat of the stored
    metric
    `metric`, on the scale `bounds`."""

    by: str = "rating"
    title: str = "rating"
    metric: str = ""
    bounds: tuple[float, float] | None = None  # the score's scale: its interval never reaches past it

    def __post_init__(self) -> None:
        if self.by not in ("rating", "win_rate", "score") or (self.by == "score") != bool(self.metric):
            raise ValueError(f"a headline ranks by rating, win_rate or score (with its metric), not {self}")

    @property
    def units(self) -> dict[str, str]:
        """The ranked number's unit, of it and its interval's bounds (`value`, `value_lo`, `value_hi`) in every
        output: "%" (a win rate, given as a fraction), the score's scale, or Elo's."""
        unit = "%" if self.by == "win_rate" else "Elo scale" if self.by == "rating" else (
            f"{self.bounds[0]:g}-{self.bounds[1]:g}" if self.bounds else self.title)
        return dict.fromkeys(("value", "value_lo", "value_hi"), unit)


@dataclass(frozen=True)
class Coverage:
    """An average over the parts of a whole (MAgIC's seven role win rates, LLMArena's seven games): `value` is the
    average's column, `parts` the column counting the parts a row covers, of `whole` parts, each one `unit`. A row
    covering fewer is partial: marked beside its value and shown after the complete rows (an average over 1 of 7
    games must not lead the table)."""

    value: str
    parts: str
    whole: int
    unit: str


@dataclass(frozen=True)
class ByRole:
    """A figure per role in columns `{role}_{figure}`, shown apart under `title` as a row per agent and role it held:
    eight columns side by side, half of them blank for an agent that held one role, would run past the window.
    `helps` defines the figures of one role (and `role`)."""

    title: str
    roles: tuple[str, ...]
    figures: tuple[str, ...]
    helps: Mapping[str, str] = field(default_factory=dict)

    @property
    def columns(self) -> list[str]:
        return [f"{role}_{figure}" for figure in self.figures for role in self.roles]


@dataclass(frozen=True)
class TableLayout:
    """How a suite's own table is shown, on every page that shows it (pages/shared/own_tables.py reads it; no page
    knows a suite by its name). Columns are named as the board names them. `key`: shown right after the first
    column (who and how well: in view on a narrow window); `aside`: groups of columns (title -> columns) in expanders
    beside the table, so that it fits a 1400 px window; `by_role`: per-role figures shown as rows apart; `coverage`:
    the average over parts whose partial rows are marked and put last (a figure is shown on the one scale every
    output path shares: see `units`); `always_shown`: columns shown even when every cell is
    blank; `renamed`: the name shown, where the board's would mislead (a paper's own number that is not the
    headline's win rate must not pass for it; its figures tables show the same names); `units`: the unit of a figure
    whose name does not say it, written in its header in every output (a share or rate needs none: it is in
    percent
    everywhere, "(%)", engine/present/numbers.py `on_one_scale`); units too long for a narrow table's headers are
    stated in
    the suite's caption instead; `helps`: definitions of the shown columns (header tooltips)."""

    key: tuple[str, ...] = ()
    aside: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    by_role: ByRole | None = None
    coverage: Coverage | None = None
    always_shown: tuple[str, ...] = ()
    renamed: Mapping[str, str] = field(default_factory=dict)
    units: Mapping[str, str] = field(default_factory=dict)
    helps: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Suite:
    """A paper's benchmark. `variants` are the games (under their rule sets) it scores; `board(db, selection=...)`
    is its leaderboard as the paper defines it, `layout` how every page shows it; `figures` what its paper plots per
    game. `caption` explains the table, `empty` says what to play when there is none. `slow` marks a leaderboard
    that replays ratings (the dashboard asks before computing it on a large new selection)."""

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
    layout: TableLayout = TableLayout()

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
        return self.board(db, selection=selection.within(self.variants) if self.narrow else selection)

    def figures_of(self, game: str) -> tuple[Figure, ...]:
        return tuple(f for f in self.figures if game in f.games)

    def units_of(self, figure: Figure) -> dict[str, str]:
        """The units a figure's table names in its headers: its own, else its suite's table's."""
        return {**self.layout.units, **figure.units}
