"""What pages the site has and how they link: the index (the runs, the suites, the games), a page per suite
(its headline table, the agents x games grid, the paper's own table), a page per game (the papers' figures for
it, the win rates), a page per number (the matches it counts, each linking to its transcript) and a page per
match (its turns). Every number is read through the functions the dashboard's pages call (engine/papers/headline.py,
the suites of engine/papers/, engine/present/queries.py, engine/present/transcripts.py); the site needs no server
and no Streamlit.

    matches/<match>.html        a match, turn by turn (engine/present/export/transcript.py)
    lists/<what>-<hash>.html    the matches behind one number
    suites/<suite>.html, games/<game>.html, index.html, assets/ (plotly.js once, the style sheet)
"""

from __future__ import annotations

import hashlib
import re
import time
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from engine import store
from engine.papers import headline, published
from engine.papers.registry import all_suites, own_table, suites_of
from engine.play.progress import match_progress
from engine.present import queries, transcripts
from engine.present.captions import contested_caption, headline_note, own_table_caption, pool_caption
from engine.present.column_help import COLUMN_HELP, GLOSSARY, anchor, column_help
from engine.present.export import charts
from engine.present.export.html import (
    GLOSSARY_HTML,
    caption,
    definitions,
    esc,
    glossary,
    link,
    note,
    note_link,
    page,
    relative,
    table,
)
from engine.present.export.transcript import match_body
from engine.present.figures import declared_figures
from engine.present.numbers import bare_name, number, on_one_scale, readable
from engine.present.suite_tables import (
    GRID_CAPTION,
    by_win_rate,
    grid_games,
    grid_view,
    has_winner,
    headline_help,
    headline_view,
    own_table_parts,
    pool_label,
    win_rates_view,
    without_winner,
)
from engine.score import cross_game
from engine.store.selection import Selection, Variant
from engine.study import certainty_reads
from engine.wording import count, sentence_start

HOLD_S = 1.0  # seconds one read-only connection writes transcripts for: a run writing the same file waits no longer


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
def suite_page(site: Site, suite) -> str | None:
    """The suite's page (None when the selection holds none of its games): headline, grid, the paper's table, each
    as the Leaderboards page shows it (engine/present/suite_tables.py: the same text, order, captions and
    definitions)."""
    selection = site.selection
    board = headline.headline(site.db, suite.name, selection)
    own = own_table(site.db, suite.name, selection)
    if board.empty and own.empty:
        return None
    path = f"suites/{file_name(suite.name)}.html"
    body = ""
    if not board.empty:
        counted, self_play = headline.coverage(site.db, suite.name, selection)
        scope = replace(selection.within(suite.variants), contested=not suite.self_play)  # the matches it counts
        shown = headline_view(board, suite.headline)
        hrefs = [relative(path, site.agent_matches(a, scope, None, f"{suite.title}'s games")) for a in board["agent"]]
        body += ("<h2>Headline</h2>" + caption(contested_caption(), path)
                 + caption(headline_note(suite, counted, self_play), path) + note("A number of matches opens those "
                                                                                   "matches."))
        body += table(shown, {"matches": hrefs}, numeric=("rank", "matches", "win rate", "valid", "fb wins"))
        body += "<details><summary>What each number means</summary>" + definitions(
            {c: text for c, text in headline_help(suite.headline).items() if c in shown.columns}) + "</details>"
        body += grid(site, path, suite, replace(scope, contested=True))
    if not own.empty:
        paper = queries.published_rows(site.db, suite.name)  # the paper's rows for the models played here
        body += f"<h2>{esc(suite.paper + chr(39) + 's own table' if suite.paper else 'Per game')}</h2>"
        own_and_published = published.interleave_published(own, paper)
        body += caption(own_table_caption(suite), path) + own_table_html(own_and_published, suite.layout)
    site.write(path, suite.title, body)
    return path


def own_table_html(board: pd.DataFrame, layout) -> str:
    """A paper's own table as the page lays it out (`own_table_parts`): the table, each of the layout's `aside`
    groups beside the first column and the figures by role, those two folded, and what each column means."""
    shown, aside, by_role = own_table_parts(board, layout)
    apart = {c for columns in aside.values() for c in columns}
    html = table(shown[[c for c in shown.columns if c not in apart]])
    for label, columns in aside.items():
        if present := [c for c in columns if c in shown.columns]:
            html += f"<details><summary>{esc(label)}</summary>{table(shown[[shown.columns[0], *present]])}</details>"
    if not by_role.empty:
        html += f"<details><summary>{esc(layout.by_role.title)}</summary>{table(by_role)}</details>"
    helps = {**layout.helps, **(layout.by_role.helps if layout.by_role else {})}
    meant = {c: helps.get(c) or helps.get(bare_name(c)) for c in [*shown.columns, *by_role.columns]}
    meant = {c: text for c, text in meant.items() if text}
    return html + ("<details><summary>What each column means</summary>" + definitions(meant) + "</details>"
                   if meant else "")


def grid(site: Site, path: str, suite, scope: Selection) -> str:
    """Agents x games (`grid_view`, as the page shows it): each cell a link to exactly the matches behind it (the
    suite's rule set of the game)."""
    cells = headline.agent_figures(site.db, scope, by_game=True)
    if cells.empty:  # only self-play, which a suite whose protocol it is ranks (γ-Bench): no contested cell
        return ""
    rule_set = {v.game: v for v in suite.variants}
    shown = grid_view(cells, suite)
    played = {game: set(cells.loc[cells["game"] == game, "agent"]) for game in grid_games(cells, suite)}
    hrefs = {label: [relative(path, site.agent_matches(a, replace(scope, variants=(rule_set[game],)), game, label))
                     if a in played[game] else None for a in shown["agent"]]
             for game, label in zip(played, shown.columns[1:], strict=True)}
    return ("<h2>Agents x games</h2>" + note(f"{sentence_start(GRID_CAPTION)}. {without_winner(played)}")
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
            # the paper, not the suite's title: "γ-Bench (0-100)" gives its table's scale, not a figure's (counts 0-10)
            body += f"<h2>{esc(suite.paper or suite.title)}: {esc(figure.title)}</h2>"
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
                shown = on_one_scale(figures.rename(columns=suite.layout.renamed), suite.units_of(figure))
                body += table(readable(shown))
                if meant := column_help(shown.columns, game, suite.layout.helps):  # as the Games page lists them
                    body += "<details><summary>What each column means</summary>" + definitions(meant) + "</details>"
    body += "<h2>Win rates</h2>"
    rates = headline.agent_figures(site.db, selection, by_game=True)
    if rates.empty:
        body += note(f"No contested {game} match in this selection (self-play only, or none).")
    for rule_set, rows in rates.groupby("rule_set", sort=True):
        rows = by_win_rate(rows).reset_index(drop=True)
        variant = Variant.of(game, rule_set or None)
        pool = replace(selection, contested=True, variants=(variant,) if rule_set else None)
        label = pool_label(game, rule_set)
        body += f"<h3>{esc(label)}</h3>" + caption(pool_caption(label, game), path)
        if has_winner(game):  # a game without one would chart a row of zeros
            body += charts.chart_html(charts.win_rates(rows, f"Win rate: {label}"))
            drawn = True
        hrefs = [relative(path, site.agent_matches(a, pool, game, label)) for a in rows["agent"]]
        body += table(win_rates_view(rows, game), {"matches": hrefs},
                      numeric=("matches", "seats", "wins", "draws", "fb wins"))
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
    body += across_games(site)
    body += "<h2>Leaderboards</h2><ul>" + "".join(
        f"<li>{link(path, all_suites()[name].title)}</li>" for name, path in suite_paths.items()) + "</ul>"
    if game_paths:
        played = options.groupby("game")["matches"].sum()
        games = pd.DataFrame({"game": list(game_paths), "finished matches": [number(played[g]) for g in game_paths]})
        body += "<h2>Games</h2>" + note("Each game's figures and win rates.") + table(
            games, {"game": list(game_paths.values())}, numeric=("finished matches",))
    body += "<h2>Glossary</h2>" + note_link(GLOSSARY_HTML, "What every number means")
    site.write("index.html", f"The study in {site.db.name}", body, charts="<h3>Cost against certainty" in body)


def across_games(site: Site) -> str:
    """The rating across games and its fragility (engine/score/cross_game.py), as the Leaderboards page shows
    them."""
    across = headline.across_games(site.db, site.selection)
    if across.ratings.empty:
        return ""
    shown = cross_game.view(across.ratings).astype(str)
    body = ("<h2>Across games</h2>" + note(headline.ACROSS_CAPTION.replace("`", ""))
            + table(shown, numeric=("rank", "rating", "matches", "games"))
            + note(f"Fragility: {cross_game.fragility_sentence(across.fragility)}"))
    selected = set(site.selection.run_ids)
    for run_id in certainty_reads.studies(site.db)["run_id"]:
        points = certainty_reads.curve(site.db, run_id)
        if not points.empty and (not selected or run_id in selected):
            body += (f"<h3>Cost against certainty: {esc(run_id)}</h3>" + note(
                "The widest interval of an adjacent pair of ranks against the matches played, look by look; dashed, "
                "what the next batch is expected to buy.") + charts.chart_html(charts.certainty_curve(points, run_id)))
    return body


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
    site.write(GLOSSARY_HTML, "Glossary", glossary(GLOSSARY, {s.title: s.caption for s in all_suites().values()},
                                                   COLUMN_HELP, anchor))
    for path, listed in list(site.lists.items()):
        with store.reading(site.db):
            list_page(site, path, listed)
    ids = list(site.matches)
    bar = match_progress(len(ids), 0, "export: match transcripts", progress, shown=())
    done = 0
    while done < len(ids):
        with store.reading(site.db):  # given up after HOLD_S, or at once when a run waits to write
            held = time.monotonic()
            while done < len(ids):
                match_id = ids[done]
                game, title, body = match_body(site.db, match_id)
                path = match_path(match_id)
                if game in game_paths:
                    body = note_link(relative(path, game_paths[game]), f"{game}: its figures and win rates") + body
                site.write(path, title, body)
                done += 1
                if bar:
                    bar.update()
                if time.monotonic() - held > HOLD_S or store.writer_waiting(site.db):
                    break
    if bar:
        bar.close()
