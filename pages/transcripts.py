"""Transcripts: find matches (game, agent, outcome, parse failures, text in the messages), then step
through one turn by turn: what the player saw, what it answered raw, how that was parsed, and the public
state after the turn, drawn (a board, cards and chips, clues and votes) from the turn's `state` JSON.

Model text is only ever shown as text (code blocks, tables, JSON views): never as markdown or HTML, so an
answer holding markup or a script reaches the page escaped."""

import json
from typing import Any

import pandas as pd
import streamlit as st

from engine import store
from engine.present import boards, transcripts
from engine.present.captions import glossed
from engine.present.column_help import COLUMN_HELP
from engine.store.step_fields import seat_fields
from engine.wording import count
from pages.shared import numbers
from pages.shared.links import LINKED, described, linked_selection, match_link
from pages.shared.markdown import plain
from pages.shared.numbers import readable
from pages.shared.opening import open_page
from pages.shared.report import Report, download_table
from pages.shared.tables import compact_lineup, fitted_columns, match_link_column
from pages.shared.url_widgets import url_int, url_multiselect, url_selectbox, url_text, url_toggle

DB = store.default_db()
ANY = "(any game)"
SUITS = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}

open_page("Transcripts", DB)

report = Report("Transcripts")


# ---------------------------------------------------------------- drawing the public state
def as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=1, default=str)


def text_of(value: Any) -> str:
    """A text column's cell as the match holds it: blank where it holds none (a string column reads NaN for a
    missing cell, and NaN is true: `if turn["error"]` would print "nan" under every clean turn)."""
    return "" if numbers.missing(value) else str(value)


def rounded(value: Any) -> Any:
    """Numbers of a drawn state to 2 decimals (19.333333333333332 reads as 19.33), inside lists and maps too."""
    if isinstance(value, float):
        return round(value, 2)
    if isinstance(value, list):
        return [rounded(v) for v in value]
    if isinstance(value, dict):
        return {k: rounded(v) for k, v in value.items()}
    return value


def cell(value: Any) -> str:
    """A state table's cell: text as it is, a list of records as text (`fact_text`: Hanabi's knowledge of a hand
    reads "1: colour red, rank unknown", not JSON), anything else as compact JSON, its numbers rounded; None
    blank."""
    if value is None or (isinstance(value, float) and value != value):
        return ""
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        return transcripts.fact_text(rounded(value))
    return value if isinstance(value, str) else json.dumps(rounded(value), ensure_ascii=False, default=str)


def draw_grid(state: dict, game: str) -> None:
    """The board as an SVG of lines and circles (no emoji font needed), the moves and the result beside it;
    who is to move only while the game goes on (it is over once someone won or the board is full)."""
    board = boards.GridBoard.from_state(state, game)
    over = bool(state.get("winner")) or all(board.cells)
    picture, facts = st.columns([1, 2])
    picture.image(boards.board_svg(board), caption=f"{'discs' if board.discs else 'marks'}: X red, O "
                  f"{'yellow' if board.discs else 'blue'}; dashed: the last move")
    with facts:
        st.code(boards.board_text(board), language="text")
        moves = {"moves": " ".join(map(str, state.get("moves", [])))}
        ending = {"winner": state.get("winner") or "none: a draw"} if over else {"to move": state.get("to_move")}
        st.table(pd.DataFrame([moves | ending]))


def card(text: str) -> str:
    text = str(text)
    return text[:-1].upper() + SUITS.get(text[-1:].lower(), text[-1:]) if len(text) >= 2 else text


def draw_poker(state: dict) -> None:
    left, right = st.columns(2)
    left.metric("Board", " ".join(card(c) for c in state.get("board", [])) or "none yet")
    right.metric("Pot", state.get("pot"))
    seats = pd.DataFrame({"stack": state.get("stacks", []), "committed": state.get("committed", [])})
    if state.get("shown"):
        seats["hole cards"] = [" ".join(card(c) for c in hole) for hole in state["shown"]]
    if state.get("chips_won") is not None:
        seats["chips won"] = state["chips_won"]
    seats.index = [f"seat {i}" for i in range(len(seats))]
    st.table(seats)
    st.markdown(f"street: {plain(state.get('street'))}")


def draw_social(state: dict) -> None:
    st.write("Alive seats:", ", ".join(map(str, state.get("alive", []))))
    if state.get("clues"):
        st.markdown("Clues")
        st.dataframe(pd.DataFrame(state["clues"]).map(cell), hide_index=True, width="stretch")
    if state.get("votes"):
        st.markdown("Votes")
        st.dataframe(pd.DataFrame(state["votes"]).map(cell), hide_index=True, width="stretch")
    if state.get("eliminated"):
        st.markdown("Eliminated")
        st.dataframe(pd.DataFrame([{"seat": s} | e for s, e in state["eliminated"].items()]).map(cell), hide_index=True)


HEADINGS = {"last": "The round just played"}  # a state's key as a heading ("Last" says nothing)


def named_seats(record: dict, players: list[str], game: str) -> dict:
    """`record` with its seat numbers (winners [2]) as the players' names (Player 3), as the rest of the page says."""
    fields = seat_fields(game)

    def name(seat: Any) -> Any:
        is_seat = isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(players)
        return players[seat] if is_seat else seat

    return {k: ([name(v) for v in value] if isinstance(value, list) else name(value)) if k in fields else value
            for k, value in record.items()}


def draw_generic(state: dict, players: list[str], game: str) -> None:
    """Any other game: its scalar facts in one table, each list or mapping of records as its own table."""
    state = named_seats(state, players, game)
    scalars = {k: v for k, v in state.items() if not isinstance(v, (dict, list))}
    if scalars:
        st.dataframe(pd.DataFrame([scalars]).map(cell), hide_index=True, width="stretch")
    for key, value in state.items():
        heading = HEADINGS.get(key, key.replace("_", " ").capitalize())
        if isinstance(value, dict) and value and all(not isinstance(v, (dict, list)) for v in value.values()):
            st.markdown(heading)
            st.dataframe(pd.DataFrame([named_seats(value, players, game)]).map(cell), hide_index=True)
        elif isinstance(value, (dict, list)) and value:
            st.markdown(heading)
            rows = value if isinstance(value, list) else [value]
            table = pd.DataFrame([named_seats(r, players, game) if isinstance(r, dict) else {"value": r}
                                  for r in rows])
            st.dataframe(table.map(cell), hide_index=True, width="stretch")


def draw_state(state: dict, game: str, players: list[str]) -> None:
    if {"board", "rows", "cols"} <= set(state):
        draw_grid(state, game)
    elif {"street", "pot"} <= set(state):
        draw_poker(state)
    elif {"votes", "alive"} <= set(state):
        draw_social(state)
    else:
        draw_generic(state, players, game)


def show_prompt(prompt: Any) -> None:
    if isinstance(prompt, list) and all(isinstance(m, dict) and "content" in m for m in prompt):
        for message in prompt:
            st.markdown(f"**{plain(message.get('role', ''))}**")
            st.code(as_text(message["content"]), language="text", wrap_lines=True)
    elif prompt is None:
        st.markdown("nothing: a moderator message")
    else:
        st.json(prompt, expanded=False)


def loads(raw: Any) -> Any:
    return json.loads(raw) if isinstance(raw, str) and raw else None


# ---------------------------------------------------------------- finding matches
cols = st.columns([2, 3, 2, 2])
with cols[0]:
    game = url_selectbox("Game", [ANY, *transcripts.games(DB)], "game")
game = None if game == ANY else game
with cols[1]:
    picked_agents = url_multiselect("Agents", transcripts.agents(DB, game), "agents")
with cols[2]:
    outcome = url_selectbox("Outcome", list(transcripts.OUTCOMES), "outcome")
with cols[3]:
    failures = url_toggle("Only parse failures", "failures")
text_column, prompts_column, every_column = st.columns([3, 1, 1], vertical_alignment="bottom")
with text_column:
    text = url_text("Search the messages", "q")
with prompts_column:
    in_prompts = url_toggle("Search the prompts too", "prompts",
                            help="Also search what each player was sent: the rules and the history, repeated in "
                                 "every prompt, so many times more text to read than the answers and the moderator.")
with every_column:
    every_turn = url_toggle("Search every turn", "every",
                            help=f"A text and the parse failures are looked for in the newest "
                                 f"{transcripts.TURNS_SEARCHED:,} turns (the matches written last); this reads every "
                                 "turn instead: seconds on a log of millions.")

try:
    behind = linked_selection(st.query_params.get_all, game)  # a leaderboard cell's runs, presets, dates, rules
except ValueError as error:
    st.error(f"This link's selection cannot be read: {error}")
    st.stop()
behind_words = "" if behind is None else described(behind)
if behind is not None:
    st.caption(glossed(f"The matches behind a leaderboard number: {behind_words}.", "pool"))
    if st.button("Show every match", key="all_matches"):
        for key in LINKED:
            st.query_params.pop(key, None)
        st.rerun()
search = transcripts.MatchSearch(game, tuple(picked_agents), outcome, failures, text, in_prompts, behind, every_turn)
found = transcripts.find_matches(DB, search)
first_turn, turns_stored = transcripts.turns_searched(DB, search)
if first_turn:
    st.caption(glossed(f"Searched the newest {transcripts.TURNS_SEARCHED:,} of {turns_stored:,} turns (the matches "
                       "written last) for the text and the parse failures; tick **Search every turn** to read them "
                       "all.", "valid moves"))
if len(found) < transcripts.MAX_RESULTS:
    st.subheader(f"Matches: {count(len(found), 'match')}")
else:  # the list stops at MAX_RESULTS: say how many there are
    st.subheader(f"Matches: showing the first {len(found):,} of {transcripts.count_matches(DB, search):,} "
                 "(newest first)")
if found.empty:
    st.info("No match fits this search.")
    st.stop()
# the match id is the link that opens the match below (one column, not two: the list fits a 1400 px window); the
# lineup, the long text, last and as wide as the rest leaves (a cut cell reads whole on a double click)
links = readable(found).assign(match_id=found["match_id"].map(match_link), lineup=found["lineup"].map(compact_lineup))
links = links.rename(columns={"parse_failures": "failures"})  # defined in its header's tooltip
links = links[[*(c for c in links.columns if c != "lineup"), "lineup"]]
listed, config = fitted_columns(links, {
    "match_id": match_link_column(found["match_id"], "the match's id: opens its turns in a new tab (or pick it in "
                                                     "Match, under the list, to open it here)"),
    "finished_at": {"label": "finished", "help": "when the match finished, in UTC"},
    "lineup": {"help": "the agents in seat order, seat 0 first, the winners marked (won) (×3: the same agent in "
                       "three seats in a row). A double click on a cut cell shows it whole."}},
    helps={"failures": COLUMN_HELP["parse_failures"]}, fill=("lineup",), least=160)
st.dataframe(listed, hide_index=True, width="stretch", column_config=config)
if len(found) < transcripts.MAX_RESULTS:
    download_table(found, "matches")
else:  # not every match of the search: the file says so (Overview's `matches` holds them all)
    download_table(found, f"matches_first_{len(found)}")
    st.caption(glossed(f"The downloads hold the {len(found):,} matches listed; Overview's hold every match."))
report.table("Matches", readable(found))

# ---------------------------------------------------------------- one match, turn by turn
ids = found["match_id"].tolist()
searched_before = st.session_state.get("searched")
st.session_state["searched"] = search
linked = st.query_params.get("match")
if searched_before is not None and searched_before != search:
    for key in ("turn", *(("match",) if st.session_state.get("match") not in ids else ())):
        st.session_state.pop(key, None)  # a changed search opens its own first hit, not the old match or turn
        st.query_params.pop(key, None)
elif linked and linked not in ids and not transcripts.match_info(DB, linked).empty:
    ids = [linked, *ids]  # a link to one match opens it whatever the search lists
match_id = url_selectbox("Match", ids, "match")
info = transcripts.match_info(DB, match_id).iloc[0]
searched = {"game": game or "", "agents": ", ".join(picked_agents), "outcome": "" if outcome == "any" else outcome,
            "only parse failures": "yes" if failures else "", "text": text.strip(), "match": match_id,
            "behind a leaderboard number": behind_words}
report.scope(DB, {k: v for k, v in searched.items() if v}, [f"{info['run_id']}: this match"])
st.subheader(f"Match {plain(match_id)}")
st.dataframe(readable(pd.DataFrame([info.drop(["error", "params", "outcome"])])), hide_index=True, width="stretch")
st.code(f"params: {cell(loads(info['params']))}\noutcome: {cell(loads(info['outcome']))}", language="text",
        wrap_lines=True)  # long: wrapped; numbers to 2 decimals, as in the drawn state
if text_of(info["error"]):
    st.badge("match error", icon=":material/error:", color="red")
    st.code(text_of(info["error"]), language="text", wrap_lines=True)
turns = transcripts.match_turns(DB, match_id)
rule = transcripts.retry_rule(str(info["game"]), info["params"], turns)
st.caption(glossed(plain(f"Unusable answers (the game's retry policy): {rule}."), "fallback"))
seats = transcripts.match_seats(DB, match_id)
seats_shown = readable(seats, {"score": 2, "temperature": 2})  # 99.00 as every score, never "99" beside "1.00"
st.dataframe(seats_shown, hide_index=True, width="stretch")
report.table(f"Seats of match {match_id}", seats_shown)  # as shown: blanks, yes/no, 2 decimals
for flag in transcripts.seat_flags(DB, match_id):  # its answers may measure the prompt, not the player
    st.warning(plain(f"Answers to check: {flag}."))

if turns.empty:
    st.info("This match has no turns recorded.")
    st.stop()


def step(delta: int) -> None:
    st.session_state["turn"] = min(max(st.session_state.get("turn", 0) + delta, 0), len(turns) - 1)


back, _, forward = st.columns([1, 6, 1])
back.button("◀ Previous", on_click=step, args=(-1,), key="previous", width="stretch")
forward.button("Next ▶", on_click=step, args=(1,), key="next", width="stretch")
hits = transcripts.hit_turns(turns, text, in_prompts)
index = url_int("Turn", 0, len(turns) - 1, "turn", default=hits[0] if hits else 0)
turn = turns.iloc[index]
who = "moderator" if pd.isna(turn["seat"]) else f"seat {int(turn['seat'])}: {turn['player']} ({turn['agent']})"
st.text(f"Turn {int(turn['turn'])}, round {turn['round']}, phase {turn['phase']} - {who}")
if hits:  # where this turn stands among the hits, whoever chose it (the link, the search, the buttons)
    here = f"this turn is hit {hits.index(index) + 1} of {len(hits)}" if index in hits else "this turn is none of them"
    st.caption(glossed(plain(f"'{text.strip()}' is in {count(len(hits), 'turn')} of this match: "
                             f"{', '.join(map(str, hits[:20]))}{' ...' if len(hits) > 20 else ''}; {here}.")))
for label, color, icon in transcripts.badges(turn):
    st.badge(label, color=color, icon=icon)

saw, answered = st.columns(2)
with saw:
    st.markdown("**What it saw**")
    show_prompt(loads(turn["prompt"]))
with answered:
    st.markdown("**What it answered (raw)**" if turn["phase"] != "moderator" else "**What the moderator said**")
    response = text_of(turn["response"])
    truncated = pd.notna(turn["response_chars"]) and turn["response_chars"] > transcripts.DISPLAY_CHARS
    if truncated and st.toggle(f"Show all {int(turn['response_chars']):,} characters",
                               key=f"all_{match_id}_{turn['turn']}"):
        response = as_text(transcripts.full_response(DB, match_id, int(turn["turn"])))
    elif truncated:
        st.caption(glossed(f"The first {transcripts.DISPLAY_CHARS:,} of {int(turn['response_chars']):,} characters."))
    if index in hits and transcripts.contains(response, text):
        st.html(transcripts.highlighted(response, text))  # escaped text, the hit in <mark>
    else:
        st.code(response, language="text", wrap_lines=True)
    if turn["phase"] != "moderator":
        outcome = (transcripts.retry_note(turn) or {}).get("outcome")
        if outcome == "fixed action":  # the game's fixed action in the player's place (Bid's $0)
            st.markdown("**Fixed fallback (no usable answer in the tries the game allows)**")
            st.caption(glossed("The engine played the game's fixed action in the player's place.", "fallback"))
        elif pd.notna(turn["fallback"]) and bool(turn["fallback"]):  # a move the engine drew: nothing was parsed
            st.markdown("**Random fallback (the answer could not be parsed)**")
            st.caption(glossed("The engine played this legal move at random in the player's place.", "fallback"))
        else:
            st.markdown("**How it was parsed**")
        st.json(loads(turn["action"]) or {}, expanded=True)
        facts = {"retry policy": transcripts.retry_outcome(turn)} | {
            k: turn[k] for k in ("legal", "fallback", "retries", "call_errors", "tokens_in", "tokens_out",
                                 "latency_ms", "cached")}  # call_errors: transport failures retried
        facts["cost_usd"] = numbers.usd(turn["cost_usd"])  # dollars as everywhere ("unknown" without a price)
        shown = readable(pd.DataFrame([facts])).T.reset_index()  # one fact a row: fits half the page
        shown, config = fitted_columns(shown.set_axis(["fact", "value"], axis=1), None)  # the retry policy whole
        st.dataframe(shown, hide_index=True, column_config=config)
        if text_of(turn["error"]):
            st.code(text_of(turn["error"]), language="text", wrap_lines=True)

st.markdown("**Public state after this turn**")
state = loads(turn["state"])
if isinstance(state, dict):
    draw_state(state, str(info["game"]), [str(p) for p in seats.sort_values("seat")["player"]])
    with st.expander("State as JSON"):
        st.json(state)
else:
    st.markdown("no public state recorded")

flags = [", ".join(label for label, _, _ in transcripts.badges(t)) for _, t in turns.iterrows()]
policy = [None if t["phase"] == "moderator" else transcripts.retry_outcome(t) for _, t in turns.iterrows()]
log = turns[["turn", "round", "phase", "seat", "player", "agent", "legal", "fallback", "retries"]].assign(
    flags=flags, retry_policy=policy, response=turns["response"])  # the long text last: the short columns stay in
report.table(f"Turns of match {match_id}", readable(log))
with st.expander("Every turn of this match"):
    st.dataframe(readable(log), hide_index=True, width="stretch")
    download_table(log, f"turns_{match_id}")
report.download(f"transcript_{match_id}")
