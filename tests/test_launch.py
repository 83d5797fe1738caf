"""Launching from the dashboard, below the page: the form's field-by-field checks, the cost estimate,
the admin token, and a run played as its own process that is watched, cancelled and resumed."""

from __future__ import annotations

import json
import time

import pytest

from engine import launch, store
from engine.spec import parse_spec
from engine.testing import StubReply


def form(**changes) -> launch.LaunchForm:
    base = dict(name="t", games=[launch.GameChoice("tictactoe", ["default"], {}, ["bot:random", "bot:equilibrium"])])
    return launch.LaunchForm(**(base | changes))


def test_a_good_form_becomes_a_spec_that_plays():
    built = launch.build_spec(form(repeats=3, concurrency=2, strategy="cot", temperature=0.5))
    assert built.errors == {}
    assert len(built.spec.matches) == 3 and built.spec.concurrency == 2
    assert built.raw["defaults"] == {"prompt_version": "v1", "strategy": "cot", "temperature": 0.5, "max_tokens": 256}


def test_each_wrong_field_gets_its_own_message():
    bad = form(name="no spaces allowed", temperature=2.5, repeats=0, concurrency=100, strategy="persona:",
               games=[launch.GameChoice("tictactoe", ["default", "nope"], {"hint": "yes", "size": 3},
                                        ["bot:nobody", "my model"]),
                      launch.GameChoice("undercover", ["magic", "wis"], {}, ["bot:random"] * 3)])
    errors = launch.build_spec(bad).errors
    assert errors.keys() == {"name", "temperature", "repeats", "concurrency", "strategy", "tictactoe.presets",
                             "tictactoe.param.hint", "tictactoe.param.size", "tictactoe.seat.0", "tictactoe.seat.1",
                             "undercover.presets"}
    assert "has no bot 'nobody'" in errors["tictactoe.seat.0"] and "whitespace" in errors["tictactoe.seat.1"]
    assert "must be bool" in errors["tictactoe.param.hint"] and "different numbers of players" in errors[
        "undercover.presets"]
    assert "from 0 to 2" in errors["temperature"]


def test_models_are_checked_without_network_and_lineups_must_fit():
    errors = launch.build_spec(form(prompt_version="v9", games=[launch.GameChoice(
        "tictactoe", ["default"], {}, ["nosuchprovider/x", "gpt-4o-mini"])])).errors
    assert errors.keys() == {"tictactoe.seat.0", "prompt_version"}  # a bare known model name is fine
    assert "unknown provider 'nosuchprovider'" in errors["tictactoe.seat.0"]
    errors = launch.build_spec(form(games=[launch.GameChoice("tictactoe", ["default"], {}, ["bot:random"])])).errors
    assert errors == {"tictactoe.seats": "this game has 2 seats, the lineup lists 1"}


def test_cost_estimate_prices_known_models_and_says_unknown_otherwise():
    spec = launch.build_spec(form(repeats=2, max_tokens=100, games=[launch.GameChoice(
        "tictactoe", ["default"], {}, ["openai/gpt-4o-mini", "openai/my-finetune"])])).spec
    rows = {r.model: r for r in launch.estimate_cost(spec)}
    assert rows.keys() == {"openai/gpt-4o-mini", "openai/my-finetune"}  # no bot
    priced, unknown = rows["openai/gpt-4o-mini"], rows["openai/my-finetune"]
    assert priced.matches == 2 and 2 * 3 <= priced.calls <= 2 * 5  # X moves 3 to 5 times a game
    per_in, per_out = launch.price("openai/gpt-4o-mini")
    assert per_in > 0 and priced.usd == pytest.approx(priced.tokens_in * per_in + priced.tokens_out * per_out)
    assert priced.tokens_out == priced.calls * launch.SHORT_ANSWER_TOKENS and priced.tokens_in > 100 * priced.calls
    assert unknown.usd is None and launch.format_usd(unknown.usd) == "unknown"
    pgm = launch.build_spec(form(repeats=2, strategy="pgm", max_tokens=100, games=[launch.GameChoice(
        "tictactoe", ["default"], {}, ["openai/gpt-4o-mini", "bot:random"])])).spec
    assert {r.model: r for r in launch.estimate_cost(pgm)}["openai/gpt-4o-mini"].calls == 2 * priced.calls
    bots_only = launch.build_spec(form()).spec
    assert launch.estimate_cost(bots_only) == []


def test_admin_token_gates_only_when_set(monkeypatch):
    monkeypatch.delenv(launch.ADMIN_TOKEN_ENV, raising=False)
    assert not launch.admin_required() and launch.admin_ok(None)
    monkeypatch.setenv(launch.ADMIN_TOKEN_ENV, "open-sesame")
    assert launch.admin_required() and not launch.admin_ok(None) and not launch.admin_ok("wrong")
    assert launch.admin_ok("open-sesame")


def wait_for(condition, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value is not None and value is not False:
            return value
        time.sleep(0.1)
    raise AssertionError("timed out")


def run_row(db, run_id):
    table = launch.progress(db)
    return table[table["run_id"] == run_id].iloc[0] if not table.empty and run_id in set(table["run_id"]) else None


def test_a_launched_run_is_its_own_process_cancelled_then_resumed(stub, db_path, monkeypatch):
    secret = "sk-test-1234567890abcdefSECRET"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    stub.responder = lambda req: StubReply('{"chosen_number": 20}', delay=0.5, prompt_tokens=40, completion_tokens=3)
    seat = {"agent": "openai/stub-model", "api_base": stub.url, "temperature": 0.0, "max_tokens": 16}
    raw = {"name": "launched", "seed": 1, "repeats": 6, "concurrency": 1, "games": [
        {"game": "guessing_game", "params": {"players": 2, "rounds": 2}, "lineups": [[seat, "bot:random"]]}]}
    run_id = launch.start_run(raw, db_path)
    assert run_id == parse_spec(raw).run_id and launch.is_alive(db_path, run_id)
    with pytest.raises(RuntimeError, match="already playing"):
        launch.start_run(raw, db_path)
    row = wait_for(lambda: r if (r := run_row(db_path, run_id)) is not None and r.n_done >= 2 else None)
    assert row.playing and row.status == "running"
    assert launch.cancel_run(db_path, run_id)
    wait_for(lambda: not launch.is_alive(db_path, run_id))
    row = run_row(db_path, run_id)
    assert row.status == "cancelled" and 2 <= row.n_done < 6 and not row.playing
    kept = store.query(db_path, "SELECT match_id, finished_at FROM matches WHERE status = 'ok'")

    asked_before = len(stub.requests)
    launch.resume_run(db_path, run_id)
    wait_for(lambda: not launch.is_alive(db_path, run_id))
    row = run_row(db_path, run_id)
    assert row.status == "ok" and row.n_done == 6 and row.errors == 0
    assert row.tokens == 6 * 2 * (40 + 3) and launch.format_usd(row.usd) == "unknown"  # the stub has no price
    again = store.query(db_path, "SELECT match_id, finished_at FROM matches").set_index("match_id")["finished_at"]
    assert all(again[m] == t for m, t in zip(kept["match_id"], kept["finished_at"], strict=True))  # not replayed
    assert len(stub.requests) - asked_before == (6 - len(kept)) * 2  # the resume asked only for unplayed matches
    # the key reached the provider and nowhere else: not the spec file, the log, nor the database
    folder = launch.launches_dir(db_path) / run_id
    assert secret not in (folder / "spec.yaml").read_text() + (folder / "log.txt").read_text()
    assert secret.encode() not in db_path.read_bytes()
    assert secret not in json.dumps(store.query(db_path, "SELECT spec FROM runs")["spec"].tolist())
