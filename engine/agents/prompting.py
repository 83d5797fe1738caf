"""Prompt templates: `engine/prompts/<game>/<version>.yaml`, one `system` text and one text per
decision phase, filled from the observation's view. Adding a version is adding a file.

A paper's own prompts are imported, never shipped: `python -m engine import prompts gamabench DIR` writes them in the
same format as versions `authors-v1`, `authors-v2`, ... under `imported_prompts_dir()` (outside the repository).
A seat that asks for `authors-vN` plays it where it was imported, else the arena's own `vN` (`playable_version`):
the seat then records the version that played."""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path

import yaml

from engine.games.base import Observation

PROMPTS_DIR = Path(__file__).resolve().parent.parent / "prompts"
# what a prompt shows as an answer: a flat JSON object with a quoted key, or a quoted text an example cue introduces
# ("for example", "e.g.", "such as", "like", "as", "form"); a shipped prompt shows placeholders there, never a legal
# answer (a model copies an example: SmolLM2 answered a prompt's 42 every time)
_JSON_EXAMPLE = re.compile(r'\{[^{}]*"[^"{}]*"\s*:[^{}]*\}')
_QUOTED_EXAMPLE = re.compile(r'\b(?:for example|e\.g\.|such as|like|as|form)(?: this| in| follows)?[:,]?\s*"([^"\n]+)"',
                             re.IGNORECASE)


IMPORTED_PROMPTS_ENV = "ARENA_PROMPTS"
AUTHORS_PREFIX = "authors-"  # an imported version's name: "authors-v2", the authors' v2


def imported_prompts_dir() -> Path:
    """Where imported prompt versions live: $ARENA_PROMPTS, else ~/.local/share/arena/prompts."""
    return Path(os.environ.get(IMPORTED_PROMPTS_ENV) or Path.home() / ".local" / "share" / "arena" / "prompts")


def _template_files(game: str) -> dict[str, Path]:
    """Each prompt version of `game` and its file: the shipped ones and the imported `authors-*` ones."""
    shipped = {p.stem: p for p in (PROMPTS_DIR / game).glob("*.yaml")}
    imported = {p.stem: p for p in (imported_prompts_dir() / game).glob(f"{AUTHORS_PREFIX}*.yaml")}
    return shipped | imported


def versions(game: str) -> list[str]:
    return sorted(_template_files(game))


def playable_version(game: str, version: str) -> str:
    """The version a seat asking for `version` plays: `authors-vN` where it was imported, else the arena's `vN`."""
    own = version.removeprefix(AUTHORS_PREFIX)
    if version == own or version in _template_files(game) or own not in _template_files(game):
        return version
    return own


@lru_cache(maxsize=256)
def load_template(game: str, version: str) -> dict[str, str]:
    path = _template_files(game).get(version)
    if path is None:
        raise ValueError(f"game '{game}' has no prompt version '{version}' (has: {', '.join(versions(game))})")
    template = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(template, dict) or "system" not in template:
        raise ValueError(f"{path} must be a mapping with a 'system' text and one text per phase")
    return template


def _fill(text: str, obs: Observation, where: str) -> str:
    try:
        return text.format_map(obs.view).strip()
    except (KeyError, IndexError, ValueError) as exc:
        raise ValueError(f"prompt {where} cannot be filled from the game's view: {exc!r}") from None


def render(obs: Observation, version: str) -> list[dict[str, str]]:
    """Chat messages for one decision: the rules as system, then what this seat saw, then the ask."""
    template = load_template(obs.game, version)
    if obs.phase not in template:
        raise ValueError(f"prompt {obs.game}/{version} has no text for phase '{obs.phase}'")
    system = _fill(template["system"], obs, f"{obs.game}/{version}:system")
    ask = _fill(template[obs.phase], obs, f"{obs.game}/{version}:{obs.phase}")
    user = ask if not obs.history else "What has happened so far:\n" + "\n".join(obs.history) + "\n\n" + ask
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def examples(text: str) -> list[str]:
    """The answers a prompt's text shows as examples, in order: each JSON object with a quoted key, and each quoted
    text after an example cue ("for example", "e.g.", "such as", "like this", "as in", "as")."""
    found = [(m.start(), m.group(0)) for m in _JSON_EXAMPLE.finditer(text)]
    found += [(m.start(1), m.group(1)) for m in _QUOTED_EXAMPLE.finditer(text)]
    return [example for _, example in sorted(found)]
