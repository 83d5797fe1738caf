"""Launch: build a run in a form (each wrong field says why), see its cost before starting, then watch it
play as its own process (`python -m engine run`), cancel it, resume it. When ARENA_ADMIN_TOKEN is set,
starting, cancelling and resuming need it; watching never does. The page reads the database read-only."""

from datetime import date

import pandas as pd
import streamlit as st
import yaml
from streamlit.delta_generator import DeltaGenerator

from engine import launch, queries, store
from engine.agents.prompting import versions
from engine.agents.strategies import PERSONAS
from engine.games import all_games, get_game
from pages.shared import url_multiselect
from pages.shared.markdown import code, plain

DB = store.default_db()
GAMES = all_games()
TYPED = "another model (type it)"
STRATEGIES = ["vanilla", "cot", "pgm", *(f"persona:{p}" for p in PERSONAS), "persona:<type it>"]

st.title("Launch a run")
st.caption(f"Database: `{DB}`. A run plays in its own process; this page only reads the database.")

token = st.text_input("Admin token", type="password", key="admin_token") if launch.admin_required() else None
slots: dict[str, DeltaGenerator] = {}


def slot(key: str) -> None:
    """Where the message of a wrong field goes: right under its widget."""
    slots[key] = st.empty()


@st.cache_data(ttl=30, show_spinner=False)
def models_seen(db: str) -> list[str]:
    return queries.models_played(db)


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


def game_section(game: str) -> launch.GameChoice:
    cls = GAMES[game]
    st.markdown(f"**{cls.title}** (`{game}`, {cls.paper})")
    presets = st.multiselect("Presets", list(cls.presets), default=[next(iter(cls.presets))], key=f"{game}.presets")
    slot(launch.field_key(game, "presets"))
    shown = cls.resolve_params({}, presets[0] if presets and presets[0] in cls.presets else "default")
    changed = {}
    with st.expander("Parameters (the first preset's values)"):
        columns = st.columns(3)
        for i, (name, value) in enumerate(shown.items()):
            with columns[i % 3]:
                picked = param_widget(game, name, value, key=f"{game}.param.{name}")
                slot(launch.field_key(game, "param", name))
            if picked != value:
                changed[name] = picked
    slot(launch.field_key(game, "params"))
    try:
        n = launch.seat_count(game, presets[0], changed) if presets else 0
    except ValueError:
        n = 0
    options = launch.agent_options(game, models_seen(str(DB)))
    seats = []
    columns = st.columns(min(max(n, 1), 5))
    for i in range(n):
        with columns[i % len(columns)]:
            picked = st.selectbox(f"Seat {i + 1}", [*options, TYPED], index=options.index("bot:random"),
                                  key=f"{game}.seat.{i}")
            if picked == TYPED:
                picked = st.text_input("litellm model string", key=f"{game}.typed.{i}",
                                       placeholder="provider/model, e.g. openai/gpt-4o-mini")
            seats.append(picked)
            slot(launch.field_key(game, "seat", i))
    slot(launch.field_key(game, "seats"))
    return launch.GameChoice(game, presets, changed, seats)


# ---------------------------------------------------------------- the form
st.subheader("New run")
name = st.text_input("Run name", value=f"dashboard-{date.today():%Y%m%d}", key="name")
slot("name")
games = url_multiselect("Games", sorted(GAMES), "games", default=["tictactoe"])
slot("games")
choices = []
for game in games:
    with st.container(border=True):
        choices.append(game_section(game))

cols = st.columns(4)
with cols[0]:
    all_versions = sorted({v for g in (games or GAMES) for v in versions(g)})
    prompt_version = st.selectbox("Prompt version", all_versions, key="prompt_version")
    slot("prompt_version")
    strategy = st.selectbox("Strategy", STRATEGIES, key="strategy", help="persona:<free text> can be typed below")
    if strategy == "persona:<type it>":
        strategy = "persona:" + st.text_input("Persona", key="persona", placeholder="a careful accountant")
    slot("strategy")
with cols[1]:
    temperature = st.number_input("Temperature", value=1.0, step=0.1, key="temperature")
    slot("temperature")
    max_tokens = int(st.number_input("Max tokens per answer", value=256, step=32, key="max_tokens"))
    slot("max_tokens")
with cols[2]:
    repeats = int(st.number_input("Repeats", value=1, step=1, key="repeats"))
    slot("repeats")
    seed = int(st.number_input("First seed", value=0, step=1, key="seed"))
    slot("seed")
with cols[3]:
    concurrency = int(st.number_input("Concurrency (matches at once)", value=4, step=1, key="concurrency"))
    slot("concurrency")

form = launch.LaunchForm(name=name.strip(), games=choices, prompt_version=prompt_version, strategy=strategy,
                         temperature=temperature, max_tokens=max_tokens, repeats=repeats, seed=seed,
                         concurrency=concurrency)
built = launch.build_spec(form)
for key, message in built.errors.items():
    (slots.get(key) or st).error(message)

if built.spec is not None:
    st.subheader("Cost estimate")
    estimate = launch.estimate_cost(built.spec)
    st.markdown(f"{len(built.spec.matches)} matches, run id {code(built.spec.run_id)}.")
    if estimate:
        table = pd.DataFrame([vars(e) for e in estimate])
        table["usd"] = table["usd"].map(launch.format_usd)
        st.dataframe(table, hide_index=True, width="stretch")
        known = [e.usd for e in estimate if e.usd is not None]
        total = launch.format_usd(sum(known)) if len(known) == len(estimate) else (
            f"unknown ({launch.format_usd(sum(known))} for the priced models)")
        st.markdown(f"Estimated total: **{total}** (prompt sizes from a rehearsal with random moves; "
                    "prices from litellm's map).")
    else:
        st.markdown("Estimated total: **$0.0000** (bots only).")
    with st.expander("Run spec"):
        st.code(yaml.safe_dump(built.raw, sort_keys=False), language="yaml")

if st.button("Start run", type="primary", key="start"):
    if not launch.admin_ok(token):
        st.error(launch.admin_refusal())
    elif built.spec is None:
        st.error(f"Not started: fix the {len(built.errors)} field(s) marked above.")
    else:
        try:
            run_id = launch.start_run(built.raw, DB, concurrency)
            st.success(f"Started run {code(run_id)}.")
        except (RuntimeError, ValueError) as exc:
            st.error(str(exc))


# ---------------------------------------------------------------- runs and their progress
@st.fragment(run_every=2)
def runs_panel() -> None:
    st.subheader("Runs")
    table = launch.progress(DB)
    if table.empty:
        st.info("No runs yet.")
        return
    for row in table.head(10).itertuples():
        with st.container(border=True):
            left, right = st.columns([4, 1])
            left.markdown(f"**{plain(row.name)}** {code(row.run_id)} - {row.status}")
            left.progress(min(row.n_done / row.n_matches, 1.0) if row.n_matches else 0.0,
                          text=f"{row.n_done} of {row.n_matches} matches done, {row.errors} errors, "
                               f"{int(row.tokens):,} tokens, {launch.format_usd(row.usd)}")
            if row.playing and right.button("Cancel", key=f"cancel_{row.run_id}"):
                if launch.admin_ok(token):
                    launch.cancel_run(DB, row.run_id)
                    right.info("cancelling")
                else:
                    right.error("needs the admin token")
            resumable = row.source == "engine" and row.status in ("cancelled", "error", "stopped", "interrupted")
            if resumable and not row.playing and right.button("Resume", key=f"resume_{row.run_id}"):
                if launch.admin_ok(token):
                    launch.resume_run(DB, row.run_id, concurrency)
                    right.info("resumed")
                else:
                    right.error("needs the admin token")
            log = launch.log_tail(DB, row.run_id)
            if log:
                with left.expander("Log"):
                    st.code(log, language="text")
    st.dataframe(table, hide_index=True, width="stretch")


runs_panel()
