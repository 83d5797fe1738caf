"""Every page in a real browser: the app served by Streamlit on 127.0.0.1 over a small database played by
bots (plus an LLM match through the local stub whose answer carries a <script>), opened in Debian's
Chromium through Playwright. Each page must draw its tables or charts and show no exception box; a
screenshot of each is saved under the test's tmp dir. No network: Chromium runs with background
networking off and only talks to 127.0.0.1."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager

import pytest
from playwright.sync_api import expect, sync_playwright

from engine import store
from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.testing import StubReply, StubServer

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"  # Debian's package (`make browser` installs it); Playwright downloads nothing
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
PAGES = {"": "Overview", "launch": "Launch", "leaderboard": "Leaderboards", "abilities": "Abilities", "games": "Games",
         "robustness": "Robustness", "transcripts": "Transcripts", "glossary": "Glossary"}  # url path -> its link
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'

SCRIPT = '<script>window.owned = true</script><img src=x onerror="window.owned = true">'
CONTENT = '[data-testid="stDataFrame"], [data-testid="stTable"], [data-testid="stPlotlyChart"]'
SPEC = {"name": "browser", "seed": 5, "repeats": 2, "games": [
    {"game": "guessing_game", "params": {"players": 4, "rounds": 3},
     "lineups": [["bot:equilibrium", "bot:random", "bot:random", "bot:random"]]},
    {"game": "tictactoe", "presets": ["default", "no_hint"], "lineups": [["bot:equilibrium", "bot:random"]]},
    {"game": "prisoners_dilemma", "preset": "magic_1",
     "lineups": [{"challenger": "bot:equilibrium", "others": "bot:tit_for_tat"}]},
    {"game": "chameleon", "repeats": 1, "lineups": [{"challenger": "bot:random", "others": "bot:letters"}]},
    {"game": "undercover", "preset": "wis", "params": {"role_seat": 0}, "lineups": [
        ["bot:injector", "bot:obedient", "bot:letters", "bot:obedient", "bot:letters", "bot:obedient"]]},
    {"game": "texas_holdem", "repeats": 1, "lineups": [["bot:hand_strength", "bot:random"]]},
]}


@contextmanager
def serving(db):
    """`python -m engine serve` over `db` on a free port, started outside the project (its config must still
    apply); yields the base URL once Streamlit answers."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "engine", "serve", "--db", str(db), "--port", str(port)],
        cwd=db.parent, env=os.environ | {"PYTHONPATH": str(store.ROOT)},
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{url}/_stcore/health", timeout=1).read()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"streamlit did not start: {server.stderr.read().decode()[-2000:]}") from None
                time.sleep(0.2)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    """The dashboard over a fresh database of bots plus an LLM match (through the stub) answering markup."""
    db = tmp_path_factory.mktemp("browser") / "results.duckdb"
    asyncio.run(run_spec(parse_spec(SPEC), db, progress=False))
    with StubServer(lambda request: StubReply(f'{SCRIPT} {{"chosen_number": 9}}')) as stub:
        seat = {"agent": "openai/stub-model", "api_base": stub.url, "max_tokens": 32}
        asyncio.run(run_spec(parse_spec({"name": "llm", "games": [
            {"game": "guessing_game", "params": {"players": 2, "rounds": 1, "reading": "lenient"},  # markup around JSON
             "lineups": [[seat, "bot:random"]]}]}),
            db, progress=False))
    with serving(db) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        yield chromium
        chromium.close()


SETTLE_MS = 90_000  # a cold first view of Leaderboards (every suite's bootstrap) passed 20 s at a load of 9 on 2 cores


def settle(page) -> None:
    """Wait until the page's script has finished and its tables or charts are drawn."""
    page.wait_for_selector(IDLE, timeout=SETTLE_MS)
    page.wait_for_selector(CONTENT, state="visible", timeout=SETTLE_MS)


def open_page(browser, url: str):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.dialogs = []  # an alert() from model text would land here
    page.on("dialog", lambda dialog: (page.dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(url)
    settle(page)
    return page


def test_a_shared_link_opens_the_same_view_and_model_markup_stays_text(app, browser):
    """The first visit to a fresh server is this link (this test runs first): it gets the app's navigation,
    not Streamlit's page-folder fallback."""
    page = open_page(browser, f"{app}/transcripts?game=guessing_game&q=window.owned")
    links = page.get_by_test_id("stSidebarNavLink").all_inner_texts()
    assert [link.split()[-1] for link in links] == list(PAGES.values())
    # a widget's value lands just after it is drawn (React applies it in an effect): wait for it, don't sample it
    expect(page.get_by_role("combobox", name="Game")).to_have_value("guessing_game")
    expect(page.get_by_role("textbox", name="Search the messages")).to_have_value("window.owned")
    page.get_by_text(SCRIPT).first.wait_for(state="visible")  # the answer is on the page, as text
    assert page.evaluate("window.owned === undefined") and not page.dialogs  # and none of it ran
    assert page.evaluate("[...document.querySelectorAll('script')].every(s => !s.textContent.includes('owned'))")
    assert page.locator('[data-testid="stException"]').count() == 0


def test_every_page_draws_its_tables_and_charts_without_an_exception(app, browser, tmp_path):
    page = open_page(browser, app)
    for path, title in PAGES.items():
        if path:  # the others through the sidebar, as a user moves around (one session, no reload)
            page.get_by_test_id("stSidebarNavLink").filter(has_text=title).click()
            page.wait_for_url(f"{app}/{path}**")
            settle(page)
        assert page.locator(CONTENT).count() >= 1
        assert page.locator('[data-testid="stException"]').count() == 0, f"exception on /{path}"
        page.screenshot(path=str(tmp_path / f"{path or 'overview'}.png"), full_page=True)
    assert len(list(tmp_path.glob("*.png"))) == len(PAGES)


def test_no_deploy_button_and_boards_are_drawn_shapes(app, browser, tmp_path):
    """.streamlit/config.toml holds even when the server was started outside the project (toolbar minimal);
    a TicTacToe board is an SVG of lines and circles, whatever fonts the machine has."""
    page = open_page(browser, f"{app}/transcripts?game=tictactoe&turn=4")
    assert page.locator('[data-testid="stAppDeployButton"]').count() == 0
    board = page.locator('img[src^="data:image/svg+xml"]').first
    board.wait_for(state="visible")
    assert board.bounding_box()["width"] >= 100
    board.scroll_into_view_if_needed()
    board.screenshot(path=str(tmp_path / "board.png"))


SCROLLING = """() => [...document.querySelectorAll('[data-testid="stDataFrame"]')]
    .filter(frame => frame.offsetParent !== null)  // drawn (not in a closed expander)
    .map(frame => {
        const scroller = frame.querySelector('.dvn-scroller');
        const block = frame.closest('[data-testid="stElementContainer"]');
        const next = block && block.nextElementSibling;
        return {wide: scroller ? scroller.scrollWidth > scroller.clientWidth + 1 : false,
                said: next ? next.innerText.includes('scroll the table sideways') : false,
                columns: frame.innerText.split('\\n')[0]};
    })"""
SHOTS = "/tmp/arena_browser_1400"  # the screenshots to look at (kept after the test, unlike tmp_path)


WATCH_RERUNS = """() => { window.reruns = 0; new MutationObserver(() => {
    if (document.querySelector('[data-testid="stApp"]').dataset.testScriptState === "running") window.reruns += 1;
}).observe(document.querySelector('[data-testid="stApp"]'), {attributes: true}); }"""


def test_at_1400_px_no_table_scrolls_unsaid_and_the_report_keeps_its_meaning(app, browser):
    """Issue 29 points 3 and 5 at 1400 x 900: on every page each drawn table fits without a horizontal scrollbar
    (or the line under it says why it scrolls); the HTML report downloaded from Leaderboards holds a caption, a
    "(n)" sample size in a cell and a chart in the palette's colours, and draws it from disk with no network."""
    import pathlib
    import re

    from engine.present.palette import PALETTE

    shots = pathlib.Path(SHOTS)
    shots.mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    for path in PAGES:
        page.goto(f"{app}/{path}")
        settle(page)
        page.wait_for_timeout(1500)  # the grids measure their columns after the script ends
        tables = page.evaluate(SCROLLING)
        page.screenshot(path=str(shots / f"{path or 'overview'}.png"), full_page=True)
        assert tables or path == "launch", f"/{path}: no table drawn"
        unsaid = [t["columns"] for t in tables if t["wide"] and not t["said"]]
        assert not unsaid, f"/{path}: tables scroll sideways unsaid: {unsaid}"

    page.goto(f"{app}/leaderboard?game=tictactoe")
    settle(page)
    page.evaluate(WATCH_RERUNS)
    with page.expect_download(timeout=SETTLE_MS) as download:
        page.get_by_role("button", name="Download this page as an HTML report").click()
    assert page.evaluate("window.reruns") == 0  # a rerun under the click once dropped the file's maker: no download
    saved = shots / "leaderboards_report.html"
    download.value.save_as(saved)
    made = saved.read_text(encoding="utf-8")
    assert "provisional, not ranked" in made and "class='caption'" in made
    assert re.search(r"<td>\d+\.\d% \(\d+\)</td>", made)  # the grid's cells as the page shows them
    report = browser.new_page(viewport={"width": 1400, "height": 900})
    report.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:") else route.abort())
    report.goto(saved.as_uri())
    report.wait_for_selector(".js-plotly-plot .point path", state="attached", timeout=30_000)  # the inlined plotly.js

    fills = report.evaluate("() => [...document.querySelectorAll('.js-plotly-plot .point path')]"
                            ".map(p => getComputedStyle(p).fill)")
    report.screenshot(path=str(shots / "leaderboards_report.png"), full_page=True)
    palette = {re.sub(r"\s", "", c) for c in PALETTE}
    assert fills and {re.sub(r"\s", "", f) for f in fills} <= palette and len(set(fills)) >= 2, fills
