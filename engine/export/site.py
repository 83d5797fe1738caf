"""What pages the site has and how they link: the index (the runs, the suites, the games), a page per suite
(its headline table, the agents x games grid, the paper's own table), a page per game (the papers' figures for
it, the win rates), a page per number (the matches it counts, each linking to its transcript) and a page per
match (its turns). Every number is read through the functions the dashboard's pages call (engine/headline.py,
engine/suites, engine/queries.py, engine/transcripts.py); the site needs no server and no Streamlit.

    matches/<match>.html        a match, turn by turn (engine/export/transcript.py)
    lists/<what>-<hash>.html    the matches behind one number
    suites/<suite>.html, games/<game>.html, index.html, assets/ (plotly.js once, the style sheet)
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from engine import headline, published, queries, store, transcripts
from engine.export import charts
from engine.export.html import definitions, esc, link, note, note_link, page, prose, relative, table
from engine.export.transcript import match_body
from engine.figures import declared_figures
from engine.numbers import interval, number, on_one_scale, percent, readable, usd
from engine.progress import match_progress
from engine.selection import Selection, Variant
from engine.suites import all_suites, own_table, suites_of
from engine.wording import count, sentence_start

BATCH = 200  # matches written per read-only connection: a run writing the same file waits no longer than that


def file_name(text: str) -> str:
    """`text` as a file name that is the same on every system: itself when it is short and safe (a match id),
    else its safe characters and a short hash of the whole (two agents whose names differ only in unsafe
    characters get two files)."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("._")[:60]
    return text if safe == text else f"{safe}-{hashlib.sha1(text.encode()).hexdigest()[:8]}"


def match_path(match_id: str) -> str:
    return f"matches/{file_name(match_id)}.html"


@dataclass(frozen=True)
class MatchList:
    """The matches behind a number: what the number is, in words, and the search that finds exactly them."""

    title: str
    counts: str
    search: transcripts.MatchSearch


@dataclass
class Site:
    """The pages of one export, written to `root` as they are made."""

    db: Path
    root: Path
    selection: Selection
    lists: dict[str, MatchList] = field(default_factory=dict)
    matches: dict[str, None] = field(default_factory=dict)  # every match a list links to, in order
    pages: int = 0

    def write(self, path: str, title: str, body: str, charts: bool = False) -> None:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(page(path, title, body, charts), encoding="utf-8")
        self.pages += 1

    def behind(self, title: str, counts: str, search: transcripts.MatchSearch) -> str:
        """The path of the page listing the matches of `search` (made once, however many numbers link to it)."""
        path = f"lists/{file_name(title)}.html"
        self.lists.setdefault(path, MatchList(title, counts, search))
        return path

    def agent_matches(self, agent: str, scope: Selection, game: str | None, what: str) -> str:
        """The page of `agent`'s matches (of `game`, when given) that `scope` keeps."""
        return self.behind(f"{agent}: {what}", f"the matches of {what} with {agent} at the table, as the number "
                           "counts them (finished, self-play of a competitive game left out)",
                           transcripts.MatchSearch(game=game, agents=(agent,), within=scope))


# ---------------------------------------------------------------- the suites
RANKED = {"rating": (False, 0), "win_rate": (True, 1), "score": (False, 2)}  # (as a percentage, decimals)


def headline_view(table_: pd.DataFrame, measure) -> pd.DataFrame:
    """The headline table as text: rank (blank: not ranked), agent (provisional marked), the ranked number with
    its interval (or why it has none), matches, win rate (unless it is the ranked number), valid moves, fallback
    wins and dollars per match."""
    rate, places = RANKED[measure.by]
    games = table_["games"].max()
    ranked = [note_ or interval(v, lo, hi, as_percent=rate, decimals=places)
              + (f" (partial: {n} of {games} games)" if part else "")
              for v, lo, hi, note_, part, n in zip(table_["value"], table_["value_lo"], table_["value_hi"],
                                                   table_["note"], table_["partial"], table_["games"], strict=True)]
    return pd.DataFrame({
        "rank": table_["rank"].map(number),
        "agent": [a + (" (provisional)" if p else "") for a, p in zip(table_["agent"], table_["provisional"],
                                                                       strict=True)],
        f"{measure.title} (95% CI)": ranked, "matches": table_["matches"].map(number),
        "win rate": table_["win_rate"].map(percent), "valid": table_["valid_rate"].map(percent),
        "fb wins": table_["fallback_wins"].map(number), "$/match": table_["cost_per_match"].map(usd),
    }).drop(columns=["win rate"] if measure.by == "win_rate" else [])  # ranked by it: its column is the third


HEADLINE_HELP = {"valid": "valid moves", "fb wins": "fallback wins", "$/match": "cost"}


def suite_page(site: Site, suite) -> str | None:
    """The suite's page (None when the selection holds none of its games): headline, grid, the paper's table."""
    selection = site.selection
    board = headline.headline(site.db, suite.name, selection)
    own = own_table(site.db, suite.name, selection)
    if board.empty and own.empty:
        return None
    path = f"suites/{file_name(suite.name)}.html"
    body = ""
    if not board.empty:
        counted, self_play = headline.coverage(site.db, suite.name, selection)
        scope = replace(selection.within(suite.variants), contested=True)
        measure = suite.headline
        shown = headline_view(board, measure)
        hrefs = [relative(path, site.agent_matches(a, scope, None, f"{suite.title}'s games")) for a in board["agent"]]
        body += "<h2>Headline</h2>" + note(
            f"Ranked by the {measure.title}. Counts {', '.join(counted) or 'no game'}"
            + (f"; leaves out {', '.join(self_play)} (only self-play in this selection)" if self_play else "")
            + f". Only contested matches count: {headline.SELF_PLAY}. Fewer than {headline.MIN_MATCHES} contested "
              "matches: provisional, not ranked. A number of matches opens those matches.")
        body += table(shown, {"matches": hrefs}, numeric=("rank", "matches", "win rate", "valid", "fb wins"))
        body += "<details><summary>What each number means</summary>" + definitions(
            {c: headline.DEFINITIONS[HEADLINE_HELP.get(c, c)] for c in shown.columns
             if HEADLINE_HELP.get(c, c) in headline.DEFINITIONS}
            | {sentence_start(measure.title): headline.DEFINITIONS[measure.by.replace("_", " ")]}) + "</details>"
        body += grid(site, path, suite, scope)
    if not own.empty:
        paper = queries.published_rows(site.db, suite.name)  # the paper's rows for the models played here
        own = published.beside(own, paper)
        body += f"<h2>{esc(suite.paper + chr(39) + 's own table' if suite.paper else 'Per game')}</h2>"
        body += prose(suite.caption) + table(shown_columns(readable(on_one_scale(own, suite.layout.units))))
    site.write(path, suite.title, body)
    return path


def shown_columns(shown: pd.DataFrame) -> pd.DataFrame:
    """A paper's table without the columns no row fills (a game not played, a bot's strategy), nor `source` when
    every row is ours: what is left fits the window."""
    blank = [c for c in shown.columns[1:] if shown[c].eq("").all()]
    if "source" in shown and shown["source"].eq("ours").all():
        blank.append("source")
    return shown.drop(columns=blank)


def grid(site: Site, path: str, suite, scope: Selection) -> str:
    """Agents x games: each cell the agent's win rate in that game with the contested matches behind it
    ("14.3% (21)"), a link to exactly those matches (the suite's rule set of the game)."""
    cells = headline.agent_figures(site.db, scope, by_game=True)
    rule_set = {v.game: v for v in suite.variants}
    games = [g for g in suite.games if g in set(cells["game"])]
    agents = sorted(cells["agent"].unique())
    shown = pd.DataFrame({"agent": agents})
    hrefs: dict[str, list[str | None]] = {}
    for game in games:
        mine = cells[cells["game"] == game].set_index("agent")
        pool = replace(scope, variants=(rule_set[game],))
        label = rule_set[game].label
        shown[label] = [f"{percent(mine.at[a, 'win_rate'])} ({number(mine.at[a, 'matches'])})" if a in mine.index
                        else "" for a in agents]
        hrefs[label] = [relative(path, site.agent_matches(a, pool, game, label)) if a in mine.index else None
                        for a in agents]
    return ("<h2>Agents x games</h2>" + note(
        "Win rate (contested matches behind it), over each game's contested matches under the rules named in its "
        "column, every preset in the selection; a cell opens those matches.")
        + table(shown, hrefs, numeric=list(hrefs)))


# ---------------------------------------------------------------- the games
def game_page(site: Site, game: str) -> str:
    """The figures the suites playing `game` register for it, then its win rates per rule set."""
    path = f"games/{file_name(game)}.html"
    selection = site.selection.of_game(game)
    body, drawn = "", False
    for suite in suites_of(game):
        for figure in suite.figures_of(game):
            figures = figure.compute(site.db, selection)
            body += f"<h2>{esc(suite.title)}: {esc(figure.title)}</h2>"
            if figures.empty:
                body += note("Nothing recorded for this selection.")
                continue
            if figure.chart is not None:
                for chart in declared_figures(figure.chart, figures, f"{game}: {figure.title}"):
                    if chart.all_zero:  # an empty-looking chart: say why
                        body += note(f"{chart.title}: every value is 0.")
                    body += charts.chart_html(chart.figure)
                    drawn = True
            if figure.show_table:
                body += table(readable(on_one_scale(figures, suite.units_of(figure))))
    body += "<h2>Win rates</h2>" + note(f"Win rate: {headline.DEFINITIONS['win rate']}.")
    rates = headline.agent_figures(site.db, selection, by_game=True)
    if rates.empty:
        body += note(f"No contested {game} match in this selection (self-play only, or none).")
    for rule_set, rows in rates.groupby("rule_set", sort=True):
        rows = rows.sort_values("win_rate", ascending=False, kind="stable").reset_index(drop=True)
        variant = Variant.of(game, rule_set or None)
        pool = replace(selection, contested=True, variants=(variant,) if rule_set else None)
        body += f"<h3>{esc(variant.label)}</h3>" + charts.chart_html(charts.win_rates(rows, f"Win rate: "
                                                                                       f"{variant.label}"))
        drawn = True
        shown = pd.DataFrame({"agent": rows["agent"], "matches": rows["matches"].map(number),
                              "seats": rows["seats"].map(number), "wins": rows["wins"].map(number),
                              "draws": rows["draws"].map(number),
                              "win rate (95% CI)": [interval(*v, as_percent=True, decimals=1) for v in
                                                    zip(rows["win_rate"], rows["win_lo"], rows["win_hi"], strict=True)],
                              "valid": rows["valid_rate"].map(percent), "fb wins": rows["fallback_wins"].map(number),
                              "$/match": rows["cost_per_match"].map(usd)})
        hrefs = [relative(path, site.agent_matches(a, pool, game, variant.label)) for a in rows["agent"]]
        body += table(shown, {"matches": hrefs}, numeric=("matches", "seats", "wins", "draws", "fb wins"))
    site.write(path, game, body, charts=drawn)
    return path


# ---------------------------------------------------------------- the matches behind the numbers
LIST_COLUMNS = ["match_id", "game", "preset", "seed", "repeat", "status", "lineup", "parse_failures", "finished_at"]


def list_page(site: Site, path: str, listed: MatchList) -> None:
    """The matches of one number, newest first, each id a link to its transcript."""
    found = transcripts.find_matches(site.db, listed.search, limit=transcripts.count_matches(site.db, listed.search))
    site.matches.update(dict.fromkeys(found["match_id"]))
    hrefs = [relative(path, match_path(m)) for m in found["match_id"]]
    body = note(f"{count(len(found), 'match')}: {listed.counts}. A match id opens its turns.")
    if not found.empty:
        body += table(readable(found[LIST_COLUMNS]).rename(columns={"parse_failures": "failures"}),
                      {"match_id": hrefs}, numeric=("seed", "repeat", "failures"))
    site.write(path, listed.title, body)


# ---------------------------------------------------------------- the index
def selected_options(site: Site) -> pd.DataFrame:
    """`queries.filter_options` rows (a run, game and preset each) of the selected runs."""
    options = queries.filter_options(site.db)
    if site.selection.run_ids and not options.empty:
        options = options[options["run_id"].isin(site.selection.run_ids)]
    return options


def index_page(site: Site, options: pd.DataFrame, suite_paths: dict[str, str], game_paths: dict[str, str]) -> None:
    """The runs (each count opens its matches), the suites' pages and the games' pages."""
    made = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    body = table(pd.DataFrame({"database": [site.db.name], "runs": [", ".join(site.selection.run_ids) or "every run"],
                               "made": [made]}))
    body += "<h2>Runs</h2>"
    if options.empty:
        body += note("No finished match in this selection.")
    else:
        runs = options.groupby(["run_id", options["run_name"].fillna(""), options["source"].fillna("")],
                               sort=True)["matches"].sum().reset_index()
        hrefs = [site.behind(f"run {run}: every match", f"every finished match of run {run}",
                             transcripts.MatchSearch(within=Selection(run_ids=(run,)))) for run in runs["run_id"]]
        body += table(readable(runs).rename(columns={"run_name": "name"}), {"matches": hrefs}, numeric=("matches",))
    body += "<h2>Leaderboards</h2><ul>" + "".join(
        f"<li>{link(path, all_suites()[name].title)}</li>" for name, path in suite_paths.items()) + "</ul>"
    if game_paths:
        played = options.groupby("game")["matches"].sum()
        games = pd.DataFrame({"game": list(game_paths), "finished matches": [number(played[g]) for g in game_paths]})
        body += "<h2>Games</h2>" + note("Each game's figures and win rates.") + table(
            games, {"game": list(game_paths.values())}, numeric=("finished matches",))
    site.write("index.html", f"The study in {site.db.name}", body)


# ---------------------------------------------------------------- the whole site
def build(site: Site, progress: bool = False) -> None:
    """Every page of the site into `site.root`: the numbers' pages first (they name the lists), then the lists
    (they name the matches), then the matches (with a progress bar when `progress`: they are most of the time)."""
    # a read-only connection is shared page by page, never over the whole build: a run writing the same file
    # waits for one page's queries at most (the whole build held it a minute, and a killed run lost that minute)
    with store.reading(site.db):
        options = selected_options(site)
    games = [] if options.empty else sorted(options["game"].unique())
    suite_paths = {}
    for name, suite in all_suites().items():
        with store.reading(site.db):
            if suite.games and (path := suite_page(site, suite)):
                suite_paths[name] = path
    game_paths = {}
    for game in games:
        with store.reading(site.db):
            game_paths[game] = game_page(site, game)
    index_page(site, options, suite_paths, game_paths)
    for path, listed in list(site.lists.items()):
        with store.reading(site.db):
            list_page(site, path, listed)
    ids = list(site.matches)
    bar = match_progress(len(ids), 0, "export: match transcripts", progress, shown=())
    for start in range(0, len(ids), BATCH):
        with store.reading(site.db):
            for match_id in ids[start:start + BATCH]:
                game, title, body = match_body(site.db, match_id)
                path = match_path(match_id)
                if game in game_paths:
                    body = note_link(relative(path, game_paths[game]), f"{game}: its figures and win rates") + body
                site.write(path, title, body)
                if bar:
                    bar.update()
    if bar:
        bar.close()
