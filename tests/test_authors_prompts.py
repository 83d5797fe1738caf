"""Issue 43 (3): the authors' prompts play without being copied into the repository. `python -m engine import prompts
gamabench DIR` reads a prompt folder in GAMA-Bench's format (here one of the arena's own making,
tests/data/gamabench_prompts/) and makes its versions `authors-v1`, ... available outside the repository; the shipped
γ-Bench specs select them, and play the arena's own `v1`.. where they were not imported: each seat records which."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import store
from engine.agents.prompting import IMPORTED_PROMPTS_ENV, load_template, render, versions
from engine.cli.main import main
from engine.games import get_game
from engine.papers.gamabench.authors_prompts import import_prompts
from engine.play.spec import load_spec, parse_spec

FOLDER = Path(__file__).resolve().parent / "data" / "gamabench_prompts"
PROMPTS_STUDY = store.ROOT / "runs" / "gamabench_prompts.yaml"


@pytest.fixture
def prompts_home(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "prompts"
    monkeypatch.setenv(IMPORTED_PROMPTS_ENV, str(home))
    load_template.cache_clear()
    yield home
    load_template.cache_clear()


def first_observation(game: str):
    cls = get_game(game)
    match = cls(cls.resolve_params({}))
    match.reset(0)
    return match.observe(0)


def played_versions(game: str) -> list[str]:
    """The prompt version each lineup of the shipped prompt study plays in `game`, in the spec's order."""
    seen = []
    for plan in load_spec(PROMPTS_STUDY).matches:
        if plan.game == game and plan.seats[0].prompt_version not in seen:
            seen.append(plan.seats[0].prompt_version)
    return seen


def test_the_command_imports_a_prompt_folder_outside_the_repository(prompts_home, capsys):
    assert main(["import", "prompts", "gamabench", str(FOLDER)]) == 0
    assert "imported 3 prompt versions" in capsys.readouterr().out
    assert sorted(p.relative_to(prompts_home).as_posix() for p in prompts_home.rglob("*.yaml")) == [
        "guessing_game/authors-v1.yaml", "guessing_game/authors-v2.yaml", "sealed_bid_auction/authors-v1.yaml"]
    assert {"authors-v1", "authors-v2", "v1"} <= set(versions("guessing_game"))
    assert not list((store.ROOT / "engine" / "prompts").rglob("authors-*"))


def test_an_imported_version_renders_the_authors_text_filled_from_the_game(prompts_home):
    import_prompts(FOLDER)
    obs = first_observation("sealed_bid_auction")
    system, user = render(obs, "authors-v1")
    assert system["content"].startswith("You bid against 10 players for an item each round")
    assert f"the item is worth {obs.view['valuation']} to you" in user["content"]
    assert '{"bid": "<an integer from 0 to' in user["content"]
    assert user["content"].endswith("Do not use markdown format.") and "!<INPUT" not in user["content"]
    said_once = render(first_observation("guessing_game"), "authors-v2")[1]["content"]
    assert said_once.lower().count("do not use markdown format") == 1


def test_the_shipped_specs_play_the_arenas_versions_until_the_authors_are_imported(prompts_home):
    assert played_versions("guessing_game") == ["v1", "v2", "v3", "v4", "v5"]
    assert {s.prompt_version for m in load_spec(store.ROOT / "runs" / "gamabench_vanilla.yaml").matches
            for s in m.seats} == {"v1"}
    import_prompts(FOLDER)
    assert played_versions("guessing_game") == ["authors-v1", "authors-v2", "v3", "v4", "v5"]
    assert played_versions("sealed_bid_auction") == ["authors-v1", "v2", "v3", "v4", "v5"]
    assert played_versions("bar_game") == ["v1", "v2", "v3", "v4", "v5"]


def test_a_model_asking_for_the_authors_prompts_plays_the_arenas_until_they_are_imported(prompts_home):
    """A model's seat checks its prompt version as it plays it: `authors-v2` is the arena's v2 before an import."""
    spec = {"name": "authors", "games": [{"game": "guessing_game", "lineups": [
        {"all": {"agent": "openai/m", "api_base": "http://127.0.0.1:9/v1", "prompt_version": "authors-v2"}}]}]}
    assert {s.prompt_version for m in parse_spec(spec).matches for s in m.seats} == {"v2"}
    import_prompts(FOLDER)
    assert {s.prompt_version for m in parse_spec(spec).matches for s in m.seats} == {"authors-v2"}


def test_a_variable_the_arena_cannot_fill_is_refused_with_its_name(prompts_home, tmp_path):
    folder = tmp_path / "theirs" / "guessing_game"
    folder.mkdir(parents=True)
    (folder / "description_v1.txt").write_text((FOLDER / "guessing_game" / "description_v1.txt").read_text())
    (folder / "request_v1.txt").write_text("Variables:\n!<INPUT 0>! -- list of numbers\n\n"
                                           "<commentblockmarker>###</commentblockmarker>\nSo far: !<INPUT 0>!\n")
    with pytest.raises(ValueError, match="'list of numbers', which the arena cannot fill"):
        import_prompts(folder.parent)
    assert main(["import", "prompts", "llmarena", str(folder.parent)]) == 2
    assert not prompts_home.exists()
