"""γ-Bench's study tables (GAMA-Bench paper App. F, Tables 5-9) from imported records, each cell with the formula
of the paper's table beside the leaderboard's.

The study tables score the Sealed-Bid Auction with an older formula than the leaderboard: the paper's S6 =
mean(v - b) / max v · 100 (its §2.2 equation, every bid's valuation minus bid over the largest valuation; a bid above
the valuation counts negative). The leaderboard (the authors' `board.py`, `records.auction`) takes the
mean of max(0, (v - b) / v) · 100. Every other game has one formula. The importer stores the paper's auction score
of each record as the `PAPER_AUCTION_METRIC` metric beside the leaderboard's `gamabench_score`.

`study_tables(db)`: one row per model, table, column and game of the imported records, with `paper` (the table's
formula), `leaderboard` (the leaderboard's), and the matches; an `overall` row per column with all eight games (the
mean of the eight). Which record is which column, by its file name's suffix (the `own_setting` the importer keeps):

- Table 5 (five runs): `_v1_1`..`_v1_5`, columns T1..T5.
- Table 6 (temperatures): `_t0`..`_t5`, columns 0.0..1.0.
- Table 7 (prompt versions): `_v1`..`_v5` without a run number, columns V1..V5.
- Table 8 (reasoning): `_cot<k>` (column "CoT <k>"), `_role1`..`_role3` (Cooperative, Selfish, Mathematician).
- Table 9 (settings): the setting suffixes (`_r<k>`, `_g<k>`, `_vr<k>`, `_h<k>`, `_p<k>`), a column each.

The paper prints run T1 as the default column of Tables 6, 7 and 8 ("1.0 (Default)", "V1 (Default)", "Default"):
`DEFAULT_COLUMN` repeats T1 there.
"""

from __future__ import annotations

import re
from pathlib import Path
from statistics import mean
from typing import Any

import pandas as pd

from engine import store
from engine.games.gamabench_common import SCORE_METRIC
from engine.papers.gamabench.games import GAMES
from engine.papers.gamabench.records import RecordError

PAPER_AUCTION_METRIC = "gamabench_paper_auction_score"
AUCTION = "sealed_bid_auction"
DEFAULT_COLUMN = {"Table 6": "1.0 (Default)", "Table 7": "V1 (Default)", "Table 8": "Default"}
PERSONAS = {"role1": "Cooperative", "role2": "Selfish", "role3": "Mathematician"}
SETTING = re.compile(r"(?:r|g|vr|h|p)\d+")
COLUMNS = ["model", "table", "column", "game", "paper", "leaderboard", "matches"]


def paper_auction_score(data: dict[str, Any]) -> float:
    """The paper's S6 of one auction record: mean(v - b) over every bid / the largest valuation · 100."""
    pairs = []
    for k, r in enumerate(data.get("round_records") or []):
        bids, values = (r.get("responses"), r.get("valuations")) if isinstance(r, dict) else (None, None)
        if not isinstance(bids, list) or not isinstance(values, list) or len(bids) != len(values):
            raise RecordError(f"round {k + 1}: 'responses' and 'valuations' must be lists of one length")
        try:
            pairs += [(float(v), float(b)) for b, v in zip(bids, values, strict=True)]
        except (TypeError, ValueError):
            raise RecordError(f"round {k + 1}: a bid or a valuation is not a number") from None
    if not pairs:
        raise RecordError("no bids")
    top = max(value for value, _ in pairs)
    if top <= 0:
        raise RecordError("every valuation is 0: the paper's auction score divides by the largest")
    return mean(value - bid for value, bid in pairs) / top * 100


def study_column(own_setting: str | None, repeat: int) -> tuple[str, str] | None:
    """(table, column) of a record by its study (`own_setting`; None: a leaderboard run, `repeat` 0..4)."""
    if own_setting is None:
        return "Table 5", f"T{repeat + 1}"
    if re.fullmatch(r"t[0-5]", own_setting):
        return "Table 6", f"{int(own_setting[1]) * 0.2:.1f}"
    if re.fullmatch(r"v[1-5]", own_setting):
        return "Table 7", own_setting.upper()
    if re.fullmatch(r"cot\d+", own_setting):
        return "Table 8", f"CoT {own_setting[3:]}"
    if own_setting in PERSONAS:
        return "Table 8", PERSONAS[own_setting]
    if SETTING.fullmatch(own_setting):
        return "Table 9", own_setting
    return None


_RECORDS = f"""
    SELECT any_value(s.agent) AS model, m.game, m."repeat", m.outcome->>'$.own_setting' AS own_setting,
           max(x.value) FILTER (WHERE x.name = '{SCORE_METRIC}') AS leaderboard,
           max(x.value) FILTER (WHERE x.name = '{PAPER_AUCTION_METRIC}') AS paper_auction
    FROM matches m JOIN runs r USING (run_id) JOIN seats s USING (match_id)
    LEFT JOIN metrics x ON x.match_id = m.match_id AND x.seat IS NULL
    WHERE r.source LIKE 'import:%' AND m.game IN (SELECT unnest(?)) AND m.status = 'ok'
    GROUP BY m.match_id, m.game, m."repeat", own_setting"""


def study_tables(db: str | Path) -> pd.DataFrame:
    """The imported records' cells of the paper's Tables 5-9 (module docstring), in the table's formula (`paper`)
    and the leaderboard's (`leaderboard`)."""
    records = store.query(db, _RECORDS, [list(GAMES)])
    rows = []
    for record in records.itertuples(index=False):
        own_setting = record.own_setting if isinstance(record.own_setting, str) else None  # NULL reads as NaN
        place = study_column(own_setting, int(record.repeat))
        if place is None:
            continue
        paper = record.paper_auction if record.game == AUCTION else record.leaderboard
        places = [place]
        if place == ("Table 5", "T1"):
            places += [(table, column) for table, column in DEFAULT_COLUMN.items()]
        rows += [(record.model, table, column, record.game, paper, record.leaderboard) for table, column in places]
    if not rows:
        return pd.DataFrame(columns=COLUMNS)
    cells = (pd.DataFrame(rows, columns=COLUMNS[:-1])
             .groupby(["model", "table", "column", "game"], as_index=False)
             .agg(paper=("paper", "mean"), leaderboard=("leaderboard", "mean"), matches=("paper", "size")))
    complete = cells.groupby(["model", "table", "column"]).filter(lambda c: set(c["game"]) == set(GAMES))
    overall = (complete.groupby(["model", "table", "column"], as_index=False)
               .agg(paper=("paper", "mean"), leaderboard=("leaderboard", "mean"), matches=("matches", "sum"))
               .assign(game="overall"))
    order = {game: i for i, game in enumerate([*GAMES, "overall"])}
    table = pd.concat([cells, overall[COLUMNS]], ignore_index=True)
    return table.sort_values(["model", "table", "column", "game"], key=lambda c: c.map(order) if c.name == "game"
                             else c, ignore_index=True)[COLUMNS]
