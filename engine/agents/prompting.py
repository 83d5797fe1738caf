"""Prompt templates: `engine/prompts/<game>/<version>.yaml`, one `system` text and one text per
decision phase, filled from the observation's view. Adding a version is adding a file."""

from __future__ import annotations

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


def versions(game: str) -> list[str]:
    return sorted(p.stem for p in (PROMPTS_DIR / game).glob("*.yaml"))


@lru_cache(maxsize=256)
def load_template(game: str, version: str) -> dict[str, str]:
    path = PROMPTS_DIR / game / f"{version}.yaml"
    if not path.exists():
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
