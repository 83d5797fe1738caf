"""Launch: build a run in a form (each wrong field says why), see its cost before starting, then watch it
play as its own process (`python -m engine run`), cancel it, resume it. When ARENA_ADMIN_TOKEN is set,
starting, cancelling and resuming need it; watching never does. The page reads the database read-only."""

from datetime import datetime

import pandas as pd
import streamlit as st
import yaml
from streamlit.delta_generator import DeltaGenerator

from engine import store
from engine.agents.model_names import model_problem
from engine.agents.prompting import versions
from engine.agents.strategies import PERSONAS
from engine.games import all_games, get_game
from engine.present import queries
from engine.present.captions import glossed
from engine.serve.launch import cost, form, preflight, processes
from engine.study import certainty
from engine.wording import count, usd
from pages.shared import numbers
from pages.shared.markdown import code, plain
from pages.shared.report import download_table
from pages.shared.tables import fitted_columns
from pages.shared.url_widgets import url_multiselect

DB = store.default_db()
GAMES = all_games()
RUN_DEFAULT = "the run's"
STRATEGIES = ["vanilla", "cot", "pgm", *(f"persona:{p}" for p in PERSONAS), "persona:<type it>"]

st.title("Launch a run")
st.caption(glossed(f"Database: `{DB}`. A run plays in its own process; this page only reads the database.", "cost"))

token = st.text_input("Admin token", type="password", key="admin_token") if form.admin_required() else None
slots: dict[str, DeltaGenerator] = {}


def slot(key: str) -> None:
    """Where the message of a wrong field goes: right under its widget."""
    slots[key] = st.empty()


def param_widget(game: str, name: str, value, key: str):
    param = get_game(game).params[name]
    label = f"{name}"
    if param.choices is not None:
        return st.selectbox(label, list(param.choices), index=list(param.choices).index(value), key=key,
                            help=param.help)
    if param.kind is bool:
        return st.checkbox(label, value=bool(value), key=key, help=param.help)
    if param.kind is int:
        return int(st.number_input(label, value=int(value), step=1, key=key, help=param.help))
    if param.kind is float:
        return float(st.number_input(label, value=float(value), key=key, help=param.help))
    return st.text_input(label, value=str(value), key=key, help=param.help)


def game_section(game: str) -> form.GameChoice:
    cls = GAMES[game]
    st.markdown(f"**{cls.title}** (`{game}`, {cls.paper})")
    presets = st.multiselect("Presets", list(cls.presets), default=[next(iter(cls.presets))], key=f"{game}.presets")
    slot(form.field_key(game, "presets"))
    shown = cls.resolve_params({}, presets[0] if presets and presets[0] in cls.presets else "default")
    changed = {}
    with st.expander("Parameters (the first preset's values)"):
        columns = st.columns(3)
        for i, (name, value) in enumerate(shown.items()):
            with columns[i % 3]:
                picked = param_widget(game, name, value, key=f"{game}.param.{name}")
                slot(form.field_key(game, "param", name))
            if picked != value:
                changed[name] = picked
    slot(form.field_key(game, "params"))
    n = form.seats_shown(game, presets, changed)  # follows the params (players=4: 4 pickers); a wrong one is left out
    options = form.agent_options(game, queries.models_played(DB))
    seats = []
    columns = st.columns(min(max(n, 1), 5))
    for i in range(n):
        with columns[i % len(columns)]:
            key = f"{game}.seat.{i}"
            typed = st.session_state.get(key)  # a model string typed earlier stays among the choices
            picked = st.selectbox(f"Seat {i + 1}", [*options, *([typed] if typed and typed not in options else [])],
                                  index=options.index("bot:random"), key=key, accept_new_options=True,
                                  help="A bot, a model seen here or suggested, or type any litellm model string "
                                       "(provider/model, e.g. openai/gpt-4o-mini) and press Enter.")
            seat = seat_settings(game, i, picked)
            seats.append(seat)
            slot(form.field_key(game, "seat", i))
            slot(form.field_key(game, "endpoint", i))
            if problem := missing_access(seat):
                st.warning(f"{code(picked.strip())} - {problem}")
    slot(form.field_key(game, "seats"))
    return form.GameChoice(game, presets, changed, seats)


PROTOCOL_HELP = ("Empty: each game plays at its paper's protocol, the authors' setting (docs/STUDIES.md); a value "
                 "here plays every game at it, and the agents' names say so.")


def seat_settings(game: str, i: int, agent: str) -> form.SeatChoice:
    """A model's seat may have its own temperature and prompt version (empty: the run's), and a model served over
    the network its endpoint (a self-hosted server's URL; empty: the provider's own or its environment's)."""
    if not agent or agent.startswith("bot:"):
        return form.SeatChoice(agent)
    run_said = "the run's" if run_temperature is None else f"run's ({run_temperature:g})"
    temperature = st.number_input("temperature", value=None, step=0.1, key=f"{game}.temperature.{i}",
                                  placeholder=run_said)
    version = st.selectbox("prompt version", [RUN_DEFAULT, *versions(game)], key=f"{game}.prompt_version.{i}")
    endpoint = st.text_input("endpoint (api_base)", key=f"{game}.endpoint.{i}", placeholder="provider's own",
                             help="The URL of the server answering for this model, e.g. http://localhost:8000/v1 "
                                  "for vLLM or http://localhost:11434 for Ollama; empty: the provider's own, or "
                                  "its *_API_BASE variable. No key in it: keys go in the environment or .env."
                             ) if form.takes_endpoint(agent) else ""
    return form.SeatChoice(agent, temperature, None if version == RUN_DEFAULT else version, endpoint.strip() or None)


def missing_access(seat: form.SeatChoice) -> str | None:
    """The preflight's "no key" / "no endpoint" line for a model seat missing its provider's key or endpoint, shown
    as soon as the seat is picked (no network; the one-token request waits for Start). None for a bot, a model
    string or an endpoint the form refuses anyway (its message is under the seat) or a seat with all it needs."""
    agent = (seat.agent or "").strip()
    if not agent or agent.startswith("bot:") or model_problem(agent) is not None:
        return None
    if seat.api_base and form.endpoint_problem(seat.api_base):
        return None
    try:
        return preflight.access_problem(agent, seat.api_base)
    except Exception:  # noqa: BLE001 - litellm's check of an odd string must not break the form; Start checks again
        return None


def fresh_name(taken: set[str]) -> str:
    """A default run name holding the time, none of `taken` (two launches within a second get a suffix)."""
    base = name = f"dashboard-{datetime.now():%Y%m%d-%H%M%S}"
    n = 1
    while name in taken:
        n += 1
        name = f"{base}-{n}"
    return name


# ---------------------------------------------------------------- the form
st.subheader("New run")
started_names: set[str] = st.session_state.setdefault("started_names", set())
if "name" not in st.session_state or st.session_state.pop("name_started", False):
    st.session_state["name"] = fresh_name(started_names)  # after a start the form shows the next run's own name
name = st.text_input("Run name", key="name", help="Part of the run id; the default holds the time, so it is new "
                                                  "for each launch.")
slot("name")
st.caption(glossed("Run-wide settings; a model's seat below may set its own temperature and prompt version.",
                   "condition"))
cols = st.columns(4)
with cols[0]:
    all_versions = sorted({v for g in GAMES for v in versions(g)})
    prompt_version = st.selectbox("Prompt version", all_versions, key="prompt_version")
    slot("prompt_version")
    strategy = st.selectbox("Strategy", STRATEGIES, key="strategy", help="persona:<free text> can be typed below")
    if strategy == "persona:<type it>":
        strategy = "persona:" + st.text_input("Persona", key="persona", placeholder="a careful accountant")
    slot("strategy")
with cols[1]:
    run_temperature = st.number_input("Temperature", value=None, step=0.1, key="temperature",
                                      placeholder="each game's protocol", help=PROTOCOL_HELP)
    slot("temperature")
    max_tokens = st.number_input("Max tokens per answer", value=None, step=32, key="max_tokens",
                                 placeholder="each game's protocol", help=PROTOCOL_HELP)
    max_tokens = None if max_tokens is None else int(max_tokens)
    slot("max_tokens")
with cols[2]:
    repeats = int(st.number_input("Repeats", value=1, step=1, key="repeats"))
    slot("repeats")
    seed = int(st.number_input("First seed", value=0, step=1, key="seed"))
    slot("seed")
with cols[3]:
    concurrency = int(st.number_input("Concurrency (matches at once)", value=4, step=1, key="concurrency"))
    slot("concurrency")

PLAYS = {"grid": "play the grid once", "until_separated": "until adjacent ranks are separated"}
BUDGETS = {"none": "no budget", "dollars": "dollars", "matches": "matches"}
cols = st.columns([2, 1, 1])
with cols[0]:
    plays = st.radio("How the run plays", list(PLAYS), format_func=PLAYS.get, key="plays", horizontal=True,
                     help="Until separated: an adaptive study (`run --until-separated`, docs/METRICS.md) plays the "
                          "agents of the two-seat games below in batches of deals (a match and its mirror on one "
                          "seed), each where the ranking is still uncertain, until every pair of adjacent ranks is "
                          f"separated, {certainty.LOOKS} batches are played or the budget ends; repeats do not apply.")
budget_unit, budget = None, 0.0
if plays == "until_separated":
    with cols[1]:
        picked_unit = st.selectbox("Budget", list(BUDGETS), format_func=BUDGETS.get, key="budget_unit",
                                   help="The study stops before a batch would pass it: dollars (litellm's prices) or "
                                        "matches; none: it stops when separated or its batches are spent.")
    if picked_unit != "none":
        budget_unit = picked_unit
        with cols[2]:
            budget = (float(st.number_input("Budget (dollars)", value=1.0, step=0.5, key="budget_usd"))
                      if budget_unit == "dollars" else
                      int(st.number_input("Budget (matches)", value=100, step=2, key="budget_matches")))
slot("budget")
slot("study")

games = url_multiselect("Games", sorted(GAMES), "games", default=["tictactoe"])
slot("games")
choices = []
for game in games:
    with st.container(border=True):
        choices.append(game_section(game))

launch_form = form.LaunchForm(name=name.strip(), games=choices, prompt_version=prompt_version, strategy=strategy,
                              temperature=run_temperature, max_tokens=max_tokens, repeats=repeats, seed=seed,
                              concurrency=concurrency, until_separated=plays == "until_separated",
                              budget_unit=budget_unit, budget=budget)
built = form.build_spec(launch_form)
for key, message in built.errors.items():
    (slots.get(key) or st).error(message)

if built.spec is not None and not form.admin_ok(token):  # rehearsing a run's matches costs CPU: not for anyone
    st.subheader("Cost estimate")
    st.info("The cost estimate needs the admin token (ARENA_ADMIN_TOKEN): enter it above."
            if form.admin_required() and not form.serving_beyond_localhost() else form.admin_refusal())
elif built.spec is not None:
    st.subheader("Cost estimate")
    estimate = cost.estimate_cost(built.spec)
    st.markdown(f"{count(len(built.spec.matches), 'match')}, run id {code(built.spec.run_id)}.")
    if built.study is not None:
        st.info(f"An adaptive study, {built.study.budget()}: it plays as many deals as it needs; the estimate below "
                "is of one pass over the grid.")
    if estimate:
        table = pd.DataFrame([vars(e) for e in estimate])
        for column in ("matches", "calls", "tokens_in", "tokens_out"):
            table[column] = table[column].map(lambda n: f"{int(n):,}")
        table["usd"] = table["usd"].map(usd)
        st.dataframe(table, hide_index=True, width="stretch")
        known = [e.usd for e in estimate if e.usd is not None]
        total = (usd(sum(known)) if len(known) == len(estimate) else
                 f"unknown ({usd(sum(known))} for the priced models)" if known else "unknown (no model here is priced)")
        st.markdown(f"Estimated total: **{total}** (prompt sizes from rehearsing a few matches of each kind with "
                    "random moves; prices from litellm's map).")
    else:
        st.markdown(f"Estimated total: **{usd(0)}** (bots only).")
    with st.expander("Run spec"):
        st.code(yaml.safe_dump(built.raw, sort_keys=False), language="yaml")

notices: dict[str, str] = st.session_state.setdefault("notices", {})  # run id -> what this page last did to it


def start(raw: dict, spec, adaptive) -> None:
    """Check every model first (its key, a one-token answer); start only when all pass."""
    with st.spinner("Checking each model: its key, then a one-token request"):
        checks = preflight.preflight(spec)
    failing = [c for c in checks if not c.ok]
    if checks:
        st.dataframe(pd.DataFrame([{"model": c.model, "endpoint": c.api_base or "", "ready": "yes" if c.ok else "no",
                                    "answered in": "" if c.latency_ms is None else f"{c.latency_ms:,.0f} ms",
                                    "problem": c.problem} for c in checks]), hide_index=True, width="stretch")
    if failing:
        st.error("Not started: " + "; ".join(f"{c.model} - {c.problem}" for c in failing))
        return
    try:
        run_id = processes.start_run(raw, DB, concurrency, adaptive)
    except (RuntimeError, ValueError) as exc:
        st.error(str(exc))
        return
    started_names.add(raw["name"])
    notices[run_id] = f"Started run {code(run_id)}" + (f" ({count(len(checks), 'model')} answered)." if checks else ".")
    st.session_state["name_started"] = True
    st.rerun()  # the form shows the next run's fresh name before anyone can press Start again


def name_taken(run_name: str) -> str | None:
    """Why a run of this name may not start: one of that name is in the database (from any session, or before a
    reload) or plays from here. Its id is the name plus a hash of the spec, so the same name re-ran (resumed) the
    same run silently, and one changed field made a second run of the same name."""
    existing = processes.runs_named(DB, run_name)
    if existing:
        more = f" and {count(len(existing) - 1, 'other')}" if len(existing) > 1 else ""
        return (f"Not started: a run named {code(run_name)} already exists ({code(existing[0])}{more}); give the "
                "new run another name (a run that did not finish has Resume in its card below).")
    if run_name in started_names:  # started from this page, its process gone before it wrote its row
        return (f"Not started: this page already started a run named {code(run_name)}; give the new run another "
                "name.")
    return None


if st.button("Start run", type="primary", key="start"):
    if not form.admin_ok(token):
        st.error(form.admin_refusal())
    elif built.spec is None:
        st.error(f"Not started: fix the {count(len(built.errors), 'field')} marked above.")
    elif refusal := name_taken(launch_form.name):
        st.error(refusal)
    else:
        start(built.raw, built.spec, built.study)


# ---------------------------------------------------------------- runs and their progress
def progress_text(row) -> str:
    """Matches from the database; while the run plays, turns, tokens and dollars from its process (live)."""
    text = f"{row.n_done:,} of {count(row.n_matches, 'match')} done, {count(row.errors, 'error')}"
    if row.playing and row.live_turns is not None and row.live_turns == row.live_turns:
        dollars = usd(row.live_cost_usd) + (f" + {count(int(row.live_unpriced_calls), 'unpriced call')}"
                                            if row.live_unpriced_calls else "")
        return (f"{text}; playing now: {count(int(row.live_turns), 'turn')}, "
                f"{count(int(row.live_tokens_in + row.live_tokens_out), 'token')}, {dollars}, "
                f"{count(int(row.live_fallbacks), 'fallback')}")
    text = f"{text}, {count(int(row.tokens), 'token')}, {usd(row.usd)}"
    if row.status != "ok" and pd.notna(row.live_turns) and row.live_turns > 0:  # stopped: its unfinished matches'
        # turns are in no stored match, only in its process's count
        dollars = usd(row.live_cost_usd) + (f" + {count(int(row.live_unpriced_calls), 'unpriced call')}"
                                            if row.live_unpriced_calls else "")
        text += (f" in its stored matches; its last process spent "
                 f"{count(int(row.live_tokens_in + row.live_tokens_out), 'token')}, {dollars} (its unfinished "
                 "matches' turns included)")
    return text


def run_state(row) -> str:
    """The stored status, unless the run's process still works: playing, or updating the ratings once its matches
    are stored (seconds to a minute on a large database)."""
    if row.playing:
        return "playing"
    return f"{row.status}, updating the ratings" if row.finishing else row.status


def act_on(row, verb: str, do) -> None:
    if form.admin_ok(token):
        do()
        notices[row.run_id] = f"{verb} run {code(row.run_id)}."
    else:
        st.error("needs the admin token")


@st.fragment(run_every=2)
def runs_panel() -> None:
    st.subheader("Runs")
    for run_id in [r for r in notices if not processes.is_alive(DB, r)]:
        del notices[run_id]  # a finished or cancelled run's message goes with its process
    table = processes.progress(DB)
    listed = set() if table.empty else set(table["run_id"])
    for run_id in [r for r in notices if r not in listed]:  # started, not in the database yet
        st.success(notices[run_id])
    if table.empty:
        st.info("No runs yet.")
        return
    for row in table.head(10).itertuples():
        with st.container(border=True):
            left, right = st.columns([4, 1])
            kind = "" if row.study is None else \
                f" - adaptive study, until adjacent ranks are separated, {row.study.budget()}"
            left.markdown(f"**{plain(row.name)}** {code(row.run_id)} - {run_state(row)}{kind}")
            if row.run_id in notices:
                left.success(notices[row.run_id])
            if row.study_elsewhere:
                left.caption("An adaptive study started in a terminal: resume it there with the same command (its "
                             "budget is not known here).")
            with right:
                if row.playing and st.button("Cancel", key=f"cancel_{row.run_id}"):
                    act_on(row, "Cancelled", lambda r=row: processes.cancel_run(DB, r.run_id))
                if row.resumable and st.button("Resume", key=f"resume_{row.run_id}"):
                    act_on(row, "Resumed", lambda r=row: processes.resume_run(DB, r.run_id, concurrency))
            # the card's whole width, under the buttons' column: in the left column a full bar looked 4/5 done
            if row.standing is not None:  # a study's matches come batch by batch: its own figures, and its budget
                st.progress(row.standing.progress(row.study), text=row.standing.text(row.study))
            else:
                st.progress(min(row.n_done / row.n_matches, 1.0) if row.n_matches else 0.0, text=progress_text(row))
            log = processes.log_tail(DB, row.run_id)
            if log:
                with st.expander("Log (live)" if row.playing else "Log", expanded=bool(row.playing)):
                    st.code(log, language="text", wrap_lines=True)  # an error line reads whole
    shown = table.assign(status=[run_state(row) for row in table.itertuples()],
                         matches=[f"{d:,} of {n:,}" for d, n in zip(table["n_done"], table["n_matches"], strict=True)],
                         tokens=table["tokens"].map(lambda n: numbers.number(n, 0)),
                         usd=table["usd"].map(lambda v: usd(None if pd.isna(v) else float(v))),
                         finished_at=table["finished_at"].map(lambda t: "" if pd.isna(t) else f"{t:%Y-%m-%d %H:%M}"),
                         created_at=table["created_at"].map(lambda t: f"{t:%Y-%m-%d %H:%M}"))
    columns = ["run_id", "name", "source", "status", "matches", "errors", "tokens", "usd", "created_at", "finished_at"]
    # the run's name takes what the others leave of a 1400 px window: a long one is cut, whole on a double click
    shown, config = fitted_columns(shown[columns], {"name": {"help": "the run's name (its spec's `name`); a double "
                                                             "click on a cut name shows it whole"}}, fill=("name",))
    st.dataframe(shown, hide_index=True, width="stretch", column_config=config)
    download_table(table[["run_id", "name", "source", "status", "n_done", "n_matches", "errors", "tokens", "usd",
                          "created_at", "finished_at"]], "launch_runs")


runs_panel()
