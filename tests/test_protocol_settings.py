"""A model's answer settings are part of the game's protocol, not of the agent: a seat that sets no temperature or
max_tokens plays with its game's (the paper's code's: `Game.protocol_settings`), and its name lists only the settings
that differ from them. So one model across MAgIC's three game-theory games (caps 256, 128, 40) is one row of MAgIC's
profile, LLMArena's Hanabi (temperature 0, the others 0.3) is no row of its own, and a deliberate change shows."""

from __future__ import annotations

import asyncio

import yaml

from engine import store
from engine.papers.magic.abilities import ability_profile
from engine.play.runner import run_spec
from engine.play.spec import parse_spec, seat_name
from engine.testing import StubServer, echo_last_number

MODEL = "openai/stub-model"


def played(spec: dict, db) -> list[tuple[float, int]]:
    """Play `spec` against a stub model; the (temperature, max_tokens) of every call it received."""
    asked = []

    def answer(request: dict) -> object:
        asked.append((request.get("temperature"), request.get("max_tokens")))
        return echo_last_number(request)

    with StubServer(answer) as server:
        for entry in spec["games"]:
            for lineup in entry["lineups"]:
                seats = lineup.values() if isinstance(lineup, dict) else lineup
                for seat in seats:
                    if isinstance(seat, dict) and seat.get("agent") == MODEL:
                        seat["api_base"] = server.url
        for alias in spec.get("agents", {}).values():
            if isinstance(alias, dict) and alias.get("agent") == MODEL:
                alias["api_base"] = server.url
        asyncio.run(run_spec(parse_spec(spec), db, progress=False))
    return asked


def model_names(db) -> set[str]:
    return {name for (name,) in store.rows(db, "SELECT DISTINCT agent_name FROM seats WHERE agent = ?", [MODEL])}


def test_one_model_across_magics_theory_games_is_one_row_of_its_profile(tmp_path):
    """The shipped spec with a model as its challenger (one setting group per game): one name, one profile row with
    the three game-theory abilities, and every call at MAgIC's temperature 0 and the game's cap."""
    spec = yaml.safe_load((store.ROOT / "runs" / "magic_game_theory.yaml").read_text(encoding="utf-8"))
    spec["agents"]["challenger"] = {"agent": MODEL, "label": "challenger-model"}
    for entry in spec["games"]:
        entry["presets"] = entry["presets"][:1]
    db = tmp_path / "magic.duckdb"
    asked = played(spec, db)
    assert {temperature for temperature, _ in asked} == {0.0}
    assert {cap for _, cap in asked} == {256, 128, 40}  # Cost Sharing, the Prisoner's Dilemma, the Public Good
    assert model_names(db) == {f"challenger-model · {MODEL}"}
    profile = ability_profile(db)
    rows = profile[profile["agent"].str.contains(MODEL, regex=False)]
    assert len(rows) == 1
    theory = ["Cooperation (0-100)", "Coordination (0-100)", "Rationality (0-100)"]
    assert rows[theory].notna().all(axis=None), rows[theory]


def test_llmarenas_hanabi_at_its_protocol_temperature_is_no_row_of_its_own(tmp_path):
    """A model in TicTacToe (0.3) and Hanabi (0) with no temperature set plays each at the authors' and is one
    name."""
    spec = {"name": "arena", "seed": 0, "games": [
        {"game": "tictactoe", "lineups": [[{"agent": MODEL}, "bot:random"]]},
        {"game": "hanabi", "lineups": [{"all": {"agent": MODEL}}]}]}
    db = tmp_path / "arena.duckdb"
    asked = played(spec, db)
    assert {temperature for temperature, _ in asked} == {0.3, 0.0}
    assert sorted(set(store.rows(db, "SELECT DISTINCT temperature FROM seats WHERE agent = ?", [MODEL]))) == \
        [(0.0,), (0.3,)]
    assert model_names(db) == {MODEL}


def test_a_setting_that_differs_from_the_protocol_shows_in_the_name():
    """A seat's own setting, where it is not the protocol's, is named: γ-Bench's temperature study at 0, a model at
    the arena's 1.0 in LLMArena's TicTacToe, MAgIC's Prisoner's Dilemma at 256 tokens; at the protocol's value it is
    not. A bot's seat keeps the settings it always had."""
    spec = parse_spec({"name": "apart", "games": [
        {"game": "guessing_game", "lineups": [{"all": {"agent": MODEL, "temperature": 0.0}},
                                               {"all": {"agent": MODEL, "temperature": 1.0}}]},
        {"game": "tictactoe", "lineups": [[{"agent": MODEL, "temperature": 1.0}, "bot:random"]]},
        {"game": "prisoners_dilemma", "lineups": [[{"agent": MODEL, "max_tokens": 256}, "bot:random",
                                                   {"agent": MODEL, "max_tokens": 128}]]}]})
    names = [[seat_name(seat, plan) for seat in plan.seats] for plan in spec.matches]
    assert names[0][0] == f"{MODEL} (t=0.0)" and names[1][0] == MODEL
    assert names[2] == [f"{MODEL} (t=1.0)", "bot:random"]
    assert names[3] == [f"{MODEL} (max_tokens=256)", "bot:random", MODEL]
    bot = spec.matches[2].seats[1]
    assert (bot.temperature, bot.max_tokens) == (1.0, 256)
