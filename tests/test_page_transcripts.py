"""The transcripts page, headless, over a small database: bot matches plus LLM matches (through the local
stub) whose model answers with a <script> and needs re-asking. Finding, stepping, drawing, escaping."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

import pytest
from streamlit.testing.v1 import AppTest

from engine import store
from engine.play.runner import run_spec
from engine.play.spec import parse_spec
from engine.testing import StubReply, StubServer
from pages.shared.markdown import plain
from tests.page_run import run_page

pytestmark = pytest.mark.slow

SCRIPT = '<script>alert("owned")</script> <b>bold</b>'
BOTS = {"name": "bots", "seed": 3, "repeats": 2, "games": [
    {"game": "tictactoe", "lineups": [["bot:equilibrium", "bot:random"]]},
    {"game": "texas_holdem", "repeats": 1, "lineups": [["bot:hand_strength", "bot:random"]]},
    {"game": "undercover", "preset": "magic", "repeats": 1, "lineups": [{"all": "bot:letters"}]},
]}


def hostile() -> Callable[[dict], StubReply]:
    """First answer to a question unparseable, the re-ask (γ-Bench's: the same question again) a number wrapped in
    markup."""
    asked: dict[str, int] = {}

    def answer(request: dict) -> StubReply:
        question = json.dumps(request["messages"])
        asked[question] = asked.get(question, 0) + 1
        return StubReply(f'{SCRIPT} {{"chosen_number": 7}}' if asked[question] % 2 == 0 else "no idea")

    return answer


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("transcripts") / "results.duckdb"
    asyncio.run(run_spec(parse_spec(BOTS), path, progress=False))
    with StubServer(hostile()) as stub:
        seat = {"agent": "openai/stub-model", "api_base": stub.url, "temperature": 0.0, "max_tokens": 32}
        llm = {"name": "llm", "seed": 1, "repeats": 2, "concurrency": 1, "games": [  # one at a time: asked in turn
            {"game": "guessing_game", "params": {"players": 2, "rounds": 1, "reading": "lenient"},  # markup around JSON
             "lineups": [[seat, "bot:random"]]}]}
        asyncio.run(run_spec(parse_spec(llm), path, progress=False))
    return path


def page(db, monkeypatch, **params) -> AppTest:
    return run_page("transcripts", db, monkeypatch, **params)


def found(at: AppTest):
    """The match list, its match ids as the ids (the page holds each as the link that opens it)."""
    listed = at.dataframe[0].value
    return listed.assign(match_id=listed["match_id"].str.removeprefix("transcripts?match="))


def test_search_by_game_agent_outcome_failures_and_text(db, monkeypatch):
    at = page(db, monkeypatch)
    assert not at.exception and len(found(at)) == 2 + 1 + 1 + 2
    assert set(found(page(db, monkeypatch, game="tictactoe"))["game"]) == {"tictactoe"}
    won = found(page(db, monkeypatch, game="tictactoe", agents="bot:equilibrium", outcome="the agent won"))
    wins = store.query(db, """SELECT count(*) AS n FROM seats s JOIN matches m USING (match_id)
                              WHERE m.game = 'tictactoe' AND s.agent = 'bot:equilibrium' AND s.won""")["n"][0]
    assert len(won) == wins and all("bot:equilibrium (won)" in lineup for lineup in won["lineup"])
    failures = found(page(db, monkeypatch, failures="1"))
    assert set(failures["game"]) == {"guessing_game"} and len(failures) == 2
    assert (failures["failures"].astype(int) > 0).all()
    by_text = found(page(db, monkeypatch, q="ALERT(\"owned"))  # case-insensitive, in the raw answers
    assert set(by_text["game"]) == {"guessing_game"}
    assert page(db, monkeypatch, q="never said by anyone").info[0].value == "No match fits this search."
    rules = "SECRETLY PICKS a whole number"  # only in the prompts the LLM seat was sent
    assert page(db, monkeypatch, q=rules).info[0].value == "No match fits this search."
    in_prompts = page(db, monkeypatch, q=rules, prompts="1")
    assert set(found(in_prompts)["game"]) == {"guessing_game"} and in_prompts.checkbox(key="prompts").value


def test_text_search_is_literal_and_case_blind():
    """Any typed text, regular-expression characters included, is found exactly where a case-blind
    substring test finds it."""
    import random
    import string

    import duckdb

    from engine.present.transcripts import literal_pattern

    rng = random.Random(0)
    alphabet = string.ascii_letters[:6] + "ABé É" + string.punctuation + "\n\t"
    con = duckdb.connect()
    checked = 0
    for _ in range(3000):
        hay = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        start = rng.randint(0, len(hay))
        needle = hay[start:start + rng.randint(1, 4)] if rng.random() < 0.5 else \
            "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 3)))
        needle = "".join(c.swapcase() if rng.random() < 0.5 else c for c in needle)
        if not needle:
            continue
        got = con.execute("SELECT regexp_matches(?, ?, 'i')", [hay, literal_pattern(needle)]).fetchone()[0]
        assert got == (needle.lower() in hay.lower()), (hay, needle)
        checked += 1
    assert checked > 2500


def test_the_selection_lives_in_the_url(db, monkeypatch):
    at = page(db, monkeypatch)
    at.selectbox(key="game").set_value("texas_holdem").run()
    at.checkbox(key="failures").check().run()
    assert at.query_params["game"] == "texas_holdem" and at.query_params["failures"] == "1"
    assert at.info[0].value == "No match fits this search."  # bots never fail to parse


def llm_match(db) -> str:
    return store.query(db, "SELECT match_id FROM matches WHERE game = 'guessing_game' ORDER BY match_id")["match_id"][0]


def test_a_script_in_an_answer_is_shown_as_text_only(db, monkeypatch):
    match_id = llm_match(db)
    turns = store.query(db, "SELECT turn, response FROM turns WHERE match_id = ? AND seat = 0", [match_id])
    at = page(db, monkeypatch, match=match_id, turn=str(int(turns["turn"][0])))
    assert not at.exception
    assert SCRIPT in turns["response"][0]
    assert any(SCRIPT in c.value for c in at.code)  # the raw answer, verbatim, in a code block
    markdown = [m.value for m in at.markdown] + [c.value for c in at.caption] + [t.value for t in at.text]
    assert not any("<script" in m or "<b>" in m for m in markdown)  # never handed to markdown
    assert not at.get("html")
    assert 'no JSON object with "chosen_number"' in " ".join(c.value for c in at.code)  # why it was asked again
    report = at.get("download_button")
    assert report
    assert any(d.proto.label.startswith("Download this page") for d in report)


def test_stepping_through_a_match_draws_the_board(db, monkeypatch):
    match_id = store.query(db, "SELECT match_id FROM matches WHERE game = 'tictactoe' LIMIT 1")["match_id"][0]
    turns = store.query(db, "SELECT turn, state FROM turns WHERE match_id = ? ORDER BY turn", [match_id])
    at = page(db, monkeypatch, match=match_id)
    assert at.slider(key="turn").value == 0
    for _ in range(3):
        at.button(key="next").click().run()
    assert at.slider(key="turn").value == 3 and at.query_params["turn"] == "3"
    board = json.loads(turns["state"][3])["board"]
    text_rows = next(c.value for c in at.code if c.value.startswith("1 2 3")).splitlines()[1:]
    assert " ".join(text_rows).split() == [c or "." for c in board]  # letters, never emoji
    svg = at.get("image")[0].proto.imgs[0].url
    assert svg.startswith("data:image/svg+xml")  # the drawn board: shapes, no font needed
    at.button(key="previous").click().run()
    assert at.slider(key="turn").value == 2


def test_poker_and_social_states_are_drawn(db, monkeypatch):
    poker = store.query(db, "SELECT match_id FROM matches WHERE game = 'texas_holdem'")["match_id"][0]
    last = store.query(db, "SELECT max(turn) AS t FROM turns WHERE match_id = ?", [poker])["t"][0]
    at = page(db, monkeypatch, match=poker, turn=str(last))
    assert not at.exception
    assert {m.label for m in at.metric} == {"Board", "Pot"} and "chips won" in at.table[0].value.columns
    social = store.query(db, "SELECT match_id FROM matches WHERE game = 'undercover'")["match_id"][0]
    last = store.query(db, "SELECT max(turn) AS t FROM turns WHERE match_id = ?", [social])["t"][0]
    at = page(db, monkeypatch, match=social, turn=str(last))
    assert not at.exception
    headers = [m.value for m in at.markdown]
    assert "Clues" in headers and "Votes" in headers


def test_a_huge_answer_is_cut_for_display_and_shown_whole_on_request(tmp_path, monkeypatch):
    from engine.present import transcripts

    db = tmp_path / "huge.duckdb"
    asyncio.run(run_spec(parse_spec({"name": "huge", "games": [
        {"game": "tictactoe", "lineups": [["bot:random", "bot:random"]]}]}), db, progress=False))
    huge = "spam " * 200_000  # 1 MB, as stored before answers had a size limit
    with store.connect(db) as con:
        con.execute("UPDATE turns SET response = ? WHERE turn = 1", [huge])
    match_id = store.rows(db, "SELECT match_id FROM matches")[0][0]
    at = page(db, monkeypatch, match=match_id, turn="1")
    assert not at.exception
    assert max(len(c.value) for c in at.code) <= transcripts.DISPLAY_CHARS
    assert any("first 4,000 of 1,000,000 characters" in c.value for c in at.caption)
    assert all(len(str(v)) <= transcripts.DISPLAY_CHARS for df in at.dataframe for v in df.value.get("response", []))
    at.toggle(key=f"all_{match_id}_1").set_value(True).run()
    assert not at.exception and any(c.value == huge for c in at.code)


def test_a_reasked_turn_wears_its_badge_and_a_search_opens_on_its_hit_highlighted(db, monkeypatch):
    match_id = llm_match(db)
    turns = store.query(db, "SELECT turn, retries FROM turns WHERE match_id = ? AND seat = 0", [match_id])
    reasked = int(turns.loc[turns["retries"] > 0, "turn"].iloc[0])
    at = page(db, monkeypatch, match=match_id, turn=str(reasked))
    badges = [m.value for m in at.markdown if "badge[" in m.value]
    assert any("re-asked x1" in b for b in badges), badges
    flags = next(df.value for df in at.dataframe if "flags" in df.value.columns)
    assert set(flags["flags"]) == {"re-asked x1", ""}  # its parse error is the re-ask's reason, not a badge of its own
    at = page(db, monkeypatch, match=match_id, q="bold</b")  # no turn in the link: the first hit opens
    position = at.slider(key="turn").value
    hit = [h.proto.body for h in at.get("html")]
    assert position == reasked and len(hit) == 1
    assert "<mark>bold&lt;/b</mark>" in hit[0] and "<script" not in hit[0]  # highlighted, and still text


def test_a_link_to_a_match_outside_the_newest_results_opens_it(db, monkeypatch):
    oldest = store.query(db, "SELECT match_id FROM matches ORDER BY finished_at LIMIT 1")["match_id"][0]
    at = page(db, monkeypatch, match=oldest, game="guessing_game")  # a search that does not list it
    assert not at.exception and at.selectbox(key="match").value == oldest


def test_a_changed_search_opens_its_own_first_hit(db, monkeypatch):
    """A link's match outside the search opens (above); once the reader changes the search, the old match and
    turn give way to the new search's first hit."""
    tictactoe = store.query(db, "SELECT match_id FROM matches WHERE game = 'tictactoe' LIMIT 1")["match_id"][0]
    at = page(db, monkeypatch, match=tictactoe, turn="3")
    assert at.selectbox(key="match").value == tictactoe
    at.selectbox(key="game").set_value("guessing_game").run()
    assert not at.exception
    hits = found(at)["match_id"].tolist()
    assert set(found(at)["game"]) == {"guessing_game"}
    assert at.selectbox(key="match").value == hits[0] and at.query_params.get("match") != tictactoe
    at.text_input(key="q").set_value("chosen_number").run()  # the match is among the hits: it stays
    assert at.selectbox(key="match").value == hits[0]
    turns = store.query(db, "SELECT turn FROM turns WHERE match_id = ? AND response ILIKE '%chosen_number%' "
                        "ORDER BY turn", [hits[0]])["turn"].tolist()
    assert at.slider(key="turn").value == turns[0]  # the search's first hit, not the old turn


def test_the_heading_counts_the_matches_beyond_the_list(db, monkeypatch):
    from engine.present import transcripts

    assert at_heading(page(db, monkeypatch, game="texas_holdem")) == "Matches: 1 match"
    monkeypatch.setattr(transcripts, "MAX_RESULTS", 3)
    at = page(db, monkeypatch)
    assert len(found(at)) == 3
    assert at_heading(at) == "Matches: showing the first 3 of 6 (newest first)"


def test_a_cut_list_downloads_under_a_name_that_says_so(db, monkeypatch):
    """A new user's pass: the Matches CSV of a list cut at MAX_RESULTS was named `matches.csv`, as Overview's file of
    every match, though it held only the listed ones."""
    from streamlit.delta_generator import DeltaGenerator

    from engine.present import transcripts

    files: list[str] = []
    monkeypatch.setattr(DeltaGenerator, "download_button",
                        lambda self, label, data, file_name, *a, **k: files.append(file_name))
    page(db, monkeypatch)
    assert {"matches.csv", "matches.parquet"} <= set(files)
    files.clear()
    monkeypatch.setattr(transcripts, "MAX_RESULTS", 3)
    at = page(db, monkeypatch)
    assert {"matches_first_3.csv", "matches_first_3.parquet"} <= set(files) and "matches.csv" not in files
    assert any("hold the 3 matches listed" in c.value for c in at.caption)


def at_heading(at: AppTest) -> str:
    return next(h.value for h in at.subheader if h.value.startswith("Matches"))


def test_a_turns_facts_fit_beside_the_prompt_and_long_params_wrap(db, monkeypatch):
    """The facts of a turn are one a row (eight columns ran off half a 1400 px page); a match's params wrap."""
    match_id = store.query(db, "SELECT match_id FROM matches WHERE game = 'guessing_game' LIMIT 1")["match_id"][0]
    at = page(db, monkeypatch, match=match_id, turn="1")
    facts = next(df.value for df in at.dataframe if list(df.value.columns) == ["fact", "value"])
    assert {"legal", "tokens_in", "latency_ms", "cached"} <= set(facts["fact"])
    params = next(c for c in at.code if c.value.startswith("params: "))
    assert params.proto.wrap_lines and "\"players\": 2" in params.value and "\noutcome: {" in params.value


def test_every_turns_table_puts_the_long_answer_last(db, monkeypatch):
    """The short columns of the turn table stay inside a 1400 px page; the answer, the long one, comes last."""
    match_id = store.query(db, "SELECT match_id FROM matches WHERE game = 'guessing_game' LIMIT 1")["match_id"][0]
    at = page(db, monkeypatch, match=match_id)
    log = next(df.value for df in at.dataframe if "flags" in df.value.columns)
    assert list(log.columns)[-1] == "response" and {"legal", "retries", "flags"} <= set(log.columns)


def in_page_order(block) -> list:
    """Every element of an AppTest block, top to bottom."""
    out = []
    for child in getattr(block, "children", {}).values():
        out += in_page_order(child) if hasattr(child, "children") else [child]
    return out


def test_unknown_values_in_the_link_are_said_as_plain_text_not_silently_replaced(db, monkeypatch):
    """A stale or mistyped link says what it asked for and what is shown instead (the shared URL helpers, so every
    page does), in one line whose text comes out exactly as typed: never markdown or HTML."""
    from pages.shared.markdown import plain

    at = page(db, monkeypatch, match="doesnotexist")
    first = found(at)["match_id"][0]
    assert at.selectbox(key="match").value == first
    assert [w.value for w in at.warning] == [plain(f"Unknown match 'doesnotexist' in the link: showing {first}.")]
    order = [type(node).__name__ for node in in_page_order(at.main)]
    assert order.index("Warning") < order.index("Dataframe"), order  # at the top, not under the 200-row list
    at = page(db, monkeypatch, game=SCRIPT, agents=["zzz", "bot:random"])
    assert at.selectbox(key="game").value == "(any game)" and at.multiselect(key="agents").value == ["bot:random"]
    shown = f"{SCRIPT[:39]}…"  # a long value is cut: one line
    assert [w.value for w in at.warning] == [plain(f"Unknown game '{shown}' in the link: showing (any game)."),
                                             plain("Unknown agents 'zzz' in the link: left out.")]
    assert not at.get("html") and not at.exception
    assert not page(db, monkeypatch, game="tictactoe").warning  # a known value: nothing to say


def test_the_search_caption_says_where_this_turn_stands_among_the_hits(db, monkeypatch):
    """Whether the link or the reader typed the search, the caption says which hit this turn is (it said "the link
    opened the first" even for a typed search); as plain text, the search being the reader's."""
    from pages.shared.markdown import plain

    match_id = llm_match(db)
    at = page(db, monkeypatch, match=match_id)
    at.text_input(key="q").set_value("bold</b").run()  # typed, not linked
    hit = at.slider(key="turn").value
    said = f"'bold</b' is in 1 turn of this match: {hit}; "
    assert any(c.value.startswith(plain(said + "this turn is hit 1 of 1.")) for c in at.caption)
    at.button(key="next").click().run()
    assert any(c.value.startswith(plain(said + "this turn is none of them.")) for c in at.caption)


def test_a_turns_facts_count_its_transport_failures_and_its_dollars(db, monkeypatch):
    """call_errors (transport failures retried) is among the facts; a model call's dollars read as everywhere."""
    match_id = llm_match(db)
    turns = store.query(db, "SELECT turn, seat FROM turns WHERE match_id = ? AND seat IS NOT NULL ORDER BY turn",
                        [match_id])
    model_turn, bot_turn = (int(turns.loc[turns["seat"] == s, "turn"].iloc[0]) for s in (0, 1))
    with store.connect(db) as con:
        con.execute("UPDATE turns SET call_errors = 2 WHERE match_id = ? AND turn = ?", [match_id, model_turn])

    def facts(turn: int):
        at = page(db, monkeypatch, match=match_id, turn=str(turn))
        return next(df.value for df in at.dataframe if list(df.value.columns) == ["fact", "value"]).set_index("fact")

    model = facts(model_turn)
    assert model.loc["call_errors", "value"] == "2" and model.loc["cost_usd", "value"] == "unknown"  # stub: no price
    assert facts(bot_turn).loc["cost_usd", "value"] == "$0.00"  # a bot calls nothing


def test_a_finished_boards_legend_names_no_one_to_move(db, monkeypatch):
    match_id = store.query(db, "SELECT match_id FROM matches WHERE game = 'tictactoe' LIMIT 1")["match_id"][0]
    states = store.query(db, "SELECT state FROM turns WHERE match_id = ? ORDER BY turn", [match_id])["state"]
    at = page(db, monkeypatch, match=match_id, turn="0")
    assert list(at.table[0].value.columns) == ["moves", "to move"]
    at = page(db, monkeypatch, match=match_id, turn=str(len(states) - 1))
    legend = at.table[0].value
    assert list(legend.columns) == ["moves", "winner"]
    assert legend["winner"].iloc[0] == (json.loads(states.iloc[-1])["winner"] or "none: a draw")


def test_a_random_fallback_is_not_called_a_parse_and_seats_are_named_as_players(tmp_path, monkeypatch):
    """A new user's pass: a random fallback move sat under "How it was parsed"; the round's record, headed "Last",
    read "winners [2]" (seats from 0) beside "Player 3"; seat scores read "99" beside "1.00"; the match list cut
    "finished_at" at 1400 px, and its lineup past the edge."""
    from tests.test_one_definition import PAGE_PX, widths

    path = tmp_path / "results.duckdb"
    with StubServer(lambda request: StubReply("no idea")) as stub:  # never parseable: every move a fallback
        seat = {"agent": "openai/stub-model", "api_base": stub.url, "max_tokens": 16}
        spec = {"name": "fallback", "seed": 5, "games": [  # TicTacToe falls back to a random move; γ-Bench never does
            {"game": "tictactoe", "lineups": [[seat, "bot:random"]]}]}
        asyncio.run(run_spec(parse_spec(spec), path, progress=False))
    fallback_match = store.query(path, "SELECT match_id FROM matches")["match_id"][0]
    turn = int(store.query(path, "SELECT min(turn) AS t FROM turns WHERE fallback")["t"][0])
    at = page(path, monkeypatch, match=fallback_match, turn=str(turn))
    assert not at.exception
    said = [m.value for m in at.markdown]
    assert "**Random fallback (the answer could not be parsed)**" in said and "**How it was parsed**" not in said
    facts = next(df.value for df in at.dataframe if list(df.value.columns) == ["fact", "value"])
    assert facts.set_index("fact")["value"]["retry policy"] == "authors: random action after 3 tries"
    from pages.shared.tables import column_width
    facts_frame = next(df for df in at.dataframe if list(df.value.columns) == ["fact", "value"])
    fitted = widths(facts_frame)  # the retry policy shown whole at 1400 px, not cut at "random action af"
    assert fitted["value"] >= column_width(facts["value"], "value") and sum(fitted.values()) <= PAGE_PX // 2
    rule = plain("'authors': 3 tries, asked the same again, then a random legal action")  # as the page escapes it
    assert any(rule in c.value for c in at.caption)
    spec = {"name": "gama", "seed": 5, "games": [
        {"game": "guessing_game", "params": {"players": 3, "rounds": 1},
         "lineups": [["bot:random", "bot:random", "bot:equilibrium"]]}]}
    asyncio.run(run_spec(parse_spec(spec), path, progress=False))
    match = store.query(path, "SELECT match_id FROM matches WHERE game = 'guessing_game'")["match_id"][0]
    at = page(path, monkeypatch, match=match, turn="1")
    said = [m.value for m in at.markdown]
    assert "The round just played" in said and "Last" not in said
    players = {"Player 1", "Player 2", "Player 3"}
    record = next(df.value for df in at.dataframe if "winners" in df.value.columns)
    assert set(json.loads(record["winners"][0])) <= players  # names, never seat numbers
    seats = next(df.value for df in at.dataframe if "score" in df.value.columns and "player" in df.value.columns)
    assert all(len(v.split(".")[1]) == 2 for v in seats["score"] if v)
    matches = at.dataframe[0]
    columns = list(matches.value.columns)
    shown = {c: {"small": 75, "medium": 200, "large": 400}.get(w, w) for c, w in widths(matches).items()}
    assert sum(shown[c] for c in columns[:columns.index("finished_at") + 1]) <= PAGE_PX  # finished_at in view
    assert sum(shown.values()) <= PAGE_PX and columns[-1] == "lineup"  # every column, the lineup last (cut on hover)
    link = json.loads(matches.proto.columns)["match_id"]  # the match id is the link: no second id column
    assert link["label"] == "match" and link["pinned"] and found(at)["match_id"][0] == match
    bot_turn = int(store.query(path, "SELECT min(turn) AS t FROM turns WHERE seat = 1 AND match_id = ?",
                               [match])["t"][0])
    parsed = [m.value for m in page(path, monkeypatch, match=match, turn=str(bot_turn)).markdown]
    assert "**How it was parsed**" in parsed


def test_an_unknown_rule_set_in_a_link_is_said_in_the_interfaces_word(db, monkeypatch):
    at = page(db, monkeypatch, game="tictactoe", variant="nosuch")
    assert "has no rules 'nosuch'" in at.error[0].value and "variant" not in at.error[0].value


def test_a_clean_turn_of_a_match_with_a_parse_failure_shows_no_nan(db, monkeypatch):
    """The match's other turns hold an error text, so its error column is text with NaN where a turn has none:
    a clean turn shows no error box (it showed one reading "nan"), the re-asked turn still shows its error."""
    match_id = llm_match(db)
    turns = store.query(db, "SELECT turn, error FROM turns WHERE match_id = ? AND seat IS NOT NULL ORDER BY turn",
                        [match_id])
    clean, failed = turns[turns["error"].isna()], turns[turns["error"].notna()]
    assert len(clean) and len(failed)
    for turn in clean["turn"]:
        at = page(db, monkeypatch, match=match_id, turn=str(int(turn)))
        assert not at.exception
        assert not [c.value for c in at.code if c.value.strip().lower() in ("nan", "none")]
    at = page(db, monkeypatch, match=match_id, turn=str(int(failed["turn"].iloc[0])))
    assert any(c.value == failed["error"].iloc[0] for c in at.code)
