"""What makes a dashboard view shareable: its selection in the URL (st.query_params, so a copied
link opens the same view), its tables as CSV and Parquet downloads, and the whole page as one
self-contained HTML report (tables and plotly figures, plotly.js inlined once).

Signatures (every widget keeps its value in `st.query_params[key]`, read once per session):
    url_multiselect(label, options, key, default=None) -> list[str]
    url_selectbox(label, options, key, default=None) -> option
    url_date_range(label, lo, hi, key) -> (date, date)
    url_text(label, key, default="") -> str
    url_toggle(label, key, default=False, help=None) -> bool
    url_int(label, lo, hi, key, default=None) -> int          (a slider)
    filter_bar(options, games=True, report=None, db=None) -> Selection  (and the report's header)
    cached(fn, db, **kwargs) -> DataFrame;  slow_scorer_wanted(what, options, games, key) -> bool
    to_parquet(df) -> bytes;  download_table(df, name);  show_table(report, title, df, name, helps=None)
    show_wide_table(report, title, df, name, aside);  win_rates_view(agent_figures rows) -> DataFrame
    readable(df) -> DataFrame  (the one number format: engine/numbers.py)
    links.transcripts_link(selection, game, agent, variant) -> str;  links.linked_selection(get_all, game)
    selection_of(filters) -> dict;  runs_of(filters, options) -> list[str]
    Report(title): .scope(db, selection, runs) .text(markdown) .table(title, df) .figure(title, fig)
                   .html() -> str .download(name)
"""

from __future__ import annotations

import html
import importlib
import io
import itertools
import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from engine import numbers
from engine.headline import DEFINITIONS
from engine.metrics.magic import ABILITIES, RADAR_SCALE, ROLE_WIN_RATES, TABLE_2
from engine.numbers import readable
from engine.precision import fixed, fixed_nested
from engine.selection import Selection
from engine.suites import Scorer
from engine.wording import count
from pages.shared.markdown import plain


# ---------------------------------------------------------------- selection in the URL
def _remember(key: str, value: list[str] | str | None) -> None:
    if value in (None, "", []):
        st.query_params.pop(key, None)
    else:
        st.query_params[key] = value


NOTICE_AREA, PENDING_NOTICES = "_link_notice_area", "_link_notices"  # session keys, reset by every run of a page


def link_notice(text: str) -> None:
    """A notice about the page's link (an unknown page, match or option: what is shown instead) in the area right
    under the page's title (`notice_area`), so it is seen before what the page shows instead; where the page has no
    such area, where it is called. One line of plain text: a link's values come from whoever wrote the link, so
    they must not become markdown or HTML."""
    area = st.session_state.get(NOTICE_AREA)
    (st if area is None else area).warning(plain(text), icon=":material/link_off:")


def start_notices(pending: list[str] | None = None) -> None:
    """Before a page runs (app.py): forget the last run's notice area; `pending` notices wait for the next one."""
    st.session_state.pop(NOTICE_AREA, None)
    st.session_state[PENDING_NOTICES] = list(pending or [])


def notice_area() -> None:
    """The place for this run's link notices, right under the title (pages/shared/opening.py), and those pending."""
    st.session_state[NOTICE_AREA] = st.container()
    for text in st.session_state.pop(PENDING_NOTICES, []):
        link_notice(text)


def _unknown_in_link(label: str, values: list[str], instead: str) -> None:
    """The link asked for what is not here (a mistyped or stale link, another database), and what is shown
    `instead`, rather than silently showing something else: a `link_notice` at the top of the page."""
    if values:
        quoted = ", ".join(f"'{v if len(v) <= 40 else v[:39] + '…'}'" for v in values)
        link_notice(f"Unknown {label.lower()} {quoted} in the link: {instead}.")


def url_multiselect(label: str, options: list[str], key: str, default: list[str] | None = None) -> list[str]:
    """A multiselect whose choice lives in the URL as repeated `key=` parameters (unknown ones are said, then
    left out)."""
    options = list(options)
    unknown = []
    if key not in st.session_state:
        linked = st.query_params.get_all(key)
        st.session_state[key] = [o for o in linked or default or [] if o in options]
        unknown = [o for o in linked if o not in options]
    chosen = st.multiselect(label, options, key=key)
    _unknown_in_link(label, unknown, "left out")
    _remember(key, chosen)
    return chosen


def url_selectbox(label: str, options: list[Any], key: str, default: Any = None) -> Any:
    """A selectbox whose choice lives in the URL (`key=<str(option)>`); falls back to `default`, then the first
    (a link's unknown value is said)."""
    options = list(options)
    if not options:
        return None
    names = [str(o) for o in options]
    unknown = []
    if key not in st.session_state:
        wanted = st.query_params.get(key)
        fallback = default if default in options else options[0]
        st.session_state[key] = options[names.index(wanted)] if wanted in names else fallback
        unknown = [wanted] if wanted and wanted not in names else []
    chosen = st.selectbox(label, options, key=key)
    _unknown_in_link(label, unknown, f"showing {chosen}")
    _remember(key, str(chosen))
    return chosen


def url_text(label: str, key: str, default: str = "") -> str:
    """A text input kept in the URL as `key=<text>`."""
    if key not in st.session_state:
        st.session_state[key] = st.query_params.get(key, default)
    value = st.text_input(label, key=key)
    _remember(key, value if value != default else None)
    return value


def url_toggle(label: str, key: str, default: bool = False, help: str | None = None) -> bool:  # noqa: A002
    """A checkbox kept in the URL as `key=1` / `key=0` (absent: the default)."""
    if key not in st.session_state:
        st.session_state[key] = {"1": True, "0": False}.get(st.query_params.get(key, ""), default)
    value = st.checkbox(label, key=key, help=help)
    _remember(key, None if value == default else str(int(value)))
    return value


def url_int(label: str, lo: int, hi: int, key: str, default: int | None = None) -> int:
    """An integer slider from lo to hi kept in the URL (`key=<n>`); out-of-range links clamp to the range."""
    fallback = lo if default is None else default
    if key not in st.session_state or not lo <= st.session_state[key] <= hi:
        try:
            wanted = int(st.query_params.get(key, fallback))
        except ValueError:
            wanted = fallback
        st.session_state[key] = min(max(wanted, lo), hi)
    value = st.slider(label, lo, hi, key=key) if hi > lo else lo
    _remember(key, None if value == fallback else str(value))
    return value


def url_date_range(label: str, lo: date, hi: date, key: str) -> tuple[date, date]:
    """A from-to date input kept in the URL as `key=YYYY-MM-DD..YYYY-MM-DD`."""
    if key not in st.session_state:
        start, end = lo, hi
        raw = st.query_params.get(key, "")
        if ".." in raw:
            try:
                start, end = (date.fromisoformat(part) for part in raw.split("..", 1))
            except ValueError:
                pass
        st.session_state[key] = (start, end)
    value = st.date_input(label, key=key)
    start, end = (tuple(value) + (None, None))[:2] if isinstance(value, (tuple, list)) else (value, value)
    start, end = start or lo, end or start or hi
    _remember(key, None if (start, end) == (lo, hi) else f"{start.isoformat()}..{end.isoformat()}")
    return start, end


def filter_bar(options: pd.DataFrame, games: bool = True, report: Report | None = None,
               db: str | Path | None = None) -> Selection:
    """Run, game, preset and date filters over `queries.filter_options` rows, kept in the URL; `report`'s
    header then states `db`, the filters and the runs they keep."""
    filters = _filter_widgets(options, games)
    if report is not None:
        report.scope(db or "", selection_of(filters), runs_of(filters, options))
    return filters


def _filter_widgets(options: pd.DataFrame, games: bool) -> Selection:
    if options.empty:
        return Selection()
    names = dict(zip(options["run_id"], options["run_name"].fillna(""), strict=False))
    cols = st.columns(4 if games else 3)
    with cols[0]:
        runs = url_multiselect("Runs", sorted(names), "runs")
    picked_games: list[str] = []
    if games:
        with cols[1]:
            picked_games = url_multiselect("Games", sorted(options["game"].unique()), "games")
    with cols[-2]:
        presets = url_multiselect("Presets", sorted(options["preset"].dropna().unique()), "presets")
    with cols[-1]:
        lo, hi = pd.Timestamp(options["first_day"].min()).date(), pd.Timestamp(options["last_day"].max()).date()
        start, end = url_date_range("Finished between", lo, hi, "dates")
    return Selection(tuple(runs), tuple(picked_games), tuple(presets), None if start == lo else start,
                   None if end == hi else end)


# ---------------------------------------------------------------- slow scorers, once per database version
def _db_version(db: str | Path) -> tuple:
    """Changes whenever a writer commits (the file or its write-ahead log changes)."""
    stamps = []
    for path in (Path(db), Path(f"{db}.wal")):
        stat = path.stat() if path.exists() else None
        stamps.append((stat.st_mtime_ns, stat.st_size) if stat else None)
    return tuple(stamps)


@st.cache_data(show_spinner=False, max_entries=64)
def _cached_call(module: str, name: str, db: str, version: tuple, kwargs: tuple) -> pd.DataFrame:
    return getattr(importlib.import_module(module), name)(Path(db), **dict(kwargs))


def cached(fn, db: str | Path, **kwargs) -> pd.DataFrame:
    """`fn(db, **kwargs)` for scorers that read whole games in pandas (MAgIC's profile, WiS' tables,
    ratings): computed once per version of the database and reused across reruns and sessions. `fn` may be
    a function or a suite's `Scorer`."""
    if isinstance(fn, Scorer):
        fn = fn.resolve()
    return _cached_call(fn.__module__, fn.__name__, str(db), _db_version(db), tuple(sorted(kwargs.items())))


SLOW_SCORER_LIMIT = 1_500  # matches TrueSkill replays from scratch in ~300 ms (bench/dashboard.py measures the rate)


def slow_scorer_wanted(what: str, options: pd.DataFrame, games: tuple[str, ...] | None, key: str) -> bool:
    """A scorer that must replay a selection from scratch (TrueSkill over a filtered selection, whose replay is not
    saved) takes seconds at 50,000 matches: it runs by itself up to SLOW_SCORER_LIMIT matches of its `games`
    (None: every game; counted from `queries.filter_options` rows), above it on request."""
    rows = options if games is None else options[options["game"].isin(games)]
    matches = int(rows["matches"].sum())
    return matches <= SLOW_SCORER_LIMIT or st.checkbox(f"Compute {what} over {count(matches, 'match')} (slow)", key=key)


# ---------------------------------------------------------------- downloads
def to_parquet(df: pd.DataFrame) -> bytes:
    buffer = io.BytesIO()
    df.to_parquet(buffer, index=False)
    return buffer.getvalue()


def download_table(df: pd.DataFrame, name: str) -> None:
    """CSV and Parquet download buttons for one table, its numbers at the arena's one precision
    (engine/precision.py: the same data downloads the same digits)."""
    df = fixed(df)
    left, right = st.columns(2)
    left.download_button("CSV", df.to_csv(index=False).encode(), f"{name}.csv", "text/csv", key=f"csv_{name}")
    right.download_button("Parquet", to_parquet(df), f"{name}.parquet", "application/octet-stream",
                          key=f"parquet_{name}")


def selection_of(filters: Selection) -> dict[str, str]:
    """The filters in words, for a report's header (only those that narrow the view)."""
    dates = (f"{filters.date_from or 'the first'} to {filters.date_to or 'the last'}"
             if filters.date_from or filters.date_to else "")
    named = {"runs": ", ".join(filters.run_ids), "games": ", ".join(filters.games),
             "presets": ", ".join(filters.presets), "finished": dates}
    return {k: v for k, v in named.items() if v}


def runs_of(filters: Selection, options: pd.DataFrame) -> list[str]:
    """The runs whose finished matches the filters keep, as `name (run_id): N matches`, from
    `queries.filter_options` rows (one per run, game and preset)."""
    if options.empty:
        return []
    rows = options
    for column, values in (("run_id", filters.run_ids), ("game", filters.games), ("preset", filters.presets)):
        if values:
            rows = rows[rows[column].isin(values)]
    if filters.date_from:
        rows = rows[pd.to_datetime(rows["last_day"]).dt.date >= filters.date_from]
    if filters.date_to:
        rows = rows[pd.to_datetime(rows["first_day"]).dt.date <= filters.date_to]
    kept = rows.groupby(["run_id", rows["run_name"].fillna("")], sort=True)["matches"].sum()
    return [f"{name or run_id} ({run_id}): {count(int(n), 'match')}" for (run_id, name), n in kept.items()]


@dataclass
class Report:
    """The page as it was shown, collected section by section and offered as one HTML file whose header
    says what it was made from: the database, the selection, the runs in it, and when."""

    title: str
    parts: list[str] = field(default_factory=list)
    db: str = ""
    selection: dict[str, str] = field(default_factory=dict)
    runs: list[str] = field(default_factory=list)
    _plotly_inlined: bool = False

    def scope(self, db: str | Path, selection: dict[str, str] | None = None, runs: list[str] | None = None) -> None:
        """What the page shows: its database, the selection in words (empty: everything) and the runs it covers."""
        self.db, self.selection, self.runs = str(db), dict(selection or {}), list(runs or [])

    def header(self) -> str:
        made = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
        selection = "; ".join(f"{k}: {v}" for k, v in self.selection.items()) or "everything in the database"
        runs = "".join(f"<li>{html.escape(r)}</li>" for r in self.runs)
        return ("<table class='scope'>"
                f"<tr><th>Database</th><td>{html.escape(self.db or 'not stated')}</td></tr>"
                f"<tr><th>Selection</th><td>{html.escape(selection)}</td></tr>"
                f"<tr><th>Runs</th><td>{len(self.runs)}<ul>{runs}</ul></td></tr>"
                f"<tr><th>Made</th><td>{made}</td></tr></table>")

    def text(self, markdown: str) -> None:
        self.parts.append(f"<p>{html.escape(markdown)}</p>")

    def table(self, title: str, df: pd.DataFrame) -> None:
        shown = readable(df)  # as the page shows it: blanks, yes/no, 2 decimals (text already shown passes as is)
        self.parts.append(f"<h2>{html.escape(title)}</h2>" + shown.to_html(index=False, na_rep=""))

    def figure(self, title: str, fig) -> None:
        fig = go.Figure(fixed_nested(fig.to_dict()))  # its numbers at the one precision, as the tables'
        self.parts.append(f"<h2>{html.escape(title)}</h2>" + fig.to_html(
            full_html=False, include_plotlyjs=not self._plotly_inlined))
        self._plotly_inlined = True

    def html(self) -> str:
        body = "\n".join(self.parts)
        return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(self.title)}</title>"
                "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
                "td,th{border:1px solid #ccc;padding:2px 6px}</style></head>"
                f"<body><h1>{html.escape(self.title)}</h1>{self.header()}{body}</body></html>")

    def download(self, name: str) -> None:
        st.download_button("Download this page as an HTML report", self.html().encode(), f"{name}.html",
                           "text/html", key=f"report_{name}")


# a lineup's seats ("a, b, b"), split where a comma is not inside an agent's "(t=1.0, prompt v2)"
SEAT_SEPARATOR = re.compile(r", (?![^(]*\))")


def compact_lineup(lineup: str | None) -> str:
    """A lineup with the same agent in seats in a row named once with how many ("bot:equilibrium, bot:random ×9"),
    seat order kept, a winner's mark after its agent ("bot:random (won) ×2"): a ten-seat lineup fits the match
    lists' column (Overview, Transcripts)."""
    seats = SEAT_SEPARATOR.split(lineup) if isinstance(lineup, str) and lineup else []  # none: blank
    return ", ".join(seat if n == 1 else f"{seat} ×{n}"
                     for seat, n in ((s, len(list(g))) for s, g in itertools.groupby(seats)))


# MAgIC's seven abilities under short headers (the full name and scale in the header's tooltip), so that the profile
# shows every ability in a 1400 px window; shown 0-100 as the radar draws them
SHORT_ABILITIES = dict(zip(ABILITIES, ["Judg.", "Reas.", "Decep.", "Self-aw.", "Coop.", "Coord.", "Rational."],
                           strict=True))

# What a column of the figures' and papers' tables means, one line each: shown as the header's tooltip by every
# table and printed under the Games page's tables. `game:column` where a game's column means something of its own.
COLUMN_HELP = {
    "step": "the round (or step) of the match",
    "matches": "matches behind the row (a per-round curve: the matches that reached that round)",
    "tictactoe:matches": "contested matches (self-play left out): the win rate's matches",
    "connect_four:matches": "contested matches (self-play left out): the win rate's matches",
    "win_rate": "(seats won + half the seats drawn) / seats held, over contested matches (engine/headline.py)",
    "moves": "the agent's moves, over every match (self-play included)",
    "illegal_moves": "moves whose first answer was rejected or that broke the rules",
    "mean": "the mean of the numbers the players chose that round",
    "guessing_game:target": "the number to come closest to: the game's ratio (2/3) x that round's mean",
    "winning_number": "the chosen number closest to the target that round",
    "go_count": "players who went to the bar that round",
    "share_go": "share of the players who went to the bar that round",
    "crowded": "share of the matches where the bar was crowded that round (more went than its capacity)",
    "battle_royale:hit": "share of the matches where that round's shot hit",
    "players_left": "players still in the game after that round's shot",
    "accepts": "votes accepting that round's proposal, the proposer's own included",
    "aboard": "pirates still aboard (voting) that round",
    "passed": "share of the matches where that round's proposal passed",
    "mean_reward_per_move": "ConnectFour's reward of a move, V(s') - V(s): how much it improved the mover's "
                            "position by the solver's value, averaged over the agent's moves",
    "mean_reward_per_game": "the sum of that reward over the agent's moves in a match, averaged over matches",
    "share": "share of the agent's Hold'em decisions that were this action",
    "mean_win_prob": "mean Monte-Carlo probability that the agent's hand wins, when it took this action",
    "vote_accuracy": "a civilian's votes for the spy / its votes cast (abstentions aside)",
    "foul_rate": "fouls (an empty or late speech, one stating the speaker's own word, or one repeating an earlier "
                 "speech) / speeches",
    "survival_rounds": "mean rounds the agent stayed in the game before being voted out",
    "illegal_move_rate": "illegal moves / moves, over every match (self-play included): a first answer rejected "
                         "(re-asked or a random fallback) or a move on a taken cell / full column",
    "parse_failures": "decisions whose answer was re-asked, illegal or replaced by a random fallback move",
    **{short: f"{name}: 0-100, the radar's scale (MAgIC paper §3.3)" for name, short in SHORT_ABILITIES.items()},
    "valid": DEFINITIONS["valid moves"], "fb wins": DEFINITIONS["fallback wins"], "$/match": DEFINITIONS["cost"],
    "seats": "seats the agent held in its contested matches (a match may seat it more than once)",
    "condition": "the model's prompt version, sampling temperature and prompting strategy (and its max_tokens where "
                 "it played several; blank for a bot)",
    "seats played": "seats the agent held: Who is Spy counts each seat as a game played (its ranking subtracts one "
                    "per seat)",
    "roles": "MAgIC's role win rates the mean role win rate averages, of its seven (fewer: partial)",
}


def column_help(columns, game: str | None = None) -> dict[str, str]:
    """The `COLUMN_HELP` line of each column that has one, the game's own line first."""
    helps = {c: COLUMN_HELP.get(f"{game}:{c}", COLUMN_HELP.get(str(c))) for c in columns}
    return {c: text for c, text in helps.items() if text}


TABLE_PX = 936  # a table's room in a 1400 px window (938 measured in Chromium)
CHAR_PX, PAD_PX, MAX_COLUMN_PX = 6.5, 26, 320  # px per character of the table font (5.8 measured), padding


def column_width(column: pd.Series, label: str) -> int:
    """Pixels that show a column's longest cell and its label whole (no "mean role wi..."), at most MAX_COLUMN_PX:
    numbers keep narrow columns, and only long text (a lineup, an error) is cut, visibly, with its full text on
    hover."""
    longest = max([len(label), *(len(str(v)) for v in column.head(500))])
    return min(round(CHAR_PX * longest) + PAD_PX, MAX_COLUMN_PX)


def fitted_columns(display: pd.DataFrame, column_config: dict | None, helps: dict[str, str] | None = None,
                   fill: tuple[str, ...] = (), least: int = 100) -> tuple[pd.DataFrame, dict]:
    """The table with its link columns first (an "open" link past the right edge is never seen) and the first
    column pinned, each column as wide as its content (`column_width`) unless its config sets a width, and the
    definitions `helps` (column -> text) as its header's tooltip. The long texts named in `fill` (a lineup, an
    error) share evenly what the others leave of TABLE_PX, each at least `least` px: the table fits its window,
    and a cut cell reads whole on a double click."""
    config = {k: dict(v) if isinstance(v, dict) else {"label": v} for k, v in (column_config or {}).items()}
    links = [c for c in display.columns if config.get(c, {}).get("type_config", {}).get("type") == "link"]
    display = display[links + [c for c in display.columns if c not in links]]
    for position, column in enumerate(display.columns):
        own = config.setdefault(column, {})
        own["width"] = own.get("width") or column_width(display[column], str(own.get("label") or column))
        own["help"] = own.get("help") or (helps or {}).get(column) or COLUMN_HELP.get(str(column))
        own["pinned"] = own.get("pinned") or position == 0
    filled = [c for c in fill if c in display.columns]
    if filled:
        left = TABLE_PX - sum(config[c]["width"] for c in display.columns if c not in filled)
        for column in filled:
            config[column]["width"] = max(left // len(filled), least)
    return display, config


def match_link_column(match_ids: pd.Series, help: str) -> Any:  # noqa: A002 - Streamlit's own name
    """The column of `links.match_link`s of a match list, read as the match ids themselves (the link is the id:
    one column, not two)."""
    return st.column_config.LinkColumn("match", display_text=r"match=(.+)", width=column_width(match_ids, "match"),
                                       help=help)


def with_condition(shown: pd.DataFrame, parts: list[str]) -> pd.DataFrame:
    """`shown` with a model's condition columns `parts` (prompt version, temperature, strategy, as shown) in one
    column where the first was ("v1 · 1.00 · vanilla", blank for a bot): narrower than three."""
    at = list(shown.columns).index(parts[0])
    joined = [" · ".join(v for v in row if v) for row in shown[parts].itertuples(index=False)]
    shown = shown.drop(columns=parts)
    shown.insert(at, "condition", joined)
    return shown


def show_table(report: Report, title: str, df: pd.DataFrame, name: str, shown: pd.DataFrame | None = None,
               column_config: dict | None = None, helps: dict[str, str] | None = None,
               fill: tuple[str, ...] = ()) -> None:
    """A table on the page (as `readable` text unless `shown` is given) that fits its columns (`fitted_columns`,
    the long texts `fill` sharing what the others leave), in the report, and as CSV/Parquet downloads of the
    numbers themselves."""
    display, config = fitted_columns(readable(df) if shown is None else shown, column_config, helps, fill=fill)
    st.dataframe(display, hide_index=True, width="stretch", column_config=config)
    download_table(df, name)
    report.table(title, display)


MEAN_ROLE_WIN_RATE = "mean role win rate"  # MAgIC's Table 1 "win rate": not the win rate of engine/headline.py
# MAgIC's profile beyond the abilities, shown apart so that the table fits a 1400 px window
MAGIC_ASIDE = {"The seven role win rates": ROLE_WIN_RATES, "MAgIC's Table 2": TABLE_2}
WIS_BY_ROLE = [f"{role}_{figure}" for figure in ("win_rate", "mean_score", "foul_rate", "survival_rounds")
               for role in ("spy", "civilian")]
# a paper's own number that is not the one win rate of engine/headline.py, named so that it cannot pass for it;
# Who-is-Spy counts every seat a player held as a game played (its ranking subtracts one per seat)
PAPER_COLUMNS = {"magic": {"win_rate": MEAN_ROLE_WIN_RATE}, "wis": {"games": "seats played"}}
# LLMArena's raw figures behind its normalized columns (7 game columns, Hanabi's among them, fill the window)
LLMARENA_RAW = {"Raw figures, before normalizing to the best": ["bid_reward", "hanabi_reward", "undercover_win_rate"]}
PAPER_ASIDE = {"magic": MAGIC_ASIDE, "wis": {"Figures by role (spy, civilian)": WIS_BY_ROLE},
               "llmarena": LLMARENA_RAW}  # fits 1400 px
# the columns that say who and how well, shown right after the first so they stay in view on a narrow window
PAPER_KEY = {"gamabench": ["overall", "matches", "setting", "source"], "magic": ["win_rate", "roles", "area"],
             "llmarena": ["average", "games"], "wis": ["ranking", "games", "win_rate"]}
# an average over parts: (its column, the column counting its parts, the whole, what a part is)
COVERAGE = {"magic": ("win_rate", "roles", 7, "roles"), "llmarena": ("average", "games", 7, "games")}


def partial_rows(board: pd.DataFrame, suite: str) -> pd.Series:
    """Whether each row of a paper's own table averages only some of its parts (`COVERAGE`): False elsewhere."""
    if suite not in COVERAGE or board.empty:
        return pd.Series(False, index=board.index)
    _, parts, whole, _ = COVERAGE[suite]
    return board[parts].fillna(0) < whole


def complete_first(board: pd.DataFrame, suite: str) -> pd.DataFrame:
    """A paper's own table in reading order: ranked rows first (by `rank`, where the table has one), then the
    complete unranked rows, then the partial rows (an average over 1 of 7 games must not lead at "100.00"), those
    covering more parts first; otherwise in the table's own order."""
    parts = board[COVERAGE[suite][1]] if suite in COVERAGE else pd.Series(0, index=board.index)
    key = pd.DataFrame({"unranked": board["rank"].isna() if "rank" in board else False,
                        "rank": board["rank"] if "rank" in board else 0,
                        "partial": partial_rows(board, suite), "covers": -parts.fillna(0)}, index=board.index)
    if "source" in board:  # a published row stays right under our row of its model (`published.beside`)
        key = key.mask(board["source"] == "published").ffill()
    key["row"] = range(len(key))
    # the partial rows: those covering more parts first (4 of 7 games above 1 of 7, whatever its value)
    key["covers"] = key["covers"].where(key["partial"].astype(bool), 0)
    order = key.sort_values(["unranked", "partial", "rank", "covers", "row"], kind="stable",
                            na_position="last").index
    return board.loc[order]

COUNTS = {"matches", "games", "roles", "seats", "wins", "draws", "moves", "decisions", "scores"}  # whole numbers


def own_table_view(board: pd.DataFrame, suite: str) -> pd.DataFrame:
    """A paper's own table (`engine.suites.own_table`) as every page shows it: its key columns first, an average
    over only some of its parts (LLMArena's games, MAgIC's seven roles) marked beside its value and in its count
    ("1 of 7 roles (partial)") and its row put last (`complete_first`), and its columns named so that none passes
    for the headline's win rate."""
    board = complete_first(board, suite)
    scores = [c for c in board.columns if pd.api.types.is_float_dtype(board[c]) and c not in COUNTS]
    shown = readable(board, dict.fromkeys(scores, 2))  # one format a column: 100.00 beside 91.22, never "100"
    first = list(board.columns[:1])
    key = [c for c in PAPER_KEY.get(suite, []) if c in board.columns and c not in first]
    shown = shown[first + key + [c for c in board.columns if c not in first + key]]
    if suite in COVERAGE and not board.empty:
        value, parts, whole, _ = COVERAGE[suite]
        partial = board[parts] < whole
        shown[value] = [f"{text} (partial)" if text and short else text
                        for text, short in zip(shown[value], partial, strict=True)]
        shown[parts] = [f"{int(n)} of {whole}" if n == n else "" for n in board[parts]]  # the header names the unit
    if suite == "magic":
        for ability in ABILITIES:
            if ability in board:
                shown[ability] = (board[ability] * RADAR_SCALE).map(numbers.number)
        shown = shown.rename(columns=SHORT_ABILITIES)
    condition = [c for c in ("prompt_version", "temperature", "strategy") if c in shown]
    if len(condition) > 1:
        shown = with_condition(shown, condition)
    # the key columns and MAgIC's figures stay even when blank (`overall` blank: not all eight games played; an
    # ability no one has: the profile always has seven); a bot's strategy or a game no row played goes
    kept = {*first, *key, *SHORT_ABILITIES.values(), *ROLE_WIN_RATES, *TABLE_2}
    blank = [c for c in shown.columns if c not in kept and shown[c].eq("").all()]
    if "source" in shown and shown["source"].eq("ours").all():
        blank.append("source")  # nothing published beside ours: the column would only repeat "ours"
    return shown.drop(columns=blank).rename(columns=PAPER_COLUMNS.get(suite, {}))


def show_wide_table(report: Report, title: str, df: pd.DataFrame, name: str, aside: dict[str, list[str]],
                    shown: pd.DataFrame | None = None, helps: dict[str, str] | None = None) -> None:
    """A table too wide for a 1400 px window (MAgIC's profile: 20 columns and more): its first column pinned and
    each group of `aside` columns (title -> columns) in an expander beside the first, so the page shows what
    matters; the downloads hold every column."""
    display = readable(df) if shown is None else shown
    first = display.columns[0]
    apart = {c for columns in aside.values() for c in columns}
    show_table(report, title, df, name, shown=display[[c for c in display.columns if c not in apart]], helps=helps,
               fill=("setting",))  # "custom: players=3, rounds=1": cut where it must, whole on a double click
    for label, columns in aside.items():
        present = [c for c in columns if c in display.columns]
        if present:
            with st.expander(label):
                part, config = fitted_columns(display[[first, *present]], None, helps)
                st.dataframe(part, hide_index=True, width="stretch", column_config=config)


def win_rates_view(rows: pd.DataFrame) -> pd.DataFrame:
    """`engine.headline.agent_figures` rows as every page shows them (one definition, one look): agent, contested
    matches, seats, wins, draws, the win rate with its interval, valid moves, fallback wins, cost per match (the
    last three under the headline's short labels, defined in their headers' tooltips: `COLUMN_HELP`)."""
    return pd.DataFrame({
        "agent": rows["agent"], "matches": rows["matches"].map(numbers.number),
        "seats": rows["seats"].map(numbers.number), "wins": rows["wins"].map(numbers.number),
        "draws": rows["draws"].map(numbers.number),
        "win rate (95% CI)": [numbers.interval(*v, as_percent=True, decimals=1)
                              for v in zip(rows["win_rate"], rows["win_lo"], rows["win_hi"], strict=True)],
        "valid": rows["valid_rate"].map(numbers.percent),
        "fb wins": rows["fallback_wins"].map(numbers.number),
        "$/match": rows["cost_per_match"].map(numbers.usd)})
