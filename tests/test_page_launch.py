"""The launch page, headless: the form with each game's defaults, field-by-field refusals, the cost
estimate, the admin token, and a started run that plays in its own process while the page watches."""

from __future__ import annotations

import time

from streamlit.testing.v1 import AppTest

from engine import launch, store
from engine.games import get_game

TYPED = "another model (type it)"


def page(db, monkeypatch, **params) -> AppTest:
    monkeypatch.setenv("ARENA_DB", str(db))
    at = AppTest.from_file("../pages/launch.py", default_timeout=60)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def type_model(at: AppTest, game: str, seat: int, model: str) -> None:
    at.selectbox(key=f"{game}.seat.{seat}").set_value(TYPED).run()
    at.text_input(key=f"{game}.typed.{seat}").set_value(model).run()


def test_the_form_shows_each_games_parameters_with_their_defaults(db_path, monkeypatch):
    at = page(db_path, monkeypatch, games=["tictactoe", "connect_four"])
    assert not at.exception and not at.error
    for game in ("tictactoe", "connect_four"):
        for name, param in get_game(game).params.items():
            widget = at.checkbox(key=f"{game}.param.{name}") if param.kind is bool else at.number_input(
                key=f"{game}.param.{name}")
            assert widget.value == param.default
        assert [at.selectbox(key=f"{game}.seat.{i}").value for i in range(2)] == ["bot:random"] * 2
    assert at.multiselect(key="connect_four.presets").value == ["default"]
    assert "Estimated total: **$0.0000** (bots only)." in [m.value for m in at.markdown]


def test_wrong_fields_are_refused_one_by_one_and_nothing_starts(db_path, monkeypatch):
    at = page(db_path, monkeypatch)
    at.text_input(key="name").set_value("two words").run()
    type_model(at, "tictactoe", 1, "my model")
    at.number_input(key="repeats").set_value(0).run()
    errors = [e.value for e in at.error]
    assert any("letters, digits" in e for e in errors)
    assert any("'my model' has whitespace" in e for e in errors)
    assert "must be an integer from 1 to 1000, got 0" in errors
    assert len(errors) == 3
    at.button(key="start").click().run()
    assert at.error[-1].value == "Not started: fix the 3 field(s) marked above."
    assert not launch.launches_dir(db_path).exists() and store.count_matches(db_path) == 0


def test_cost_estimate_prices_known_models_and_says_unknown(db_path, monkeypatch):
    at = page(db_path, monkeypatch)
    type_model(at, "tictactoe", 0, "openai/gpt-4o-mini")
    type_model(at, "tictactoe", 1, "openai/my-finetune")
    assert not at.error
    estimate = at.dataframe[0].value.set_index("model")
    expected = {e.model: e for e in launch.estimate_cost(launch.build_spec(launch.LaunchForm(
        name=at.text_input(key="name").value,
        games=[launch.GameChoice("tictactoe", ["default"], {}, ["openai/gpt-4o-mini", "openai/my-finetune"])],
    )).spec)}
    priced = launch.format_usd(expected["openai/gpt-4o-mini"].usd)
    assert estimate.loc["openai/gpt-4o-mini", "usd"] == priced != "unknown"
    assert estimate.loc["openai/my-finetune", "usd"] == "unknown"
    assert any(m.value.startswith("Estimated total: **unknown ($") for m in at.markdown)


def test_starting_needs_the_admin_token_then_the_run_plays_in_its_own_process(db_path, monkeypatch):
    monkeypatch.setenv(launch.ADMIN_TOKEN_ENV, "open-sesame")
    at = page(db_path, monkeypatch)
    at.number_input(key="repeats").set_value(2).run()
    at.button(key="start").click().run()
    assert at.error[-1].value == "Starting a run needs the admin token (ARENA_ADMIN_TOKEN)."
    assert not launch.launches_dir(db_path).exists()
    at.text_input(key="admin_token").set_value("open-sesame").run()
    at.button(key="start").click().run()
    assert at.success and at.success[0].value.startswith("Started run")
    run_id = at.success[0].value.split("`")[1]
    deadline = time.monotonic() + 30
    while launch.is_alive(db_path, run_id) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert store.query(db_path, "SELECT status, n_done FROM runs").to_dict("records") == [{"status": "ok", "n_done": 2}]
    at = page(db_path, monkeypatch)  # watching needs no token
    assert not at.exception
    assert any("2 of 2 matches done, 0 errors" in str(p.proto.text) for p in at.get("progress"))
    assert "open-sesame" not in (launch.launches_dir(db_path) / run_id / "spec.yaml").read_text()
