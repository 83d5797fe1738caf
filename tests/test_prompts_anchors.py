"""Answers that measure the prompt (issue 40): a model answering a prompt's example, or one value every time, is
flagged per agent, question and condition from the turn log (`engine/present/answer_flags.py`), and the Transcripts and
Robustness pages show the flag. The prompts of an older arena showed examples ("for example: {"chosen_number":
42}"); a prompts folder holding one stands for them here."""

from __future__ import annotations

import asyncio
import itertools

import pytest

from engine import store
from engine.agents import prompting
from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.present import answer_flags, transcripts
from engine.testing import StubReply, StubServer
from tests.page_run import run_page

pytestmark = pytest.mark.slow

ANCHORED = """system: |
  You are {player}, one of {n} players. Pick a whole number from {min} to {max}; closest to {ratio_text} of the
  average wins.
choose: |
  Round {round} of {rounds}. Answer with a JSON object on the last line, for example: {{"chosen_number": 42}}
"""


def seat(url: str, version: str, label: str) -> dict:
    return {"agent": "openai/stub-model", "api_base": url, "prompt_version": version, "label": label,
            "max_tokens": 16}


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    """`copier` answers 42 under a prompt whose example is 42 (v1, the old wording) and under one without an
    example (v2); `varied` answers 10, 11, 12, ... under the anchored prompt; `garbled` never answers usably (its
    moves are the engine's fallbacks, not its answers)."""
    folder = tmp_path_factory.mktemp("prompts")
    (folder / "guessing_game").mkdir()
    (folder / "guessing_game" / "v1.yaml").write_text(ANCHORED, encoding="utf-8")
    (folder / "guessing_game" / "v2.yaml").write_text(
        (prompting.PROMPTS_DIR / "guessing_game" / "v2.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "tictactoe").mkdir()  # the old TicTacToe example: a text, not a JSON object
    (folder / "tictactoe" / "v1.yaml").write_text((prompting.PROMPTS_DIR / "tictactoe" / "v1.yaml").read_text(
        encoding="utf-8").replace('as "{mark}: (<row>,<column>)"', 'for example: "{mark}: (1,3)"'), encoding="utf-8")
    path = tmp_path_factory.mktemp("anchors") / "results.duckdb"
    counter = itertools.count(10)
    replies = {"copier": lambda: '{"chosen_number": 42}', "varied": lambda: f'{{"chosen_number": {next(counter)}}}',
               "garbled": lambda: "no idea", "marker": lambda: "X: (1,3)"}
    with pytest.MonkeyPatch.context() as patch, StubServer() as server:
        patch.setattr(prompting, "PROMPTS_DIR", folder)
        prompting.load_template.cache_clear()
        server.responder = lambda req: StubReply(replies[req["model"].split("-", 1)[0]]())
        lineup = [[seat(server.url, "v1", "copier"), "bot:random"], [seat(server.url, "v2", "copier"), "bot:random"],
                  [seat(server.url, "v1", "varied"), "bot:random"], [seat(server.url, "v1", "garbled"), "bot:random"]]
        for lineup_seats in lineup:  # the stub tells the agents apart by the model name it is sent
            lineup_seats[0]["agent"] = f"openai/{lineup_seats[0]['label']}-model"
        marker = seat(server.url, "v1", "marker") | {"agent": "openai/marker-model"}
        raw = {"name": "anchors", "seed": 0, "repeats": 4, "concurrency": 1, "games": [
            {"game": "guessing_game", "params": {"players": 2, "rounds": 1}, "lineups": lineup},
            {"game": "tictactoe", "lineups": [[marker, "bot:random"]]}]}
        asyncio.run(run_spec(parse_spec(raw), path, progress=False))
    prompting.load_template.cache_clear()
    return path


COPIER, VARIED, MARKER = (f"{label} · openai/{label}-model" for label in ("copier", "varied", "marker"))


def test_an_agent_answering_the_prompts_example_or_one_value_is_flagged(db):
    flags = answer_flags.answer_flags(db).set_index(["agent", "prompt_version"])
    copied = flags.loc[(COPIER, "v1")]
    assert (copied["answers"], copied["copied"], copied["top_answer"], copied["flag"]) == (4, 4, "42",
                                                                                           answer_flags.COPIED)
    constant = flags.loc[(COPIER, "v2")]  # no example in that prompt: one value every time
    assert (constant["answers"], constant["copied"], constant["flag"]) == (4, 0, answer_flags.CONSTANT)
    varied = flags.loc[(VARIED, "v1")]
    assert (varied["answers"], varied["distinct"], varied["flag"]) == (4, 4, "")
    # a fallback move is not the agent's answer
    assert not [agent for agent in flags.index.get_level_values("agent") if "garbled" in agent]
    assert answer_flags.flag_lines(flags.reset_index())[0] == (
        f"{COPIER}, guessing_game (choose), prompt v1, temperature 1.00, vanilla: answers copy the prompt's example "
        "(4 of 4 answers: 42)")


def test_an_answer_ending_with_a_text_example_copies_it(db):
    """TicTacToe's old example "X: (1,3)", answered every time (the cell taken after its first move)."""
    marker = answer_flags.answer_flags(db, game="tictactoe").set_index("agent").loc[MARKER]
    assert marker["answers"] >= 4 and marker["copied"] == marker["answers"] and marker["flag"] == answer_flags.COPIED


def test_bots_are_never_flagged(db):
    assert set(answer_flags.answer_flags(db)["agent"]) == {COPIER, VARIED, MARKER}  # bot:random answered too


def match_of(db, label: str, version: str) -> str:
    return store.rows(db, "SELECT match_id FROM seats WHERE label = ? AND prompt_version = ? LIMIT 1",
                      [label, version])[0][0]


def test_transcripts_flag_the_seated_agent_that_copies(db, monkeypatch):
    match_id = match_of(db, "copier", "v1")
    assert transcripts.seat_flags(db, match_id) == [
        f"{COPIER}, guessing_game (choose), prompt v1, temperature 1.00, vanilla: answers copy the prompt's example "
        "(4 of 4 answers: 42)"]
    assert transcripts.seat_flags(db, match_of(db, "varied", "v1")) == []
    at = run_page("transcripts", db, monkeypatch, match=match_id)
    assert not at.exception
    warned = " ".join(w.value for w in at.warning).replace("\\", "")  # the page escapes markdown
    assert "answers copy the prompt's example (4 of 4 answers: 42)" in warned
    quiet = run_page("transcripts", db, monkeypatch, match=match_of(db, "varied", "v1"))
    assert not [w.value for w in quiet.warning if "Answers to check" in w.value]


def test_robustness_flags_the_model_it_shows(db, monkeypatch):
    at = run_page("robustness", db, monkeypatch, agent="copier")
    assert not at.exception
    said = " ".join(w.value for w in at.warning).replace("\\", "")  # the page escapes markdown
    assert "prompt v1, temperature 1.00, vanilla: answers copy the prompt's example (4 of 4 answers: 42)" in said
    assert "prompt v2, temperature 1.00, vanilla: constant answers (4 of 4 answers: 42)" in said
