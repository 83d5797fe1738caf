"""A paper's own table as every output shows it (the pages, their reports, `python -m engine scores`), read from its
suite's `TableLayout`: its key columns first, an average over only some of its parts (LLMArena's games, MAgIC's seven
roles) marked and its row put last, a model's condition in one column, its columns named so that none passes for the
headline's win rate, each with its unit.

    partial_rows(board, layout) -> Series;  complete_first(board, layout) -> DataFrame
    shown_names(columns, layout) -> dict;  own_table_view(board, layout) -> DataFrame
"""

from __future__ import annotations

import pandas as pd

from engine.numbers import board_text, unit_of, with_unit
from engine.suites.base import TableLayout


def with_condition(shown: pd.DataFrame, parts: list[str]) -> pd.DataFrame:
    """`shown` with a model's condition columns `parts` (prompt version, temperature, strategy, as shown) in one
    column where the first was ("v1 · 1.00 · vanilla", blank for a bot): narrower than three."""
    at = list(shown.columns).index(parts[0])
    joined = [" · ".join(v for v in row if v) for row in shown[parts].itertuples(index=False)]
    shown = shown.drop(columns=parts)
    shown.insert(at, "condition", joined)
    return shown


def partial_rows(board: pd.DataFrame, layout: TableLayout) -> pd.Series:
    """Whether each row averages only some of its parts (`layout.coverage`): False for a table without one."""
    if layout.coverage is None or board.empty:
        return pd.Series(False, index=board.index)
    return board[layout.coverage.parts].fillna(0) < layout.coverage.whole


def complete_first(board: pd.DataFrame, layout: TableLayout) -> pd.DataFrame:
    """A paper's own table in reading order: ranked rows first (by `rank`, where the table has one), then the
    complete unranked rows, then the partial rows (an average over 1 of 7 games must not lead at "100.00"), those
    covering more parts first; otherwise in the table's own order."""
    parts = board[layout.coverage.parts] if layout.coverage else pd.Series(0, index=board.index)
    key = pd.DataFrame({"unranked": board["rank"].isna() if "rank" in board else False,
                        "rank": board["rank"] if "rank" in board else 0,
                        "partial": partial_rows(board, layout), "covers": -parts.fillna(0)}, index=board.index)
    if "source" in board:  # a published row stays right under our row of its model (`published.beside`)
        key = key.mask(board["source"] == "published").ffill()
    key["row"] = range(len(key))
    # the partial rows: those covering more parts first (4 of 7 games above 1 of 7, whatever its value)
    key["covers"] = key["covers"].where(key["partial"].astype(bool), 0)
    order = key.sort_values(["unranked", "partial", "rank", "covers", "row"], kind="stable",
                            na_position="last").index
    return board.loc[order]


def shown_names(columns, layout: TableLayout) -> dict[str, str]:
    """Each column's name as the pages show it: the layout's name for it (`renamed`) with its unit ("mean role win
    rate (%)"), the unit every output writes in its header (`numbers.on_one_scale`)."""
    return {c: with_unit(layout.renamed.get(c, c), unit_of(str(c), layout.units)) for c in columns}


def own_table_view(board: pd.DataFrame, layout: TableLayout) -> pd.DataFrame:
    """The table as text, as every page shows it: its key columns first, an average over only some of its parts
    marked beside its value and in its count ("1 of 7 (partial)", the header names the unit) and its row put last
    (`complete_first`), a model's condition in one column, columns blank in every row
    left out (but the key and `kept` ones), and the names the layout gives, with their units (`shown_names`)."""
    board = complete_first(board, layout)
    shown = board_text(board)
    first = list(board.columns[:1])
    key = [c for c in layout.key if c in board.columns and c not in first]
    shown = shown[first + key + [c for c in board.columns if c not in first + key]]
    coverage = layout.coverage
    if coverage and not board.empty:
        partial = board[coverage.parts] < coverage.whole
        shown[coverage.value] = [f"{text} (partial)" if text and short else text
                                 for text, short in zip(shown[coverage.value], partial, strict=True)]
        shown[coverage.parts] = [f"{int(n)} of {coverage.whole}" if n == n else "" for n in board[coverage.parts]]
    condition = [c for c in ("prompt_version", "temperature", "strategy") if c in shown]
    if len(condition) > 1:
        shown = with_condition(shown, condition)
    # the key and kept columns stay even when blank (`overall` blank: not all eight games played; an ability no one
    # has: MAgIC's profile always has seven); a bot's strategy or a game no row played goes
    kept = {*first, *key, *layout.kept}
    blank = [c for c in shown.columns if c not in kept and shown[c].eq("").all()]
    if "source" in shown and shown["source"].eq("ours").all():
        blank.append("source")  # nothing published beside ours: the column would only repeat "ours"
    return shown.drop(columns=blank).rename(columns=shown_names(shown.columns, layout))
