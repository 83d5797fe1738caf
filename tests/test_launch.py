"""Launching from the dashboard, below the page: the form's field-by-field checks, the cost estimate,
the admin token, and a run played as its own process that is watched, cancelled and resumed."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine import store
from engine.games import get_game
from engine.play.spec import MAX_REPEATS, parse_spec
from engine.serve.launch import cost, form, processes, study
from engine.testing import StubReply
from engine.wording import usd

pytestmark = pytest.mark.slow


def make_form(**changes) -> form.LaunchForm:
    base = dict(name="t", games=[form.GameChoice("tictactoe", ["default"], {}, ["bot:random", "bot:equilibrium"])])
    return form.LaunchForm(**(base | changes))


def test_a_good_form_becomes_a_spec_that_plays():
    built = form.build_spec(make_form(repeats=3, concurrency=2, strategy="cot", temperature=0.5))
    assert built.errors == {}
    assert len(built.spec.matches) == 3 and built.spec.concurrency == 2
    # the answer cap left empty: each game's protocol's (the authors'), not a run-wide 256
    assert built.raw["defaults"] == {"prompt_version": "v1", "strategy": "cot", "temperature": 0.5}


def test_each_wrong_field_gets_its_own_message():
    bad = make_form(name="no spaces allowed", temperature=2.5, repeats=0, concurrency=100, strategy="persona:",
               games=[form.GameChoice("tictactoe", ["default", "nope"], {"hint": "yes", "size": 3},
                                        ["bot:nobody", "my model"]),
                      form.GameChoice("undercover", ["magic", "wis"], {}, ["bot:random"] * 3)])
    errors = form.build_spec(bad).errors
    assert errors.keys() == {"name", "temperature", "repeats", "concurrency", "strategy", "tictactoe.presets",
                             "tictactoe.param.hint", "tictactoe.param.size", "tictactoe.seat.0", "tictactoe.seat.1",
                             "undercover.presets"}
    assert "has no bot 'nobody'" in errors["tictactoe.seat.0"] and "whitespace" in errors["tictactoe.seat.1"]
    assert "must be bool" in errors["tictactoe.param.hint"] and "different numbers of players" in errors[
        "undercover.presets"]
    assert "less than or equal to 2" in errors["temperature"]


def test_a_wrong_run_name_says_what_is_wrong_and_where():
    """Not one generic rule for every wrong name: empty, too long by how much, which character at which position."""
    def says(name: str) -> str:
        return form.build_spec(make_form(name=name)).errors["name"]

    assert says("") == f"run name: empty; give it {form.NAME_RULE}"
    assert form.NAME_RULE == "1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit"
    assert says("x" * 300) == "run name: 300 characters, 236 too many (at most 64)"
    assert says("bell\x07ring") == ("run name: a control character (U+0007) at position 5; use letters, digits, '_', "
                                    "'.' or '-'")
    assert says("two words") == "run name: a space at position 4 is not allowed; use letters, digits, '_', '.' or '-'"
    assert says("café") == "run name: 'é' at position 4 is not allowed; use letters, digits, '_', '.' or '-'"
    assert says("-dash") == "run name: starts with '-'; start it with a letter or digit"
    assert "name" not in form.build_spec(make_form(name="x" * 64)).errors


def test_the_run_wide_settings_are_named_as_such_and_bounded_as_the_spec_is():
    errors = form.build_spec(make_form(temperature=-3, max_tokens=0)).errors
    assert errors == {"temperature": "temperature: Input should be greater than or equal to 0, got -3",
                      "max_tokens": "max_tokens: Input should be greater than or equal to 1, got 0"}
    assert form.build_spec(make_form(repeats=MAX_REPEATS + 1)).errors == {
        "repeats": f"repeats: Input should be less than or equal to {MAX_REPEATS}, got {MAX_REPEATS + 1}"}
    assert len(form.build_spec(make_form(repeats=MAX_REPEATS)).spec.matches) == MAX_REPEATS  # as docs/RUNNING.md says


def test_models_are_checked_without_network_and_lineups_must_fit():
    errors = form.build_spec(make_form(prompt_version="v9", games=[form.GameChoice(
        "tictactoe", ["default"], {}, ["nosuchprovider/x", "gpt-4o-mini"])])).errors
    assert errors.keys() == {"tictactoe.seat.0", "prompt_version"}  # a bare known model name is fine
    assert "unknown provider 'nosuchprovider'" in errors["tictactoe.seat.0"]
    errors = form.build_spec(make_form(games=[form.GameChoice("tictactoe", ["default"], {}, ["bot:random"])])).errors
    assert errors == {"tictactoe.seats": "this game has 2 seats, the lineup lists 1"}


def test_cost_estimate_prices_known_models_and_says_unknown_otherwise():
    spec = form.build_spec(make_form(repeats=2, max_tokens=100, games=[form.GameChoice(
        "tictactoe", ["default"], {}, ["openai/gpt-4o-mini", "openai/my-finetune"])])).spec
    rows = {r.model: r for r in cost.estimate_cost(spec)}
    assert rows.keys() == {"openai/gpt-4o-mini", "openai/my-finetune"}  # no bot
    priced, unknown = rows["openai/gpt-4o-mini"], rows["openai/my-finetune"]
    assert priced.matches == 2 and 2 * 3 <= priced.calls <= 2 * 5  # X moves 3 to 5 times a game
    per_in, per_out = cost.price("openai/gpt-4o-mini")
    assert per_in > 0 and priced.usd == pytest.approx(priced.tokens_in * per_in + priced.tokens_out * per_out)
    assert priced.tokens_out == priced.calls * cost.SHORT_ANSWER_TOKENS and priced.tokens_in > 100 * priced.calls
    assert unknown.usd is None and usd(unknown.usd) == "unknown"
    pgm = form.build_spec(make_form(repeats=2, strategy="pgm", max_tokens=100, games=[form.GameChoice(
        "tictactoe", ["default"], {}, ["openai/gpt-4o-mini", "bot:random"])])).spec
    assert {r.model: r for r in cost.estimate_cost(pgm)}["openai/gpt-4o-mini"].calls == 2 * priced.calls
    bots_only = form.build_spec(make_form()).spec
    assert cost.estimate_cost(bots_only) == []


def test_admin_token_gates_only_when_set(monkeypatch):
    monkeypatch.delenv(form.ADMIN_TOKEN_ENV, raising=False)
    assert not form.admin_required() and form.admin_ok(None)
    monkeypatch.setenv(form.ADMIN_TOKEN_ENV, "open-sesame")
    assert form.admin_required() and not form.admin_ok(None) and not form.admin_ok("wrong")
    assert form.admin_ok("open-sesame")


def wait_for(condition, timeout: float = 120.0):  # a deadline for a loaded machine, not a timing
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value is not None and value is not False:
            return value
        time.sleep(0.1)
    raise AssertionError("timed out")


def run_row(db, run_id):
    table = processes.progress(db)
    return table[table["run_id"] == run_id].iloc[0] if not table.empty and run_id in set(table["run_id"]) else None


def test_a_launched_run_is_its_own_process_cancelled_then_resumed(stub, db_path, monkeypatch):
    secret = "sk-test-1234567890abcdefSECRET"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    stub.responder = lambda req: StubReply('{"chosen_number": 20}', delay=0.5, prompt_tokens=40, completion_tokens=3)
    seat = {"agent": "openai/stub-model", "api_base": stub.url, "temperature": 0.0, "max_tokens": 16}
    raw = {"name": "launched", "seed": 1, "repeats": 6, "concurrency": 1, "games": [
        {"game": "guessing_game", "params": {"players": 2, "rounds": 2}, "lineups": [[seat, "bot:random"]]}]}
    run_id = processes.start_run(raw, db_path)
    assert run_id == parse_spec(raw).run_id and processes.is_alive(db_path, run_id)
    with pytest.raises(RuntimeError, match="already playing"):
        processes.start_run(raw, db_path)
    row = wait_for(lambda: r if (r := run_row(db_path, run_id)) is not None and r.n_done >= 2 else None)
    assert row.playing and row.status == "running"
    assert processes.cancel_run(db_path, run_id)
    wait_for(lambda: not processes.is_alive(db_path, run_id))
    row = run_row(db_path, run_id)
    assert row.status == "cancelled" and 2 <= row.n_done < 6 and not row.playing
    kept = store.query(db_path, "SELECT match_id, finished_at FROM matches WHERE status = 'ok'")

    asked_before = len(stub.requests)
    processes.resume_run(db_path, run_id)
    wait_for(lambda: not processes.is_alive(db_path, run_id))
    row = run_row(db_path, run_id)
    assert row.status == "ok" and row.n_done == 6 and row.errors == 0
    assert row.tokens == 6 * 2 * (40 + 3) and usd(row.usd) == "unknown"  # the stub has no price
    again = store.query(db_path, "SELECT match_id, finished_at FROM matches").set_index("match_id")["finished_at"]
    assert all(again[m] == t for m, t in zip(kept["match_id"], kept["finished_at"], strict=True))  # not replayed
    assert len(stub.requests) - asked_before == (6 - len(kept)) * 2  # the resume asked only for unplayed matches
    # the key reached the provider and nowhere else: not the spec file, the log, nor the database
    folder = processes.launches_dir(db_path) / run_id
    assert secret not in (folder / "spec.yaml").read_text() + (folder / "log.txt").read_text()
    assert secret.encode() not in db_path.read_bytes()
    assert secret not in json.dumps(store.query(db_path, "SELECT spec FROM runs")["spec"].tolist())


def test_a_models_seat_has_its_own_temperature_and_prompt_version_checked_by_the_spec():
    seats = [form.SeatChoice("openai/gpt-4o-mini", 0.3, "v2"), form.SeatChoice("openai/gpt-4o-mini")]
    built = form.build_spec(make_form(temperature=0.9, games=[form.GameChoice("tictactoe", ["default"], {}, seats)]))
    assert built.errors == {}
    first, second = built.spec.matches[0].seats
    assert (first.temperature, first.prompt_version) == (0.3, "v2")
    assert (second.temperature, second.prompt_version) == (0.9, "v1")  # the run's defaults
    wrong = [form.SeatChoice("openai/gpt-4o-mini", 2.5), form.SeatChoice("openai/gpt-4o-mini", None, "v9")]
    errors = form.build_spec(make_form(games=[form.GameChoice("tictactoe", ["default"], {}, wrong)])).errors
    assert errors == {  # the spec's own words
        "tictactoe.seat.0": "seat 1.temperature: Input should be less than or equal to 2, got 2.5",
        "tictactoe.seat.1": "seat 2: game 'tictactoe' has no prompt version 'v9' (has: v1, v2, v3, v4, v5)"}


def test_preflight_says_which_model_lacks_its_key_or_does_not_answer(stub, monkeypatch):
    from engine.serve.launch import preflight

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    stub.responder = lambda req: (StubReply("OK") if req["model"] == "good" else
                                  StubReply('{"error": {"message": "model not found"}}', status=404))
    seats = [{"agent": "openai/good", "api_base": stub.url}, {"agent": "openai/gone", "api_base": stub.url},
             "anthropic/claude-3-5-haiku-20241022", "bot:random"]
    spec = parse_spec({"name": "pre", "games": [
        {"game": "guessing_game", "params": {"players": 4, "rounds": 1}, "lineups": [seats]}]})
    checks = {c.model: c for c in preflight.preflight(spec, timeout=10)}
    assert checks.keys() == {"openai/good", "openai/gone", "anthropic/claude-3-5-haiku-20241022"}  # no bot
    assert checks["openai/good"].ok and checks["openai/good"].latency_ms > 0
    assert not checks["openai/gone"].ok and "did not answer a one-token request" in checks["openai/gone"].problem
    assert checks["anthropic/claude-3-5-haiku-20241022"].problem == (
        "no key: set ANTHROPIC_API_KEY in the environment or in .env")
    asked = [r for r in stub.requests if r["model"] in ("good", "gone")]
    assert len(asked) == 2 and all(r["max_tokens"] == 1 for r in asked)  # one single-token request each
    assert preflight.preflight(parse_spec({"name": "bots", "games": [
        {"game": "tictactoe", "lineups": [["bot:random", "bot:random"]]}]})) == []


def test_a_launched_run_reports_turns_tokens_and_dollars_before_any_match_ends(stub, db_path):
    stub.responder = lambda req: StubReply('{"chosen_number": 20}', delay=0.4, prompt_tokens=40, completion_tokens=3)
    seat = {"agent": "openai/stub-model", "api_base": stub.url, "max_tokens": 16}
    raw = {"name": "live", "games": [
        {"game": "guessing_game", "params": {"players": 2, "rounds": 8}, "lineups": [[seat, "bot:random"]]}]}
    run_id = processes.start_run(raw, db_path)
    row = wait_for(lambda: r if (r := run_row(db_path, run_id)) is not None and (r.live_llm_turns or 0) >= 3 else None)
    assert row.playing and row.n_done == 0  # the database knows no finished match yet, the page knows the turns
    assert row.live_tokens_in == 40 * row.live_llm_turns and row.live_tokens_out == 3 * row.live_llm_turns
    assert row.live_turns >= 2 * row.live_llm_turns - 1  # the bot's turns count too
    assert "playing:" in processes.log_tail(db_path, run_id)  # the log says so while it plays
    wait_for(lambda: not processes.is_alive(db_path, run_id))
    row = run_row(db_path, run_id)
    assert row.live_status == "finished" and row.live_llm_turns == 8 and row.n_done == 1
    assert "344 tokens, $0.00 + 8 unpriced calls, " in processes.log_tail(db_path, run_id)  # the stub has no price


def test_a_finished_run_is_reaped_and_leaves_no_zombie(db_path):
    raw = {"name": "short", "games": [{"game": "tictactoe", "lineups": [["bot:random", "bot:random"]]}]}
    run_id = processes.start_run(raw, db_path)
    pid = int((processes.launches_dir(db_path) / run_id / "pid").read_text())
    wait_for(lambda: (r := run_row(db_path, run_id)) is not None and r.status == "ok")
    # the page's next look collects it (a leader whose threads are still exiting is reaped on a later look)
    wait_for(lambda: (processes.progress(db_path), not Path(f"/proc/{pid}").exists())[1])


def test_a_group_that_ignores_the_interrupt_is_killed_after_its_grace():
    code = "import signal, subprocess, sys, time; signal.signal(signal.SIGINT, signal.SIG_IGN); " \
           "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); time.sleep(60)"
    child = subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
    time.sleep(1.0)  # it started its own child and ignores Ctrl-C
    assert processes.group_alive(child.pid)
    processes.stop_group(child.pid, lambda: child.poll() is None, grace=0.5)
    child.wait(timeout=5)
    assert not processes.group_alive(child.pid)  # the grandchild too


def test_the_server_stops_the_runs_it_started_when_it_exits(stub, db_path):
    stub.responder = lambda req: StubReply('{"chosen_number": 20}', delay=0.5)
    seat = {"agent": "openai/stub-model", "api_base": stub.url, "max_tokens": 16}
    raw = {"name": "orphan", "repeats": 20, "concurrency": 1, "games": [
        {"game": "guessing_game", "params": {"players": 2, "rounds": 3}, "lineups": [[seat, "bot:random"]]}]}
    server = (f"import time; from engine.serve.launch import processes; db = {str(db_path)!r}; "
              f"run_id = processes.start_run({raw!r}, db); print(run_id, flush=True); end = time.monotonic() + 120\n"
              "while not processes.progress_file(db, run_id).exists() and time.monotonic() < end: time.sleep(0.1)")
    # the server exits once its run plays (its first turn is out, so the run is registered), however slow the start
    out = subprocess.run([sys.executable, "-c", server], cwd=store.ROOT, capture_output=True, text=True, timeout=180)
    run_id = out.stdout.split()[0]
    pid = int((processes.launches_dir(db_path) / run_id / "pid").read_text())
    assert not processes.group_alive(pid)  # gone with the server that started it
    assert store.query(db_path, "SELECT status FROM runs")["status"].tolist() == ["cancelled"]


def test_a_wrong_seat_count_parameter_gets_its_own_message_not_a_lineup_error():
    """players=1 is outside the game's bounds (2 to 100): that parameter's message, never "this game has 10 seats,
    the lineup lists 0"; the pickers follow the seat count the params give, a wrong one left out."""
    bounds = get_game("public_goods").params["players"]
    for players, said in ((1, f">= {bounds.lo}"), (101, f"<= {bounds.hi}")):
        errors = form.build_spec(make_form(games=[form.GameChoice("public_goods", ["default"], {"players": players},
                                                                  [])])).errors
        assert errors == {"public_goods.param.players": f"parameter 'players' must be {said}, got {players}"}
    assert form.seats_shown("public_goods", ["default"], {"players": 4}) == 4
    assert form.seats_shown("public_goods", ["default"], {"players": 1}) == bounds.default  # not 0
    assert form.seats_shown("public_goods", [], {}) == 0
    built = form.build_spec(make_form(games=[form.GameChoice("public_goods", ["default"], {"players": 3},
                                                             ["bot:random"] * 3)]))
    assert built.errors == {} and len(built.spec.matches[0].seats) == 3
    errors = form.build_spec(make_form(games=[form.GameChoice("public_goods", ["default"], {"players": 3},
                                                              ["bot:random"] * 2)])).errors
    assert errors == {"public_goods.seats": "this game has 3 seats, the lineup lists 2"}


def test_a_missing_key_is_said_without_a_request(monkeypatch):
    from engine.serve.launch import preflight

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert preflight.access_problem("openai/gpt-4o-mini") == "no key: set OPENAI_API_KEY in the environment or in .env"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert preflight.access_problem("openai/gpt-4o-mini") is None


def test_a_missing_endpoint_is_called_an_endpoint_and_a_seats_endpoint_stands_for_it(monkeypatch):
    from engine.serve.launch import preflight

    for name in ("OLLAMA_API_BASE", "HOSTED_VLLM_API_BASE"):
        monkeypatch.delenv(name, raising=False)
    assert preflight.access_problem("ollama/llama3") == (
        "no endpoint: set OLLAMA_API_BASE or give the seat an endpoint")
    assert preflight.access_problem("hosted_vllm/foo") == (  # litellm's own check asks nothing of it
        "no endpoint: set HOSTED_VLLM_API_BASE or give the seat an endpoint")
    for model in ("ollama/llama3", "hosted_vllm/foo"):
        assert preflight.access_problem(model, "http://localhost:8000/v1") is None
    monkeypatch.setenv("HOSTED_VLLM_API_BASE", "http://gpu1:8000/v1")
    assert preflight.access_problem("hosted_vllm/foo") is None


def test_a_seats_endpoint_reaches_the_spec_and_a_wrong_one_is_refused_under_its_field():
    def built(endpoint: str | None, agent: str = "hosted_vllm/foo") -> form.BuiltSpec:
        seats = [form.SeatChoice(agent, api_base=endpoint), "bot:random"]
        return form.build_spec(form.LaunchForm("ep", [form.GameChoice("tictactoe", ["default"], seats=seats)]))

    ok = built(" http://localhost:8000/v1 ")
    assert not ok.errors and ok.spec.matches[0].seats[0].api_base == "http://localhost:8000/v1"
    assert built(None).spec.matches[0].seats[0].api_base is None
    assert built("localhost:8000").errors == {
        "tictactoe.endpoint.0": "endpoint: 'localhost:8000' is not a URL; write it as http://host:port/v1"}
    refused = built("http://me:hunter2@gpu1:8000/v1").errors
    assert list(refused) == ["tictactoe.endpoint.0"] and "credential" in refused["tictactoe.endpoint.0"]
    assert "hunter2" not in refused["tictactoe.endpoint.0"]
    assert form.takes_endpoint("ollama/llama3") and not form.takes_endpoint("local/smollm2")
    assert not form.takes_endpoint("bot:random")


def test_runs_of_a_name_are_found_in_the_database_and_among_the_launched(db_path):
    """Any session's run of that name (the database's runs table) and one launched from here still starting."""
    import asyncio

    from engine.play.runner import run_spec

    assert processes.runs_named(db_path, "twice") == []  # no database yet
    raw = {"name": "twice", "games": [{"game": "tictactoe", "lineups": [["bot:random", "bot:random"]]}]}
    asyncio.run(run_spec(parse_spec(raw), db_path, progress=False))
    assert processes.runs_named(db_path, "twice") == [parse_spec(raw).run_id]
    assert processes.runs_named(db_path, "twic") == [] and processes.runs_named(db_path, "twice-") == []
    other = raw | {"seed": 5}  # one field changed: another run id, the same name
    run_id = processes.start_run(other, db_path)
    assert run_id != parse_spec(raw).run_id and run_id in processes.runs_named(db_path, "twice")
    wait_for(lambda: not processes.is_alive(db_path, run_id))


def test_a_stopped_study_resumes_as_the_same_study_and_continues(db_path, monkeypatch):
    """A study whose process is gone before its budget is spent (here: it stored its first look, and its budget, kept
    in the launch folder, buys another) is `stopped`, not `ok`; Resume plays it again with its flags, and it continues
    from the deals it has: its earlier matches are not played again."""
    raw = {"name": "study", "seed": 1, "games": [{"game": "tictactoe",
                                                  "lineups": [["bot:random", "bot:fixed:0"]]}]}
    run_id = processes.start_run(raw, db_path, adaptive=study.StudySettings(budget_matches=8))
    wait_for(lambda: not processes.is_alive(db_path, run_id))
    first = set(store.query(db_path, "SELECT match_id FROM matches")["match_id"])
    row = processes.progress(db_path).set_index("run_id").loc[run_id]
    assert len(first) == 8 and row.status == "ok" and row.standing.done  # its budget spent, its ranks not separated
    assert not row.standing.separated
    study.save(processes.study_file(db_path, run_id), study.StudySettings(budget_matches=16))  # a bigger budget
    row = processes.progress(db_path).set_index("run_id").loc[run_id]
    assert row.status == "stopped" and not row.standing.done and row.standing.matches == 8
    commands = []
    popen = processes.subprocess.Popen
    monkeypatch.setattr(processes.subprocess, "Popen", lambda command, **kw: commands.append(command) or
                        popen(command, **kw))
    processes.resume_run(db_path, run_id)
    assert commands[-1][-3:] == ["--until-separated", "--budget-matches", "16"]
    wait_for(lambda: not processes.is_alive(db_path, run_id))
    played = store.query(db_path, "SELECT match_id, repeat FROM matches")
    assert len(played) == 16 and first < set(played["match_id"]) and set(played["repeat"]) == {0, 1}
    row = processes.progress(db_path).set_index("run_id").loc[run_id]
    assert row.status == "ok" and row.standing.done and row.standing.looks == 2


def test_a_study_started_in_a_terminal_is_not_resumed_as_a_grid(db_path):
    """Its budget is not known here, and Resume would play its spec's grid into the study's run: the card sends
    the reader to the command instead."""
    import asyncio

    from engine.study.certainty_run import until_separated

    raw = {"name": "terminal", "seed": 1, "games": [{"game": "tictactoe",
                                                     "lineups": [["bot:random", "bot:fixed:0"]]}]}
    spec = parse_spec(raw)
    asyncio.run(until_separated(spec, db_path, budget_matches=8, progress=False))
    store.finish_run(db_path, spec.run_id, "cancelled")  # as Ctrl-C within a batch leaves it
    row = processes.progress(db_path).set_index("run_id").loc[spec.run_id]
    assert row.study is None and row.study_elsewhere and not row.resumable
