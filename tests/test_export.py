"""`python -m engine export SITE_DIR`: the study as a static site. Over a small database played by bots (one of
them labelled with markup) plus a model seat through the local stub whose answer carries a <script>: the index
exists, every link reaches a file of the site (no CDN, plotly.js once), a number of a table opens exactly the
matches it counts and each match its turns, hostile text stays text, --run narrows, and bad input is one line
with exit code 2 that leaves the folder as it was."""

from __future__ import annotations

import asyncio
import contextlib
import html
import io
import re
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest

from engine import store
from engine.cli.main import main
from engine.papers.registry import get_suite
from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.present.export import MARKER
from engine.testing import StubReply

SCRIPT = '<script>window.owned = true</script>'
LABEL = '<img src=x onerror="window.owned = true">'
SPEC = {"name": "bots", "seed": 3, "repeats": 3, "games": [
    {"game": "tictactoe", "lineups": [[{"agent": "bot:random", "label": LABEL}, "bot:equilibrium"],
                                      ["bot:equilibrium", "bot:random"]]},
    {"game": "guessing_game", "params": {"players": 3, "rounds": 2},
     "lineups": [["bot:equilibrium", "bot:random", "bot:random"]]},
    {"game": "hanabi", "lineups": [["bot:random", "bot:hint_follower"]]},  # cooperative: no seat wins
]}


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """(database, the model run's id): bots in two games, then one guessing game with a model answering markup."""
    from engine.testing import StubServer

    db = tmp_path_factory.mktemp("export") / "results.duckdb"
    asyncio.run(run_spec(parse_spec(SPEC), db, progress=False))
    with StubServer(lambda request: StubReply(f'{SCRIPT} {{"chosen_number": 9}}')) as stub:
        seat = {"agent": "openai/stub-model", "api_base": stub.url, "max_tokens": 32}
        model_run = parse_spec({"name": "model", "games": [
            {"game": "guessing_game", "params": {"players": 2, "rounds": 1, "reading": "lenient"},  # markup around JSON
             "lineups": [[seat, "bot:random"]]}]})
        asyncio.run(run_spec(model_run, db, progress=False))
    return db, model_run.run_id


pytestmark = pytest.mark.slow  # a few exports of the whole study: ~1 min on 2 busy cores


@pytest.fixture(scope="module")
def exported(played, tmp_path_factory):
    """(the site's folder, what the command printed): the whole study exported by the command."""
    db, _ = played
    folder = tmp_path_factory.mktemp("sites") / "site"
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main(["export", str(folder), "--db", str(db)]) == 0
    return folder, printed.getvalue().strip()


@pytest.fixture(scope="module")
def site(exported):
    return exported[0]


class Links(HTMLParser):
    """Every href and src of a page, its element ids, its scripts' text and its links' (href, text)."""

    def __init__(self) -> None:
        super().__init__()
        self.targets: list[str] = []
        self.ids: set[str] = set()
        self.anchors: list[tuple[str, str]] = []
        self.scripts: list[str] = []
        self._in: str | None = None
        self._href = ""
        self._text = ""

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.targets += [attrs[k] for k in ("href", "src") if attrs.get(k)]
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag in ("a", "script"):
            self._in, self._href, self._text = tag, attrs.get("href", ""), ""

    def handle_data(self, data):
        if self._in:
            self._text += data

    def handle_endtag(self, tag):
        if tag == self._in == "a":
            self.anchors.append((self._href, self._text))
        elif tag == self._in == "script":
            self.scripts.append(self._text)
        if tag == self._in:
            self._in = None


def parsed(path: Path) -> Links:
    links = Links()
    links.feed(path.read_text(encoding="utf-8"))
    return links


def pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


def test_the_site_has_an_index_and_every_link_reaches_a_file_of_the_site(site, capsys):
    assert (site / "index.html").is_file() and (site / MARKER).is_file()
    broken = []
    for page in pages(site):
        for target in parsed(page).targets:
            assert "://" not in target and not target.startswith("//"), f"{page.name} reaches out: {target}"
            file, _, anchor = target.partition("#")
            resolved = (page.parent / file).resolve() if file else page
            if not resolved.is_file() or not resolved.is_relative_to(site.resolve()):
                broken.append(f"{page.relative_to(site)} -> {target}")
            elif anchor and anchor not in parsed(resolved).ids:
                broken.append(f"{page.relative_to(site)} -> {target} (no such anchor)")
    assert broken == []
    # plotly.js once, as a file of the site; no page carries its own copy
    assert [p.name for p in site.rglob("*.js")] == ["plotly.min.js"]
    assert max(p.stat().st_size for p in pages(site)) < 1_000_000
    charted = [p for p in pages(site) if "Plotly.newPlot" in p.read_text(encoding="utf-8")]
    assert charted and all(any(t.endswith("assets/plotly.min.js") for t in parsed(p).targets) for p in charted)


def test_the_command_shows_its_progress_then_states_the_pages_matches_and_size(played, exported):
    db, _ = played
    site, printed = exported
    *progress, line = printed.splitlines()
    matches = len(list((site / "matches").glob("*.html")))
    assert matches == store.rows(db, "SELECT count(*) FROM matches WHERE status = 'ok'")[0][0]
    # off a terminal, a line at the start and at the end of the transcripts (and every few seconds between)
    assert "export: match transcripts: 0 of" in progress[0] and f"{matches} of {matches} matches done (" in progress[-1]
    assert re.fullmatch(rf"exported [\d,]+ pages \({matches} match transcripts\) to .+: [\d.]+ MB, of which "
                        r"transcripts [\d.]+ MB \([\d.]+ KB a match\)", line), line


def test_a_number_of_a_table_opens_exactly_its_matches_and_a_match_its_turns(site, played):
    db, _ = played
    suite = site / "suites" / "llmarena.html"
    cells = [(href, text) for href, text in parsed(suite).anchors if href.startswith("../lists/")]
    # the agents x games grid: "50.0% (3)" -> the 3 matches behind it
    href, text = next((h, t) for h, t in cells if re.fullmatch(r"[\d.]+% \(\d+\)", t))
    behind = int(re.search(r"\((\d+)\)", text).group(1))
    listed = suite.parent / href
    opened = [h for h, t in parsed(listed).anchors if h.startswith("../matches/")]
    assert len(opened) == behind
    match = listed.parent / opened[0]
    match_id = match.stem
    turns = store.rows(db, "SELECT turn, response FROM turns WHERE match_id = ? ORDER BY turn", [match_id])
    page = parsed(match)
    assert {f"t{turn}" for turn, _ in turns} <= page.ids and len(turns) > 1
    assert match.read_text(encoding="utf-8").count('<section class="turn"') == len(turns)
    # and the headline's matches count opens the agent's matches of the suite
    counts = [(h, t) for h, t in cells if t.isdigit()]
    assert counts and all(len([a for a, _ in parsed(suite.parent / h).anchors if a.startswith("../matches/")])
                          == int(t) for h, t in counts)


def test_hostile_text_shows_as_text_and_never_runs(site):
    answered = labelled = 0
    for page in pages(site):
        text = page.read_text(encoding="utf-8")
        assert SCRIPT not in text and LABEL not in text and "<img" not in text, page
        answered += "&lt;script&gt;window.owned = true&lt;/script&gt;" in text  # the model's answer, as text
        labelled += "&lt;img src=x onerror=" in text
        # in a chart's data the label is text too: plotly would draw <img ...> (even as \u003c in its JSON) as a tag
        assert all("<img" not in script and "\\u003cimg" not in script for script in parsed(page).scripts), page
    assert answered == 1  # its match's page
    assert labelled > 3  # the suite, the grid, the game page, its lists and matches name it


def test_run_narrows_the_site_to_that_runs_matches(played, tmp_path, capsys):
    db, model_run = played
    assert main(["export", str(tmp_path / "one"), "--db", str(db), "--run", model_run]) == 0
    assert "(1 match transcript)" in capsys.readouterr().out
    (match,) = (tmp_path / "one" / "matches").glob("*.html")
    assert store.rows(db, "SELECT run_id FROM matches WHERE match_id = ?", [match.stem]) == [(model_run,)]
    index = (tmp_path / "one" / "index.html").read_text(encoding="utf-8")
    assert model_run in index and "tictactoe" not in index
    assert not (tmp_path / "one" / "games" / "tictactoe.html").exists()


def test_an_export_replaces_the_site_an_earlier_export_wrote(played, tmp_path, capsys):
    db, model_run = played
    folder = tmp_path / "site"
    assert main(["export", str(folder), "--db", str(db)]) == 0
    assert main(["export", str(folder), "--db", str(db), "--run", model_run]) == 0
    assert len(list((folder / "matches").glob("*.html"))) == 1
    assert [p.name for p in tmp_path.iterdir()] == ["site"]  # nothing left of the build beside it


def test_a_site_is_given_by_any_path_and_what_a_user_added_to_it_is_never_replaced(played, tmp_path, capsys):
    """An attacker's report: `export site/matches/..` deleted the earlier site and crashed (its build folder was
    made inside the folder it then replaced), and a second export deleted the `.git` and CNAME a user had added
    to publish the site."""
    db, _ = played
    folder = tmp_path / "site"
    assert main(["export", str(folder), "--db", str(db)]) == 0
    assert main(["export", str(folder / "matches" / ".."), "--db", str(db)]) == 0
    assert (folder / "index.html").is_file() and [p.name for p in tmp_path.iterdir()] == ["site"]
    (folder / ".git").mkdir()
    (folder / "CNAME").write_text("arena.example.org")
    assert main(["export", str(folder), "--db", str(db)]) == 2
    assert "holds .git, CNAME, which no export wrote" in one_line_error(capsys)
    assert (folder / "CNAME").read_text() == "arena.example.org" and (folder / ".git").is_dir()


def test_what_a_user_added_inside_the_sites_folders_is_never_replaced(played, tmp_path, capsys):
    """An attacker's report: a re-export deleted `assets/mine.txt` and `matches/my_notes.md` (only the top level was
    checked against the marker's list). The marker lists every file the export wrote; anything else is refused by
    name, first one first, and stays."""
    db, model_run = played
    folder = tmp_path / "site"
    assert main(["export", str(folder), "--db", str(db), "--run", model_run]) == 0
    listed = (folder / MARKER).read_text(encoding="utf-8").splitlines()[1:]
    assert sorted(listed) == sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")
                                    if p.is_file() and p.name != MARKER)
    assert "assets/style.css" in listed and any(path.startswith("matches/") for path in listed)
    for mine in (folder / "assets" / "mine.txt", folder / "matches" / "my_notes.md", folder / "games" / "drafts"):
        mine.parent.mkdir(exist_ok=True)
        mine.write_text("mine")
        assert main(["export", str(folder), "--db", str(db)]) == 2
        named = mine.relative_to(folder).as_posix()
        assert f"holds {named}, which no export wrote" in one_line_error(capsys)
        assert mine.read_text() == "mine"
        mine.unlink()
    (folder / "notes").mkdir()  # a folder of the user's, named whole
    (folder / "notes" / "a.md").write_text("mine")
    (folder / "matches" / "link.html").symlink_to(folder / "notes" / "a.md")  # no export writes a link
    assert main(["export", str(folder), "--db", str(db)]) == 2
    assert "holds matches/link.html, notes, which no export wrote" in one_line_error(capsys)
    assert (folder / "notes" / "a.md").read_text() == "mine"


def test_a_marker_without_a_list_replaces_only_the_sites_own_kinds_of_files(played, tmp_path, capsys):
    """An attacker's report: a marker without a list (an export made before the lists) had the folder replaced
    whole, a user's `.git` with it. Such a folder is replaced only when it holds nothing but a site's kinds of
    files; a marker listing the top level only (the lists before they named every file) is read the same way."""
    db, model_run = played
    folder = tmp_path / "site"
    for heading in ("", "written by python -m engine export; the next export replaces it. It wrote:\nassets\n"
                        ".git\nindex.html\nmatches"):
        assert main(["export", str(folder), "--db", str(db), "--run", model_run]) == 0
        (folder / MARKER).write_text(heading)
        (folder / ".git").mkdir()
        (folder / ".git" / "HEAD").write_text("ref: refs/heads/main")
        assert main(["export", str(folder), "--db", str(db)]) == 2
        assert "holds .git, which no export wrote" in one_line_error(capsys)
        assert (folder / ".git" / "HEAD").is_file()
        (folder / ".git" / "HEAD").unlink()
        (folder / ".git").rmdir()
        assert main(["export", str(folder), "--db", str(db), "--run", model_run]) == 0
        assert (folder / MARKER).read_text(encoding="utf-8").count("\n") > 4  # the new export's list
    capsys.readouterr()


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "Traceback" not in err and err.startswith("error: "), err
    return err


def test_export_quiet_prints_its_summary_and_no_progress(played, tmp_path, capsys):
    """A new user's report: `export --quiet` was refused with the top-level usage, where `run`, `import` and
    `tournament` take it."""
    db, _ = played
    assert main(["export", str(tmp_path / "site"), "--db", str(db), "--quiet"]) == 0
    printed = capsys.readouterr()
    assert printed.err == "" and printed.out.startswith("exported ") and (tmp_path / "site" / "index.html").is_file()


def test_a_second_export_into_the_same_folder_at_once_is_refused_in_one_line(played, tmp_path, capsys):
    """An attacker's report: three exports into one folder at once ended one of them in a traceback
    (FileNotFoundError from the other's rmtree). While one export writes, another into that folder is refused."""
    import fcntl
    import os

    db, _ = played
    folder = os.open(tmp_path, os.O_RDONLY)
    try:
        fcntl.flock(folder, fcntl.LOCK_EX)  # as an export writing in tmp_path holds it
        assert main(["export", str(tmp_path / "site"), "--db", str(db)]) == 2
        assert one_line_error(capsys) == f"error: another export is writing in {tmp_path}: wait for it to end"
    finally:
        os.close(folder)
    assert main(["export", str(tmp_path / "site"), "--db", str(db)]) == 0  # free again once it ended


def test_a_file_put_in_the_folder_while_the_site_is_built_is_kept(played, tmp_path, capsys, monkeypatch):
    """An attacker's report: files added to an earlier export's folder during a re-export were deleted without a
    word (the folder was checked only at the start). They are found before the folder is replaced: refused, kept."""
    import engine.present.export as export

    db, _ = played
    site = tmp_path / "site"
    assert main(["export", str(site), "--db", str(db)]) == 0
    capsys.readouterr()
    real_build = export.build

    def build_while_the_user_writes(made, progress):
        real_build(made, progress)
        (site / "CNAME").write_text("example.org")

    monkeypatch.setattr(export, "build", build_while_the_user_writes)
    assert main(["export", str(site), "--db", str(db)]) == 2
    assert "CNAME, which no export wrote" in one_line_error(capsys)
    assert (site / "CNAME").read_text() == "example.org" and (site / "index.html").is_file()
    assert [p.name for p in tmp_path.iterdir()] == ["site"]  # the half-built copy is gone


def test_the_export_gives_the_database_back_as_soon_as_a_run_waits_to_write(played, tmp_path, monkeypatch):
    """An attacker's report: an export held the database 15-24 s at a time (a connection per 200 transcripts), so
    a run writing it waited as long. Between two transcripts it gives way when a writer waits."""
    import contextlib as ctx

    from engine import store as the_store
    from engine.present.export import site as site_module

    db, _ = played
    opened = []
    real_reading = the_store.reading

    @ctx.contextmanager
    def counted(path):
        opened.append(path)
        with real_reading(path):
            yield

    monkeypatch.setattr(site_module.store, "reading", counted)
    monkeypatch.setattr(site_module.store, "writer_waiting", lambda path: True)
    assert main(["export", str(tmp_path / "site"), "--db", str(db)]) == 0
    transcripts = len(list((tmp_path / "site" / "matches").glob("*.html")))
    assert transcripts > 1 and len(opened) >= transcripts  # one read per transcript while a writer waits


def test_bad_input_is_one_line_with_exit_2_and_nothing_is_overwritten(played, tmp_path, capsys):
    db, _ = played
    mine = tmp_path / "notes"
    mine.mkdir()
    (mine / "thesis.txt").write_text("mine")
    assert main(["export", str(mine), "--db", str(db)]) == 2
    assert "holds files an export did not write" in one_line_error(capsys)
    assert [p.name for p in mine.iterdir()] == ["thesis.txt"]
    (tmp_path / "a_file").write_text("x")
    assert main(["export", str(tmp_path / "a_file"), "--db", str(db)]) == 2
    assert "is a file" in one_line_error(capsys)
    assert main(["export", str(tmp_path / "no" / "such" / "site"), "--db", str(db)]) == 2
    assert "does not exist" in one_line_error(capsys)
    assert main(["export", str(tmp_path / "a_file" / "sub" / "site"), "--db", str(db)]) == 2
    assert f"{tmp_path / 'a_file'} is a file, not a folder" in one_line_error(capsys)  # it said "does not exist"
    (tmp_path / "earlier").mkdir()
    (tmp_path / "earlier" / MARKER).write_text("")
    (tmp_path / "link").symlink_to(tmp_path / "earlier")  # an earlier export's folder, through a link
    (tmp_path / "dangling").symlink_to(tmp_path / "no" / "such")
    for link in ("link", "dangling"):
        assert main(["export", str(tmp_path / link), "--db", str(db)]) == 2
        assert "is a symbolic link: give the folder it names" in one_line_error(capsys)
    assert main(["export", str(tmp_path / "s"), "--db", str(tmp_path / "missing.duckdb")]) == 2
    assert "does not exist" in one_line_error(capsys)
    (tmp_path / "junk.duckdb").write_text("not a database")
    assert main(["export", str(tmp_path / "s"), "--db", str(tmp_path / "junk.duckdb")]) == 2
    one_line_error(capsys)
    assert main(["export", str(tmp_path / "s"), "--db", str(db), "--run", "nope"]) == 2
    assert "no run nope" in one_line_error(capsys)
    assert not (tmp_path / "s").exists() and sorted(p.name for p in tmp_path.iterdir()) == [
        "a_file", "dangling", "earlier", "junk.duckdb", "link", "notes"]
    assert [p.name for p in (tmp_path / "earlier").iterdir()] == [MARKER]


def test_captions_read_as_text_and_a_table_wider_than_the_page_says_it_scrolls(site):
    """A new user's pass over an exported site: the suites' captions showed their markdown (`shot_player`, 16 raw
    backticks), and the papers' tables made the page 2,583 px wide without a word."""
    from engine.present.export.html import PAGE_PX, _width_px, table

    for page_file in (site / "suites").glob("*.html"):
        shown = re.sub(r"<script.*?</script>", "", page_file.read_text(encoding="utf-8"), flags=re.S)
        assert "`" not in shown, page_file.name
    narrow = pd.DataFrame({"agent": ["a"], "score": ["1.00"]})
    wide = pd.DataFrame({f"a rather long column name {i}": ["12,345.67"] for i in range(40)})
    assert _width_px(narrow) <= PAGE_PX < _width_px(wide)
    assert "scrolls sideways" not in table(narrow) and 'class="wide"' not in table(narrow)
    assert "scrolls sideways" in table(wide) and '<div class="wide"><table>' in table(wide)


class Tables(HTMLParser):
    """Every table of a page as rows of its cells' text (a link's text included)."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self._cell: str | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = ""

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.tables[-1][-1].append(self._cell)
            self._cell = None


def site_tables(path: Path) -> list[pd.DataFrame]:
    tables = Tables()
    tables.feed(path.read_text(encoding="utf-8"))
    return [pd.DataFrame(rows[1:], columns=rows[0]) for rows in tables.tables]


def as_rows(frame: pd.DataFrame) -> list[list[str]]:
    return [list(map(str, frame.columns)), *frame.astype(str).to_numpy().tolist()]


def markdown_table(markdown: str) -> pd.DataFrame:
    """A page's markdown table as text, each link as its text."""
    rows = [[re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", cell).strip().replace("\\", "")
             for cell in line.strip().strip("|").split(" | ")]
            for line in markdown.splitlines() if not line.startswith("|---")]
    return pd.DataFrame(rows[1:], columns=rows[0])


def as_read(caption: str) -> str:
    """A caption's markdown as its text reads on the site: its glossary link's label, its code spans' text."""
    return re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", caption).replace("`", "")


def test_a_suites_tables_on_the_site_are_the_leaderboards_pages(played, site, monkeypatch):
    """A reviewer's finding: the site's LLMArena table had no "(partial)" marks, its own row order and decimals, and
    no captions, where the page has them. Each table of a suite's page is the page's table, cell for cell, and its
    captions are the page's."""
    from engine.present.captions import own_table_caption
    from tests.page_run import run_page

    db, _ = played
    at = run_page("leaderboard", db, monkeypatch)
    assert not at.exception
    shown = [as_rows(frame.value) for frame in at.dataframe]
    grids = [as_rows(markdown_table(m.value)) for m in at.markdown if m.value.startswith("| agent |")]
    captions = [c.value for c in at.caption]
    grid_caption = next(m.value for m in at.markdown if m.value.startswith("**Agents x games**"))
    suites = sorted((site / "suites").glob("*.html"))
    assert len(suites) > 1
    for page_file in suites:
        suite = page_file.stem
        headline_table, grid, own, *rest = site_tables(page_file)
        assert as_rows(headline_table) in shown and as_rows(grid) in grids and as_rows(own) in shown, suite
        assert all(as_rows(t) in shown for t in rest), suite  # the groups apart and the figures by role
        text = html.unescape(re.sub(r"<[^>]+>", "", page_file.read_text(encoding="utf-8")))
        title = get_suite(suite).headline.title
        (ranked,) = [c for c in captions if c.startswith(f"Ranked by {title}:")]
        assert as_read(ranked) in text and as_read(captions[0]) in text, suite  # only contested matches count
        own = own_table_caption(get_suite(suite))
        assert own in captions and as_read(own) in text, suite  # the paper's table: the page's caption
        assert grid_caption.split(": ", 1)[1].split(" in Transcripts.")[0][1:] in text  # "Win rate": a note
        assert "What each number means" in text
    arena = site_tables(site / "suites" / "llmarena.html")[2]
    assert arena.iloc[:, 1:].map(lambda v: v.endswith("(partial)")).any().any()  # the page's marks, kept


def test_a_game_without_a_winner_shows_no_win_rate_and_says_why(played, site, monkeypatch):
    """Hanabi is cooperative (its seats share one score: no seat wins against another), yet the grids, the Games
    page and the site showed it a win rate of 0%: "—" wherever a game declares no winner, and the caption says
    why."""
    from tests.page_run import run_page

    db, _ = played
    headline, grid = site_tables(site / "suites" / "llmarena.html")[:2]
    hanabi = grid["hanabi"][grid["hanabi"] != ""]
    assert len(hanabi) and hanabi.str.fullmatch(r"— \(\d+\)").all()
    # an agent that played only Hanabi has no win rate in the headline either ("—", not a blank cell)
    others = grid.drop(columns=["agent", "hanabi"])
    only_hanabi = set(grid["agent"][(grid["hanabi"] != "") & (others == "").all(axis=1)])
    agents = headline["agent"].str.removesuffix(" (provisional)")
    assert only_hanabi and set(headline["win rate"][agents.isin(only_hanabi)]) == {"—"}
    assert grid["tictactoe"][grid["tictactoe"] != ""].str.fullmatch(r"[\d.]+% \(\d+\)").all()
    game = (site / "games" / "hanabi.html").read_text(encoding="utf-8")
    (rates,) = [t for t in site_tables(site / "games" / "hanabi.html") if "win rate (95% CI)" in t.columns]
    assert set(rates["win rate (95% CI)"]) == {"—"} and set(rates["wins"]) == {"—"}
    assert "hanabi declares no winner (cooperative" in game and "Plotly.newPlot" not in game.split("Win rates")[1]
    at = run_page("games", db, monkeypatch, game="hanabi")
    assert not at.exception
    (page_rates,) = [f.value for f in at.dataframe if "win rate (95% CI)" in f.value.columns]
    assert as_rows(page_rates) == as_rows(rates)
    assert "hanabi declares no winner (cooperative" in " ".join(c.value for c in at.caption)


def test_hanabis_knowledge_reads_as_text_on_the_site_and_the_transcripts_page(played, site, monkeypatch):
    """A reviewer's finding: Hanabi's knowledge of a hand showed as raw JSON (`[{"colour":null,"rank":null},...]`)
    in its transcripts; it reads "1: colour unknown, rank unknown; ..." on the site and on the page."""
    from tests.page_run import run_page

    db, _ = played
    (match_id,) = store.rows(db, "SELECT match_id FROM matches WHERE game = 'hanabi' ORDER BY match_id LIMIT 1")[0]
    shown = html.unescape((site / "matches" / f"{match_id}.html").read_text(encoding="utf-8"))
    assert '"colour"' not in shown and "knowledge: [0] 1: colour " in shown
    at = run_page("transcripts", db, monkeypatch, match=match_id, turn="3")
    assert not at.exception
    cells = [v for f in at.dataframe for v in f.value.astype(str).to_numpy().ravel()]
    assert any(v.startswith("1: colour ") for v in cells) and not any('"colour"' in v for v in cells)


def test_a_games_figures_on_the_site_are_headed_by_their_paper_and_define_their_columns(tmp_path):
    """A new user's report: the site's pirate_game.html headed its per-round chart of counts (0-10) "γ-Bench
    (0-100): per-round figures", the scale of γ-Bench's table, and left out the column definitions (step, accepts,
    aboard, passed) the Games page gives under the same table."""
    from engine.present.column_help import COLUMN_HELP
    from engine.present.export.site import Site, game_page
    from engine.store.selection import Selection

    db = tmp_path / "pirates.duckdb"
    asyncio.run(run_spec(parse_spec({"name": "pirates", "seed": 2, "games": [
        {"game": "pirate_game", "lineups": [{"all": "bot:equilibrium"}]}]}), db, progress=False))
    site = Site(db=db, root=tmp_path / "site", selection=Selection())
    with store.reading(db):
        path = game_page(site, "pirate_game")
    text = html.unescape((site.root / path).read_text(encoding="utf-8"))
    assert "<h2>GAMA-Bench: per-round figures</h2>" in text and "(0-100)" not in text
    for column in ("step", "accepts", "aboard", "passed"):
        assert f"<dt><b>{column}" in text and COLUMN_HELP[column] in text, column


def test_the_site_has_the_glossary_the_dashboard_has(site):
    """The site's pages keep their captions; the definitions they name are on its glossary, as on the dashboard's
    Glossary page: every term at its anchor, each paper's own table as the paper defines it."""
    from engine.papers.headline import DEFINITIONS
    from engine.papers.registry import all_suites
    from engine.present.column_help import GLOSSARY, anchor

    glossary = site / "glossary.html"
    assert "glossary.html" in parsed(site / "index.html").targets
    assert {anchor(term) for term in GLOSSARY} | {anchor(s.title) for s in all_suites().values()} <= parsed(
        glossary).ids
    text = html.unescape(glossary.read_text(encoding="utf-8"))
    assert all(definition[1:60] in text for definition in DEFINITIONS.values())
