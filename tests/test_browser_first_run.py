"""A researcher's click-through of the first run in a real browser (issue 15's items): the dashboard over the
database `make run` makes (runs/quick.yaml), opened in Debian's Chromium through Playwright; each step leaves a
whole-page screenshot (in $ARENA_SCREENSHOTS when set, else the test's tmp dir). Its own module: the first run is
played before Playwright's event loop starts in this process."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

from engine.wording import count
from tests.test_browser import CHROMIUM, FLAGS, open_page, serving, settle

pytestmark = [pytest.mark.browser, pytest.mark.model]


@pytest.fixture(scope="module")
def first_visit(first_run_db):
    with serving(first_run_db) as url:
        yield url


@pytest.fixture(scope="module")
def browser(first_visit):  # after the first run is played and served
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        yield chromium
        chromium.close()


SHOTS = os.environ.get("ARENA_SCREENSHOTS")  # a folder to keep the click-through's screenshots in (else tmp)


def shoot(page, folder, name: str) -> None:
    """The whole page: Streamlit scrolls inside its own container, so the viewport is made as tall as it."""
    height = page.evaluate("document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
    page.set_viewport_size({"width": 1400, "height": min(max(height + 100, 1000), 12_000)})
    page.wait_for_timeout(500)
    page.screenshot(path=str(folder / f"{name}.png"))
    page.set_viewport_size({"width": 1400, "height": 1000})


BLANK = """() => {  // the page's height below its last drawn element
    const main = document.querySelector('[data-testid="stMain"]');
    let last = 0;
    for (const el of main.querySelectorAll('[data-testid="stElementContainer"]')) {
        const box = el.getBoundingClientRect();
        if (box.height > 0) last = Math.max(last, box.bottom + main.scrollTop);
    }
    return main.scrollHeight - last;
}"""


def test_a_researchers_click_through_the_first_run(first_visit, browser, tmp_path):
    """Items of issue 15 in a real browser, over the first-run database: headline tables with their
    definitions, a grid cell's transcripts, a search hit highlighted, robustness verdicts, the abilities."""
    folder = Path(SHOTS) if SHOTS else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    page = open_page(browser, f"{first_visit}/leaderboard")
    page.get_by_text("What each number means").click()
    page.get_by_text("self-play (every seat the same agent) is left out").first.wait_for(state="visible")
    assert page.get_by_text("Agents x games").count() >= 3  # a grid per suite
    assert page.locator('[data-testid="stException"]').count() == 0
    shoot(page, folder, "1_leaderboards")
    cell = page.get_by_role("link", name=re.compile(r"^\d+\.\d% \(\d+\)$")).first  # a grid cell: "62.5% (8)"
    behind = int(re.search(r"\((\d+)\)", cell.inner_text()).group(1))  # the contested matches behind it
    with page.context.expect_page() as opened:
        cell.click()
    page = opened.value
    settle(page)
    expect(page.get_by_role("heading", name=f"Matches: {count(behind, 'match')}")).to_be_visible()
    assert "contested=1" in page.url and page.get_by_text("self-play left out").count() == 1
    shoot(page, folder, "2_grid_cell_transcripts")
    page = open_page(browser, f"{first_visit}/transcripts?game=guessing_game&q=chosen_number")
    hit = page.locator("mark").first
    hit.wait_for(state="visible")
    assert hit.inner_text().lower() == "chosen_number"
    shoot(page, folder, "3_search_hit")
    # local/smollm2, its first factor (prompt versions), its fallback scores counted: its own are too few to judge
    page = open_page(browser, f"{first_visit}/robustness?with_fallbacks=1")
    page.get_by_text("guessing_game: inconclusive, in setting").wait_for(state="visible")  # that factor's verdict
    assert page.get_by_text("not enough data").count() >= 1  # the repeats: one score a level
    page.get_by_text("an equivalence test").wait_for(state="visible")  # the rule, on the page
    assert page.get_by_text("inconclusive").count() >= 1  # six scores a level, p > 0.05: not "robust"
    page.locator("text.gtitle", has_text="95% interval of the mean").first.wait_for(state="visible")
    assert page.evaluate(BLANK) < 80  # no band of blank page under the last table (Streamlit's 10rem)
    shoot(page, folder, "5_robustness")
    page = open_page(browser, f"{first_visit}/abilities")
    page.locator("text.gtitle", has_text="Radar area against the").wait_for(state="visible")  # Figure 1's
    assert page.locator("text.legendtext", has_text="radar area (% of the full radar)").count() == 1
    assert page.evaluate(BLANK) < 80
    shoot(page, folder, "5_abilities")
    page = open_page(browser, f"{first_visit}/")
    shoot(page, folder, "6_overview")  # the matches table opens with its transcript link
    page = open_page(browser, f"{first_visit}/transcripts?game=connect_four&turn=12")
    page.locator('img[src^="data:image/svg+xml"]').first.wait_for(state="visible")
    shoot(page, folder, "4_board")
    assert len(list(folder.glob("*.png"))) >= 7


def test_a_changed_search_opens_its_own_match_and_the_turn_fits(first_visit, first_run_db, browser, tmp_path):
    """A link's match outside a new search gives way to the search's first hit; the heading counts the matches;
    a turn's facts stay inside a 1400 px page."""
    from engine import store

    folder = Path(SHOTS) if SHOTS else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    tictactoe = store.query(first_run_db, "SELECT match_id FROM matches WHERE game = 'tictactoe' LIMIT 1")
    tictactoe = tictactoe["match_id"][0]
    page = open_page(browser, f"{first_visit}/transcripts?match={tictactoe}")
    expect(page.get_by_role("combobox", name="Match")).to_have_value(tictactoe)
    page.get_by_role("textbox", name="Search the messages").fill("chosen_number")
    page.get_by_role("textbox", name="Search the messages").press("Enter")
    expect(page.get_by_role("combobox", name="Match")).not_to_have_value(tictactoe)
    page.locator("mark").first.wait_for(state="visible")  # the new match opens on its first hit
    matching = store.query(first_run_db, "SELECT count(DISTINCT match_id) AS n FROM turns "
                           "WHERE response ILIKE '%chosen_number%'")["n"][0]
    page.get_by_text(f"Matches: {matching} matches").wait_for(state="visible")
    for table in page.locator('[data-testid="stDataFrame"]').all():
        box = table.bounding_box()
        assert box is None or box["x"] + box["width"] <= 1400  # nothing runs off the page
    assert page.evaluate(BLANK) < 80
    shoot(page, folder, "3_changed_search")
