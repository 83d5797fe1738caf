"""The papers' own tables, kept as reference rows beside ours.

The rows are LLMArena's Table 1 (normalized scores of 14 models), MAgIC's Table 1 (win rate and seven abilities
of 8 models) and MAgIC's Table 2 (game-theory win rates, Cost, Score and Payback, with and without PGM). They are
transcribed in engine/papers/<paper>/published/*.csv. `store.init_db` calls `fill` in the transaction that
creates or upgrades the tables, so every database holds them in its `published` table, marked with their source.
The dashboard shows them under our rows of the same models (`interleave_published`), and
`engine.present.queries.published_rows` reads them back. This module reads no database: the store sits above it.

Published rows never enter a suite's leaderboard: `python -m engine scores` prints only what was played.
γ-Bench's published figures are not here: they come from the authors' raw records
(`python -m engine import gamabench`).

Units and names follow our boards. LLMArena's normalized scores and MAgIC's abilities are as printed (0-100),
under our profile's names ("Judgement (0-100)"). The radar's area is given in our unit and in the paper's: it is
computed from Table 1's abilities, as Figures 1 and 6 draw it (`engine.papers.magic.radar`); the paper prints no
number for those bars. Win rates, printed in %, are kept as fractions. Table 2's Cost (%), Score and Payback are
as printed. Table 2 abbreviates two model names ("GPT-3.5-T", "Llama-2"), as Figure 1's legend does. The CSV keeps
the paper's text, and `PAPER_NAMES` maps them to Table 1's names ("GPT-3.5-turbo", "Llama-2-70B"), so that every
published row sits beside our rows of the same model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd

from engine.agents.agent_names import LABEL_MARK
from engine.papers.magic.radar import ABILITIES, ABILITY_COLUMNS, AREA, PAPER_AREA, area_paper, area_percent

PAPERS_DIR = Path(__file__).resolve().parent
PAPER = "paper"  # the `source` column of our rows says "ours"; a reference row's says "paper: <table>"
PAPER_NAMES = {"GPT-3.5-T": "GPT-3.5-turbo", "Llama-2": "Llama-2-70B"}  # MAgIC Table 2's short names


@dataclass(frozen=True)
class PublishedTable:
    suite: str
    title: str  # e.g. "LLMArena Table 1"
    file: str
    percent: tuple[str, ...] = ()  # columns printed in % that our board holds as fractions
    radar: bool = False  # MAgIC's abilities: named as our profile names them, with the radar's areas


TABLES = (
    PublishedTable("llmarena", "LLMArena Table 1", "table1.csv"),
    PublishedTable("magic", "MAgIC Table 1", "table1.csv", ("win_rate",), radar=True),
    PublishedTable("magic", "MAgIC Table 2", "table2.csv", ("cost_sharing_wr", "prisoner_wr", "public_good_wr")),
)


def rows() -> pd.DataFrame:
    """Every published figure, one row each: suite, source, model, strategy, name, value."""
    out = []
    for table in TABLES:
        wide = _read(table)
        strategy = wide.pop("strategy") if "strategy" in wide else pd.Series("vanilla", index=wide.index)
        for (_, row), strat in zip(wide.iterrows(), strategy, strict=True):
            for name, value in row.drop("model").items():
                scale = 100.0 if name in table.percent else 1.0
                out.append({"suite": table.suite, "source": f"{PAPER}: {table.title}", "model": row["model"],
                            "strategy": strat, "name": name, "value": float(value) / scale})
    return pd.DataFrame(out, columns=["suite", "source", "model", "strategy", "name", "value"])


def _read(table: PublishedTable) -> pd.DataFrame:
    """A published table as transcribed, its models named as Table 1 names them and, for MAgIC's abilities,
    under our profile's names with the radar's two areas."""
    wide = pd.read_csv(PAPERS_DIR / table.suite / "published" / table.file)
    wide["model"] = wide["model"].replace(PAPER_NAMES)
    if table.radar:
        wide = wide.rename(columns=dict(zip(ABILITIES, ABILITY_COLUMNS, strict=True)))
        abilities = [list(row) for row in wide[ABILITY_COLUMNS].itertuples(index=False)]
        wide[AREA] = [area_percent(values) for values in abilities]
        wide[PAPER_AREA] = [area_paper(values) for values in abilities]
    return wide


def fill(con: duckdb.DuckDBPyConnection) -> None:
    """Write the published rows into `published` (replacing what is there) on an open connection."""
    frame = rows()
    con.execute("DELETE FROM published")
    con.register("published_rows", frame)
    con.execute("INSERT INTO published BY NAME SELECT * FROM published_rows")
    con.unregister("published_rows")


def same_model(name: Any) -> str:
    """A model name reduced for matching: the part after a provider prefix, letters and digits, lower case
    ("openai/gpt-3.5-turbo" and "GPT-3.5-Turbo" are the same model)."""
    return re.sub(r"[^a-z0-9]", "", str(name).rsplit("/", 1)[-1].lower())


def interleave_published(ours: pd.DataFrame, paper: pd.DataFrame, key: str = "agent") -> pd.DataFrame:
    """Our rows (source "ours"), each followed by the published rows of the same model (and strategy, when
    both have one); published rows of models we have not played are left out. The rows are put in order by one
    concatenation: a frame per row is slow over the hundreds of rows a large database shows."""
    if ours.empty or paper.empty or key not in ours:
        return ours
    ours = ours.assign(source="ours").reset_index(drop=True)
    paper = paper.reset_index(drop=True)
    strategies = "strategy" in ours and "strategy" in paper
    published_at: dict[tuple[str, Any], list[int]] = {}
    for j, (model, strategy) in enumerate(zip(paper[key].map(same_model),
                                              paper["strategy"] if strategies else repeat(None), strict=False)):
        published_at.setdefault((model, strategy), []).append(len(ours) + j)
    order = []
    for i, (name, strategy) in enumerate(zip(ours[key], ours["strategy"] if strategies else repeat(None),
                                             strict=False)):
        # no strategy (a bot's "-") is the plain prompt: the papers' vanilla rows
        mine = ("vanilla" if pd.isna(strategy) or strategy == "-" else strategy) if strategies else None
        # a labelled agent ("gpt-4 · bot:always_defect") is its agent string's model, else its label's
        models = [same_model(part) for part in reversed(str(name).rsplit(LABEL_MARK, 1))]
        order += [i, *next((published_at[(m, mine)] for m in models if (m, mine) in published_at), [])]
    columns = [key, "source", *[c for c in ours.columns if c not in (key, "source")]]
    table = pd.concat([ours, paper], ignore_index=True).iloc[order].reset_index(drop=True)
    return table[columns + [c for c in table.columns if c not in columns]]
