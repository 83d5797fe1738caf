"""The exported site in a real browser, from disk: Debian's Chromium (through Playwright, as tests/test_browser.py
drives it) opens index.html as a file:// URL with the network cut off, follows a suite, a number of its agents x
games grid, and a match id to that match's turns; the charts draw from the site's own plotly.js, and neither a
model's <script> answer nor an agent named with markup runs. Screenshots land in /tmp/arena-export-shots."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

from engine.present.export import export_site
from tests.test_browser import CHROMIUM, FLAGS
from tests.test_export import played  # noqa: F401 - the played database, a fixture shared with the export's tests

pytestmark = pytest.mark.browser
SHOTS = Path("/tmp/arena-export-shots")


@pytest.fixture(scope="module")
def site(played, tmp_path_factory):  # noqa: F811 - the fixture imported above
    db, _ = played
    return export_site(db, tmp_path_factory.mktemp("browser_export") / "site").site


@pytest.fixture(scope="module")
def page():
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        context = chromium.new_context(viewport={"width": 1400, "height": 900})
        asked = []
        context.route(re.compile(r"^(?!file:).*"), lambda route: (asked.append(route.request.url), route.abort()))
        tab = context.new_page()
        tab.asked, tab.errors, tab.dialogs = asked, [], []
        tab.on("pageerror", lambda error: tab.errors.append(str(error)))
        tab.on("dialog", lambda dialog: (tab.dialogs.append(dialog.message), dialog.dismiss()))
        yield tab
        chromium.close()


def shot(page, name: str) -> None:
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_from_the_index_a_number_leads_to_its_matches_and_a_match_to_its_turns(site, page):
    page.goto((site / "index.html").as_uri())
    expect(page.get_by_role("heading", level=1)).to_contain_text("The study in")
    shot(page, "index")
    page.get_by_role("link", name="LLMArena").click()
    expect(page.get_by_role("heading", name="Agents x games")).to_be_visible()
    shot(page, "suite")
    cell = page.get_by_role("link", name=re.compile(r"^[\d.]+% \(\d+\)$")).first
    behind = int(re.search(r"\((\d+)\)", cell.inner_text()).group(1))
    cell.click()
    expect(page.locator("p.note").first).to_contain_text(f"{behind} match")
    matches = page.locator('a[href^="../matches/"]')
    expect(matches).to_have_count(behind)
    shot(page, "list")
    match_id = matches.first.inner_text()
    matches.first.click()
    expect(page.get_by_role("heading", level=1)).to_contain_text(f"Match {match_id}")
    expect(page.locator("section.turn").first).to_be_visible()
    assert page.locator("section.turn").count() > 1
    shot(page, "match")
    assert page.errors == [] and page.asked == []


def test_charts_draw_offline_and_hostile_text_stays_text(site, page):
    page.goto((site / "games" / "tictactoe.html").as_uri())
    page.locator(".plot-container .main-svg").first.wait_for(state="visible")  # plotly.js from the site drew it
    label = page.get_by_text('<img src=x onerror="window.owned = true">').first
    expect(label).to_be_visible()  # the agent's name as its characters, in the table and the chart
    shot(page, "game")
    answered = next(p for p in (site / "matches").glob("*.html") if "&lt;script&gt;" in p.read_text("utf-8"))
    page.goto(answered.as_uri())
    expect(page.get_by_text("<script>window.owned = true</script>").first).to_be_visible()
    shot(page, "hostile_match")
    assert page.evaluate("window.owned === undefined") and page.dialogs == []
    assert page.errors == [] and page.asked == []
