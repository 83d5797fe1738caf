"""The launch page, headless: the form with each game's defaults, field-by-field refusals, the cost
estimate, the admin token, and a started run that plays in its own process while the page watches."""

from __future__ import annotations

import asyncio
import time

import pytest
import yaml
from streamlit.testing.v1 import AppTest

from engine import store
from engine.games import all_games, get_game
from engine.play.runner import run_spec
from engine.play.spec import MAX_REPEATS, parse_spec
from engine.serve.launch import cost, form, processes
from engine.study import certainty
from engine.wording import usd
from tests.page_run import run_page

pytestmark = pytest.mark.slow


def page(db, monkeypatch, **params) -> AppTest:
    return run_page("launch", db, monkeypatch, **params)


def type_model(at: AppTest, game: str, seat: int, model: str) -> None:
    """Type a model string into a seat's box, as the browser sends it: the typed text itself (AppTest's selectbox
    only picks among the options it was drawn with, so the text is added to them first)."""
    box = at.selectbox(key=f"{game}.seat.{seat}")
    if model not in box.options:
        box.options.append(model)
    box.set_value(model).run()
    assert at.selectbox(key=f"{game}.seat.{seat}").value == model


def test_the_form_shows_each_games_parameters_with_their_defaults(db_path, monkeypatch):
    at = page(db_path, monkeypatch, games=["tictactoe", "connect_four"])
    assert not at.exception and not at.error
    for game in ("tictactoe", "connect_four"):
        for name, param in get_game(game).params.items():
            key = f"{game}.param.{name}"  # a parameter with choices (the retry policy) is a select box
            widget = (at.selectbox(key=key) if param.choices is not None else at.checkbox(key=key)
                      if param.kind is bool else at.number_input(key=key))
            assert widget.value == param.default
        assert [at.selectbox(key=f"{game}.seat.{i}").value for i in range(2)] == ["bot:random"] * 2
    assert at.multiselect(key="connect_four.presets").value == ["default"]
    assert "Estimated total: **$0.00** (bots only)." in [m.value for m in at.markdown]


def test_wrong_fields_are_refused_one_by_one_and_nothing_starts(db_path, monkeypatch):
    at = page(db_path, monkeypatch)
    at.text_input(key="name").set_value("two words").run()
    type_model(at, "tictactoe", 1, "my model")
    at.number_input(key="repeats").set_value(0).run()
    at.number_input(key="temperature").set_value(-3).run()
    errors = [e.value for e in at.error]
    assert "run name: a space at position 4 is not allowed; use letters, digits, '_', '.' or '-'" in errors
    assert any("'my model' has whitespace" in e for e in errors)
    assert "repeats: Input should be greater than or equal to 1, got 0" in errors  # the spec's own check and words
    assert "temperature: Input should be greater than or equal to 0, got -3.0" in errors  # not "default: ..."
    assert len(errors) == 4
    at.button(key="start").click().run()
    assert at.error[-1].value == "Not started: fix the 4 fields marked above."
    assert not processes.launches_dir(db_path).exists() and store.count_matches(db_path) == 0


def test_cost_estimate_prices_known_models_and_says_unknown(db_path, monkeypatch):
    at = page(db_path, monkeypatch)
    type_model(at, "tictactoe", 0, "openai/gpt-4o-mini")
    type_model(at, "tictactoe", 1, "openai/my-finetune")
    assert not at.error
    estimate = at.dataframe[0].value.set_index("model")
    expected = {e.model: e for e in cost.estimate_cost(form.build_spec(form.LaunchForm(
        name=at.text_input(key="name").value,
        games=[form.GameChoice("tictactoe", ["default"], {}, ["openai/gpt-4o-mini", "openai/my-finetune"])],
    )).spec)}
    priced = usd(expected["openai/gpt-4o-mini"].usd)
    assert estimate.loc["openai/gpt-4o-mini", "usd"] == priced != "unknown"
    assert priced.startswith("$0.00") and len(priced) > len("$0.00")  # a fraction of a cent, its digits shown
    assert estimate.loc["openai/my-finetune", "usd"] == "unknown"
    assert any(m.value.startswith("Estimated total: **unknown ($") for m in at.markdown)
    type_model(at, "tictactoe", 0, "openai/my-other-finetune")  # a new user's report: "$0.00 for the priced
    assert any(m.value.startswith("Estimated total: **unknown (no model here is priced)**")  # models" of none
               for m in at.markdown)


def test_starting_needs_the_admin_token_then_the_run_plays_in_its_own_process(db_path, monkeypatch):
    monkeypatch.setenv(form.ADMIN_TOKEN_ENV, "open-sesame")
    at = page(db_path, monkeypatch)
    at.number_input(key="repeats").set_value(2).run()
    at.button(key="start").click().run()
    assert at.error[-1].value == "Starting a run needs the admin token (ARENA_ADMIN_TOKEN)."
    assert not processes.launches_dir(db_path).exists()
    at.text_input(key="admin_token").set_value("open-sesame").run()
    at.button(key="start").click().run()
    assert at.success and at.success[0].value.startswith("Started run")
    run_id = at.success[0].value.split("`")[1]
    deadline = time.monotonic() + 120
    while processes.is_alive(db_path, run_id) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert store.query(db_path, "SELECT status, n_done FROM runs").to_dict("records") == [{"status": "ok", "n_done": 2}]
    at = page(db_path, monkeypatch)  # watching needs no token
    assert not at.exception
    bar = next(p.proto for p in at.get("progress") if "2 of 2 matches done, 0 errors" in p.proto.text)
    assert bar.value == 100 and bar.text.endswith(", 0 tokens, $0.00")  # a finished run's bar is full
    assert not any(column.get("progress") for column in at.columns)  # across the card, not 4/5 of it in a column
    assert "open-sesame" not in (processes.launches_dir(db_path) / run_id / "spec.yaml").read_text()


def test_a_started_runs_message_is_cleared_once_it_finished(db_path, monkeypatch):
    at = page(db_path, monkeypatch)
    at.button(key="start").click().run()
    assert [s.value for s in at.success][0].startswith("Started run")
    run_id = at.success[0].value.split("`")[1]
    deadline = time.monotonic() + 120
    while processes.is_alive(db_path, run_id) and time.monotonic() < deadline:
        time.sleep(0.2)
    at.run()  # the page's next refresh
    assert not at.success and not at.exception
    assert any("1 of 1 match done" in str(p.proto.text) for p in at.get("progress"))


def test_a_model_without_its_key_stops_the_start_and_is_named(db_path, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    at = page(db_path, monkeypatch)
    type_model(at, "tictactoe", 0, "anthropic/claude-3-5-haiku-20241022")
    at.button(key="start").click().run()
    assert at.error[-1].value == ("Not started: anthropic/claude-3-5-haiku-20241022 - no key: set ANTHROPIC_API_KEY "
                                  "in the environment or in .env")
    assert not processes.launches_dir(db_path).exists()


def test_a_models_seat_takes_its_own_temperature_and_prompt_version(db_path, monkeypatch):
    at = page(db_path, monkeypatch)
    type_model(at, "tictactoe", 1, "openai/gpt-4o-mini")
    at.number_input(key="tictactoe.temperature.1").set_value(0.2).run()
    at.selectbox(key="tictactoe.prompt_version.1").set_value("v3").run()
    spec = yaml.safe_load(next(c.value for c in at.code if c.language == "yaml"))
    assert spec["games"][0]["lineups"] == [["bot:random", {"agent": "openai/gpt-4o-mini", "temperature": 0.2,
                                                           "prompt_version": "v3"}]]
    assert not at.error


def test_a_seat_takes_any_typed_model_string_and_suggests_known_ones(db_path, monkeypatch):
    at = page(db_path, monkeypatch)
    box = at.selectbox(key="tictactoe.seat.0")
    assert box.proto.accept_new_options  # the reader types into the box itself
    assert {"bot:random", *form.SUGGESTED_MODELS} <= set(box.options)
    type_model(at, "tictactoe", 0, "openrouter/some-lab/brand-new-model")
    at.run()  # the typed string stays chosen on the next redraw
    assert at.selectbox(key="tictactoe.seat.0").value == "openrouter/some-lab/brand-new-model"
    spec = yaml.safe_load(next(c.value for c in at.code if c.language == "yaml"))
    assert "openrouter/some-lab/brand-new-model" in str(spec["games"][0]["lineups"][0][0])


def test_after_a_start_the_form_shows_a_fresh_name_and_never_starts_an_unseen_one(db_path, monkeypatch):
    """The default name holds the time; right after a start the form shows the next run's own name and run id
    (pressing Start again launched a run under a name nobody saw), and a name this page started is refused,
    not silently replaced; one match is "1 match"."""
    import re

    at = page(db_path, monkeypatch)
    first = at.text_input(key="name").value
    assert re.fullmatch(r"dashboard-\d{8}-\d{6}", first)
    assert any(m.value.startswith(f"1 match, run id `{first}-") for m in at.markdown)
    at.button(key="start").click().run()
    assert at.success and at.success[0].value.startswith(f"Started run `{first}-")
    run_id = at.success[0].value.split("`")[1]
    second = at.text_input(key="name").value  # no other action in between
    assert second != first and re.fullmatch(r"dashboard-\d{8}-\d{6}(-\d+)?", second)
    assert any(m.value.startswith(f"1 match, run id `{second}-") for m in at.markdown)
    at.text_input(key="name").set_value(first).run()
    at.button(key="start").click().run()
    assert at.error[-1].value == (f"Not started: a run named `{first}` already exists (`{run_id}`); give the new "
                                  "run another name (a run that did not finish has Resume in its card below).")
    assert [p.name for p in processes.launches_dir(db_path).iterdir()] == [run_id]  # nothing else launched
    deadline = time.monotonic() + 120
    while processes.is_alive(db_path, run_id) and time.monotonic() < deadline:
        time.sleep(0.2)


def test_launch_on_a_database_of_an_older_schema(tmp_path, monkeypatch):
    """The app upgrades a schema-1 database before drawing a page: Launch then lists its run, no binder error."""
    import gzip
    from pathlib import Path

    db = tmp_path / "v1.duckdb"
    db.write_bytes(gzip.decompress((Path(__file__).parent / "data" / "schema" / "v1.duckdb.gz").read_bytes()))
    monkeypatch.setenv("ARENA_DB", str(db))
    at = AppTest.from_file("../app.py", default_timeout=60).run()
    at.switch_page("pages/launch.py").run()
    assert not at.exception and not at.error
    assert any("schema v1 fixture" in m.value for m in at.markdown)


def test_a_name_in_the_database_is_refused_after_a_reload_even_with_a_field_changed(db_path, monkeypatch):
    """The check is the database's, not the browser session's: a reloaded page neither re-runs (resumes) a run of that
    name silently nor, with one field changed, makes a second run of the same name."""
    import asyncio

    from engine.play.runner import run_spec
    from engine.play.spec import parse_spec

    raw = {"name": "mine", "games": [{"game": "tictactoe", "presets": ["default"],
                                      "lineups": [["bot:random", "bot:random"]]}]}
    run_id = parse_spec(raw).run_id
    asyncio.run(run_spec(parse_spec(raw), db_path, progress=False))
    at = page(db_path, monkeypatch)  # a new session: nothing started from it
    at.text_input(key="name").set_value("mine").run()
    refusal = (f"Not started: a run named `mine` already exists (`{run_id}`); give the new run another name (a "
               "run that did not finish has Resume in its card below).")
    for change in (lambda: None, lambda: at.number_input(key="repeats").set_value(2).run()):
        change()
        at.button(key="start").click().run()
        assert at.error[-1].value == refusal and not at.success
    assert not processes.launches_dir(db_path).exists()
    assert store.query(db_path, "SELECT name FROM runs")["name"].tolist() == ["mine"]


def test_seat_pickers_follow_the_seat_count_and_a_wrong_count_gets_its_own_message(db_path, monkeypatch):
    at = page(db_path, monkeypatch, games=["public_goods"])
    seats = lambda: [b.key for b in at.selectbox if (b.key or "").startswith("public_goods.seat.")]  # noqa: E731
    assert len(seats()) == 10 and not at.error
    at.number_input(key="public_goods.param.players").set_value(4).run()
    assert seats() == [f"public_goods.seat.{i}" for i in range(4)] and not at.error
    at.number_input(key="public_goods.param.players").set_value(1).run()
    assert [e.value for e in at.error] == ["parameter 'players' must be >= 2, got 1"]  # the Param's bounds, alone
    assert len(seats()) == 10  # the pickers stay (the preset's count) while the wrong value is said


def test_the_cost_estimate_counts_tokens_with_separators_and_dollars_in_the_one_format(db_path, monkeypatch):
    at = page(db_path, monkeypatch)
    at.number_input(key="repeats").set_value(5).run()
    type_model(at, "tictactoe", 0, "openai/gpt-4o-mini")
    shown = at.dataframe[0].value.set_index("model").loc["openai/gpt-4o-mini"]
    spec = form.build_spec(form.LaunchForm(name="x", repeats=5, games=[form.GameChoice(
        "tictactoe", ["default"], {}, ["openai/gpt-4o-mini", "bot:random"])])).spec
    expected = cost.estimate_cost(spec)[0]
    assert expected.tokens_in >= 1000 and shown["tokens_in"] == f"{expected.tokens_in:,}" and "," in shown["tokens_in"]
    assert shown["tokens_out"] == f"{expected.tokens_out:,}" and shown["usd"] == usd(expected.usd)
    assert f"Estimated total: **{usd(expected.usd)}**" in " ".join(m.value for m in at.markdown)


def test_a_model_seat_without_its_key_is_said_at_once_without_a_request(db_path, monkeypatch):
    from engine.agents import llm

    async def no_network(*args, **kwargs):
        raise AssertionError("no request before Start")

    monkeypatch.setattr(llm.LLMAgent, "call", no_network)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    at = page(db_path, monkeypatch)
    assert not at.warning
    type_model(at, "tictactoe", 1, "openai/gpt-4o-mini")
    assert [w.value for w in at.warning] == [
        "`openai/gpt-4o-mini` - no key: set OPENAI_API_KEY in the environment or in .env"]
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    at.run()
    assert not at.warning and not at.error


def test_the_cost_estimate_needs_the_admin_token_when_one_is_set(db_path, monkeypatch):
    """Rehearsing a run's matches costs CPU: with a token set, nobody without it makes the page do it."""
    monkeypatch.setenv(form.ADMIN_TOKEN_ENV, "open-sesame")
    at = page(db_path, monkeypatch)
    type_model(at, "tictactoe", 0, "openai/gpt-4o-mini")
    assert not at.dataframe and not any(m.value.startswith("Estimated total") for m in at.markdown)
    assert "The cost estimate needs the admin token (ARENA_ADMIN_TOKEN): enter it above." in [i.value for i in at.info]
    at.text_input(key="admin_token").set_value("open-sesame").run()
    assert at.dataframe[0].value.set_index("model").loc["openai/gpt-4o-mini", "matches"] == "1"


def _largest(game: str, repeats: int, **params) -> form.LaunchForm:
    cls = get_game(game)
    seats = cls.n_seats(cls.resolve_params(params))
    return form.LaunchForm(name="largest", repeats=repeats, seed=4242, games=[
        form.GameChoice(game, ["default"], params, ["openai/gpt-4o-mini"] * seats)])


def test_the_cost_estimate_costs_at_most_200_ms_for_the_largest_forms():
    """It rehearsed one match per seed on every rerun (1,000 repeats: 6.6 s of CPU); a few seeds per kind of match
    are rehearsed now, scaled, and remembered for the next rerun."""
    every_game = form.LaunchForm(name="every", repeats=5_000, seed=4242, games=[
        form.GameChoice(g, ["default"], {}, ["openai/gpt-4o-mini"] * cls.n_seats(cls.resolve_params({})))
        for g, cls in all_games().items()])
    forms = {"1,000 repeats": _largest("tictactoe", 1_000),
             "100 players, 200 rounds, 10,000 repeats": _largest("public_goods", MAX_REPEATS, players=100, rounds=200),
             "every game, 95,000 matches": every_game}
    cost.price("openai/gpt-4o-mini")  # litellm's import (once per process) is not the estimate's
    for name, launch_form in forms.items():
        spec = form.build_spec(launch_form).spec
        start = time.process_time()
        (estimate,) = cost.estimate_cost(spec)
        assert time.process_time() - start < 0.2, name
        assert estimate.matches == len(spec.matches) and estimate.tokens_in > estimate.calls > 0
    tictactoe = cost.estimate_cost(form.build_spec(forms["1,000 repeats"]).spec)[0]
    assert 5 * 1_000 <= tictactoe.calls <= 9 * 1_000  # five to nine moves a game between two model seats
    public_goods = cost.estimate_cost(form.build_spec(forms["100 players, 200 rounds, 10,000 repeats"]).spec)[0]
    assert public_goods.calls == 100 * 200 * MAX_REPEATS  # a decision per player and round, though cut short


def test_the_runs_panel_reads_the_runs_figures_once_per_state_of_the_database(db_path, monkeypatch):
    """The panel asks every 2 s, and the figures are a read of every run's totals (summed from every turn when the
    summaries are out of step: 2.8 s at 1M matches): while nothing is written they are not read again; a write (a
    finished run) is seen at the next refresh."""
    raw = {"name": "panel", "seed": 1, "games": [{"game": "tictactoe", "lineups": [["bot:random", "bot:random"]]}]}
    asyncio.run(run_spec(parse_spec(raw), db_path, progress=False))
    read = store.query
    sums: list[str] = []

    def counted(db, sql, params=None):
        if "FROM runs ORDER BY created_at DESC LIMIT" in sql:  # the figures' read
            sums.append(sql)
        return read(db, sql, params)

    monkeypatch.setattr(store, "query", counted)
    first = processes.progress(db_path)
    assert processes.progress(db_path).equals(first) and len(sums) == 1  # the refresh: nothing read again
    run_id = first["run_id"].item()
    store.finish_run(db_path, run_id, "cancelled")
    assert processes.progress(db_path)["status"].item() == "cancelled" and len(sums) == 2


def test_a_run_whose_matches_are_stored_while_its_process_updates_the_ratings_is_not_shown_playing(db_path,
                                                                                                  monkeypatch):
    """After its last match a run's process brings the ratings up to date (seconds to a minute): the card said
    "playing" with a Cancel button, though its row said finished."""
    at = page(db_path, monkeypatch)
    at.button(key="start").click().run()
    run_id = at.success[0].value.split("`")[1]
    deadline = time.monotonic() + 120
    while processes.is_alive(db_path, run_id) and time.monotonic() < deadline:
        time.sleep(0.2)
    monkeypatch.setattr(processes, "is_alive", lambda db, run: run == run_id)  # its process still at the ratings
    row = processes.progress(db_path).set_index("run_id").loc[run_id]
    assert row.status == "ok" and row.finishing and not row.playing
    at.run()
    assert not at.exception
    assert any(f"{run_id}` - ok, updating the ratings" in m.value for m in at.markdown)
    assert not [b for b in at.button if b.key == f"cancel_{run_id}"]


def test_a_self_hosted_seat_asks_for_its_endpoint_and_takes_one(db_path, monkeypatch):
    for name in ("OLLAMA_API_BASE", "HOSTED_VLLM_API_BASE"):
        monkeypatch.delenv(name, raising=False)
    at = page(db_path, monkeypatch)
    type_model(at, "tictactoe", 1, "ollama/llama3")
    assert [w.value for w in at.warning] == [
        "`ollama/llama3` - no endpoint: set OLLAMA_API_BASE or give the seat an endpoint"]
    type_model(at, "tictactoe", 1, "hosted_vllm/foo")
    assert [w.value for w in at.warning] == [
        "`hosted_vllm/foo` - no endpoint: set HOSTED_VLLM_API_BASE or give the seat an endpoint"]
    at.text_input(key="tictactoe.endpoint.1").set_value("gpu1:8000").run()
    assert [e.value for e in at.error] == ["endpoint: 'gpu1:8000' is not a URL; write it as http://host:port/v1"]
    at.text_input(key="tictactoe.endpoint.1").set_value("http://gpu1:8000/v1").run()
    assert not at.warning and not at.error
    assert "api_base: http://gpu1:8000/v1" in at.code[-1].value  # the run spec holds the seat's endpoint


def test_a_cancelled_runs_card_shows_the_tokens_and_dollars_its_process_spent(stub, db_path, monkeypatch):
    """A match is stored only when it ends: cancelled in its first match, a run's stored totals are 0 tokens and
    $0.00, though its model answered; the card adds what its process counted."""
    from engine.testing import StubReply
    from tests.test_launch import wait_for

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key-1234")
    stub.responder = lambda req: StubReply('{"chosen_number": 20}', delay=0.2, prompt_tokens=40, completion_tokens=3)
    seat = {"agent": "openai/gpt-4o-mini", "api_base": stub.url, "temperature": 0.0, "max_tokens": 16}
    raw = {"name": "spent", "seed": 1, "repeats": 1, "concurrency": 1, "games": [
        {"game": "guessing_game", "params": {"players": 2, "rounds": 200}, "lineups": [[seat, "bot:random"]]}]}
    run_id = processes.start_run(raw, db_path)
    progress = processes.progress_file(db_path, run_id)
    wait_for(lambda: progress.exists() and '"tokens_in": 0,' not in progress.read_text())
    assert processes.cancel_run(db_path, run_id)
    row = processes.progress(db_path).set_index("run_id").loc[run_id]
    assert row.status == "cancelled" and row.n_done == 0 and row.tokens == 0  # nothing stored
    at = run_page("launch", db_path, monkeypatch)
    [card] = [p.proto.text for p in at.get("progress")]
    spent = int(card.split("its last process spent ")[1].split(" token")[0].replace(",", ""))
    assert card.startswith("0 of 1 match done") and spent == row.live_tokens_in + row.live_tokens_out >= 43
    assert "$0.00 in its stored matches" in card and f"{usd(row.live_cost_usd)} (its unfinished" in card
    assert row.live_cost_usd > 0  # gpt-4o-mini has a price: the dollars spent are shown, not "$0.00"


def test_an_adaptive_study_of_bots_with_a_match_budget_starts_with_its_flags_and_its_card_shows_the_budget(
        db_path, monkeypatch):
    """Launch plays a study as `python -m engine run --until-separated --budget-matches N` does: the process gets
    the flags, plays within the budget, and the card says it is a study, its budget and where it stands."""
    commands = []
    popen = processes.subprocess.Popen

    def spied(command, **kwargs):
        commands.append(command)
        return popen(command, **kwargs)

    monkeypatch.setattr(processes.subprocess, "Popen", spied)
    at = page(db_path, monkeypatch)
    at.selectbox(key="tictactoe.seat.1").set_value("bot:equilibrium").run()
    at.radio(key="plays").set_value("until_separated").run()
    at.selectbox(key="budget_unit").set_value("matches").run()
    at.number_input(key="budget_matches").set_value(8).run()
    assert not at.error
    at.button(key="start").click().run()
    run_id = at.success[0].value.split("`")[1]
    assert commands[-1][-3:] == ["--until-separated", "--budget-matches", "8"]
    deadline = time.monotonic() + 120
    while processes.is_alive(db_path, run_id) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert store.query(db_path, "SELECT count(*) AS n FROM matches WHERE deal IS NOT NULL")["n"].item() == 8
    at = page(db_path, monkeypatch)
    assert any(f"{run_id}` - ok - adaptive study, until adjacent ranks are separated, budget 8 matches" in m.value
               for m in at.markdown)
    [bar] = [p.proto for p in at.get("progress")]
    assert bar.text.startswith(f"adaptive study: 1 of {certainty.LOOKS} looks, 8 matches, $0.00 (budget 8 matches)")
    assert bar.text.endswith("; done") and bar.value == 100
    assert not [b for b in at.button if b.key == f"resume_{run_id}"]  # its budget is spent: nothing to resume


def test_the_form_refuses_a_budget_not_above_zero_and_a_study_of_one_agent(db_path, monkeypatch):
    at = page(db_path, monkeypatch)
    at.radio(key="plays").set_value("until_separated").run()
    assert [e.value for e in at.error] == ["adaptive study: --until-separated needs two agents or more among the "
                                           "lineups"]  # bot:random against itself
    at.selectbox(key="tictactoe.seat.1").set_value("bot:equilibrium").run()
    at.selectbox(key="budget_unit").set_value("dollars").run()
    at.number_input(key="budget_usd").set_value(-2.5).run()
    assert [e.value for e in at.error] == ["budget: must be more than 0 dollars, got -2.5"]
    at.button(key="start").click().run()
    assert at.error[-1].value == "Not started: fix the 1 field marked above."
    assert not processes.launches_dir(db_path).exists()
