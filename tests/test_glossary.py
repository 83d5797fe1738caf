"""The Glossary page holds the definitions; every caption of every page says in two sentences at most what matters
for its table and links its term there (issue 40, line 8: 100-250 word captions repeated the win rate's definition
on every page, and the caveats that matter drowned)."""

from __future__ import annotations

import asyncio
import re

import pytest

from engine import store
from engine.papers import headline
from engine.papers.registry import all_suites
from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.present.column_help import GLOSSARY, OWN_TABLE_NOTES, anchor
from engine.testing import StubReply, StubServer
from tests.page_run import run_page

pytestmark = pytest.mark.slow

LINK = re.compile(r"\[([^\]]*)\]\(glossary(?:#([a-z0-9-]*))?\)")


def played(url: str) -> dict:
    """Every suite's games, some self-play only (MAgIC's Undercover, Hanabi), and a model whose unparseable answers
    end in fallback moves, at two temperatures (Robustness' levels)."""
    model = [{"agent": "openai/stub-model", "api_base": url, "temperature": t, "max_tokens": 16} for t in (0.0, 1.0)]
    return {"name": "captions", "seed": 2, "repeats": 2, "games": [
        {"game": "chameleon", "lineups": [{"challenger": "bot:random", "others": "bot:letters"}]},
        {"game": "undercover", "preset": "magic", "lineups": [{"all": "bot:letters"}]},
        {"game": "cost_sharing", "lineups": [{"challenger": "bot:selfish", "others": "bot:fair"}]},
        {"game": "prisoners_dilemma", "lineups": [{"challenger": "bot:random", "others": "bot:tit_for_tat"}]},
        {"game": "undercover", "preset": "wis", "lineups": [["bot:letters", "bot:random", "bot:letters",
                                                             "bot:letters", "bot:letters", "bot:letters"]]},
        {"game": "guessing_game", "params": {"players": 2, "rounds": 2}, "lineups": [[m, "bot:random"]
                                                                                      for m in model]},
        {"game": "tictactoe", "lineups": [["bot:equilibrium", "bot:random"], [model[0], "bot:random"]]},
        {"game": "hanabi", "lineups": [{"all": "bot:hint_follower"}]},
    ]}


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("glossary") / "results.duckdb"
    with StubServer() as stub:
        stub.responder = lambda req: StubReply("no idea")  # every decision a fallback move
        asyncio.run(run_spec(parse_spec(played(stub.url)), path, progress=False))
    return path


def sentences(caption: str) -> list[str]:
    """The caption's sentences as it reads: its links, code spans and escapes taken out first."""
    text = re.sub(r"\\(.)", r"\1", LINK.sub("", re.sub(r"`[^`]*`", "code", caption)))
    return [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s.strip()]


def pages_run(db, monkeypatch) -> dict[str, list]:
    """Every page of the dashboard (a page that shows more on a link, run on that link too): its AppTest runs."""
    fallback = store.query(db, "SELECT match_id FROM turns WHERE fallback ORDER BY match_id LIMIT 1")["match_id"][0]
    links = {"overview": [{}], "leaderboard": [{}, {"game": "tictactoe"}, {"game": "hanabi"}],
             "abilities": [{}], "games": [{}, {"game": "undercover"}, {"game": "hanabi"}],
             "robustness": [{}], "transcripts": [{}, {"match": fallback}, {"agents": "bot:letters", "game": "hanabi"}],
             "launch": [{}], "glossary": [{}]}
    return {page: [run_page(page, db, monkeypatch, **params) for params in opened] for page, opened in links.items()}


def test_every_caption_of_every_page_is_two_sentences_at_most_and_links_the_glossary(db, monkeypatch):
    glossary = run_page("glossary", db, monkeypatch)
    anchors = {h.proto.anchor for h in [*glossary.header, *glossary.subheader]}
    seen = 0
    for page, runs in pages_run(db, monkeypatch).items():
        for at in runs:
            assert not at.exception, (page, at.exception)
            for caption in (c.value for c in at.caption):
                seen += 1
                assert len(sentences(caption)) <= 2, (page, caption)
                links = LINK.findall(caption)
                assert links, (page, caption)
                assert all(not place or place in anchors for _, place in links), (page, caption)
    assert seen > 40  # the pages drew their tables, and their captions were read


def test_the_glossary_holds_the_definitions_and_the_menu_lists_it(db, monkeypatch):
    at = run_page("glossary", db, monkeypatch)
    assert not at.exception
    text = "\n".join(m.value for m in at.markdown)
    assert all(definition[1:60] in text for definition in headline.DEFINITIONS.values())  # the headline's, whole
    assert all(suite.caption[:60] in text for suite in all_suites().values())  # each paper's own table, whole
    anchors = {h.proto.anchor for h in [*at.header, *at.subheader]}
    assert {anchor(term) for term in GLOSSARY} | {anchor(s.title) for s in all_suites().values()} <= anchors
    assert set(OWN_TABLE_NOTES) <= set(all_suites())
    assert 'st.Page("pages/glossary.py"' in open("app.py", encoding="utf-8").read()


def test_a_caption_says_what_matters_for_its_table(db, monkeypatch):
    """Self-play left out, partial rows and the ranking's caveat stay beside the tables they concern, short."""
    board = run_page("leaderboard", db, monkeypatch)
    captions = [c.value for c in board.caption]
    assert any("self-play" in c and "left out" in c for c in captions)
    assert any(OWN_TABLE_NOTES["wis"] in c for c in captions)
    assert not any(headline.DEFINITIONS["win rate"][:40] in c for c in captions)  # defined once, on the glossary
