"""Issue 43: each paper's studies in runs/ play with the authors' temperatures and answer caps, as their released
code sets them (docs/STUDIES.md cites each file): γ-Bench's `chat` (temperature 1, max_tokens 1024), MAgIC's
config_release/*.json (temperature 0; 40 tokens in the Public Good, 128 in the Prisoner's Dilemma, 256 elsewhere),
LLMArena's opponent_templates/*/info.json (temperature 0.3, Hanabi 0; no cap there: the arena's 256). The specs leave
most of them to the games' protocol defaults (`Game.protocol_settings`), so the effective settings of the plans are
read: every bot of a spec swapped for a model, as a researcher puts one in, and every seat of every match planned."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from engine import store
from engine.agents.agent_names import DEFAULT_MAX_TOKENS
from engine.agents.prompting import AUTHORS_PREFIX
from engine.play import spec
from engine.study import tournament

RUNS = store.ROOT / "runs"
GAMMA_TEMPERATURES = {0.0, 0.2, 0.4, 0.6, 0.8, 1.0}  # the paper's Table 6
MODEL = "openai/stub-model"


def with_models(value: Any) -> Any:
    """A spec's YAML with every bot (`bot:...`) swapped for one model, asking for the arena's prompt versions (the
    authors' `authors-vN` are there only where imported)."""
    if isinstance(value, dict):
        return {key: with_models(item) for key, item in value.items()}
    if isinstance(value, list):
        return [with_models(item) for item in value]
    if isinstance(value, str) and value.startswith("bot:"):
        return MODEL
    return value.removeprefix(AUTHORS_PREFIX) if isinstance(value, str) else value


def planned_seats(path, tmp_path) -> list[tuple[str, object]]:
    """(game, seat) of every match the spec plans with models in place of its bots; a tournament's first round of
    each game."""
    raw = with_models(yaml.safe_load(path.read_text(encoding="utf-8")))
    path = tmp_path / path.name
    path.write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    if path.stem == "llmarena_round_robin":
        plans = tournament.load_tournament(path)
        matches = [m for game in plans.games for m in tournament.round_spec(plans, game, 0).matches]
    else:
        matches = spec.load_spec(path).matches
    return [(m.game, seat) for m in matches for seat in m.seats]


def authors_settings(paper: str, game: str) -> tuple[float | None, int]:
    """(temperature, max_tokens) the authors' code plays `game` with (None: the study varies it)."""
    if paper == "gamabench":
        return 1.0, 1024
    if paper == "magic":
        return 0.0, {"magic_public_good": 40, "prisoners_dilemma": 128}.get(game, 256)
    return (0.0 if game == "hanabi" else 0.3), DEFAULT_MAX_TOKENS


@pytest.mark.parametrize("path", sorted(p for p in RUNS.glob("*.yaml") if p.stem.split("_")[0]
                                        in ("gamabench", "magic", "llmarena")), ids=lambda p: p.stem)
def test_paper_studies_play_with_the_authors_settings(path, tmp_path):
    paper = path.stem.split("_")[0]
    seats = planned_seats(path, tmp_path)
    assert seats and all(seat.agent == MODEL for _, seat in seats)
    for game, seat in seats:
        temperature, max_tokens = authors_settings(paper, game)
        assert seat.max_tokens == max_tokens, (path.stem, game, seat)
        if path.stem == "gamabench_temperatures":
            continue  # the study's own temperatures, below
        assert seat.temperature == temperature, (path.stem, game, seat)
    if path.stem == "gamabench_temperatures":
        by_game: dict[str, set[float]] = {}
        for game, seat in seats:
            by_game.setdefault(game, set()).add(seat.temperature)
        assert all(levels == GAMMA_TEMPERATURES for levels in by_game.values()), by_game
