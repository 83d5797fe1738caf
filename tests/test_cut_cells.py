"""A cell cut at 1400 px says so: the header of a column narrower than its longest cell tells that a double click
reads it whole (γ-Bench's "custom: players=3, rounds=1, …" settings were cut with no hint), and the γ-Bench table's
"condition" ("v1 · 0.00 · vanilla") names its three parts."""

from __future__ import annotations

import pandas as pd

from engine.present.column_help import COLUMN_HELP
from pages.shared.tables import CUT_HINT, TABLE_PX, column_width, fitted_columns


def test_a_cut_column_says_a_double_click_reads_it_whole_and_a_whole_one_does_not():
    setting = "custom: players=3, rounds=20, ratio=0.67, min_guess=0, max_guess=100, retry=authors"
    table = pd.DataFrame({"model": ["gpt-3.5-turbo-0125"], "condition": ["v1 · 0.00 · vanilla"],
                          **{f"game_{i}": ["44.40 ± 1.20"] for i in range(4)}, "setting": [setting]})
    _, config = fitted_columns(table, None, {"setting": "the game's parameters"}, fill=("setting",))
    assert config["setting"]["width"] < column_width(table["setting"], "setting")  # it is cut...
    assert config["setting"]["help"] == f"the game's parameters {CUT_HINT}"  # ...and says how to read it whole
    assert all(CUT_HINT not in (config[c]["help"] or "") for c in table.columns if c != "setting")
    assert sum(c["width"] for c in config.values()) <= TABLE_PX


def test_a_squeezed_column_says_so_too():
    table = pd.DataFrame({f"lineup_{i}": ["bot:random vs bot:equilibrium vs bot:tit_for_tat vs bot:random"]
                          for i in range(5)})
    _, config = fitted_columns(table, None)
    assert all(config[c]["help"] == CUT_HINT for c in table.columns)


def test_the_condition_column_names_its_three_parts_in_order():
    help_text = COLUMN_HELP["condition"]
    parts = ["prompt version", "sampling temperature", "prompting strategy"]
    assert all(p in help_text for p in parts)
    assert [help_text.index(p) for p in parts] == sorted(help_text.index(p) for p in parts)
    assert "v1 · 0.00 · vanilla" in help_text
