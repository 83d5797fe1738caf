"""γ-Bench's own prompts (github.com/CUHK-ARISE/GAMABench, `prompt_template/`) -> the arena's prompt versions
`authors-v1`, `authors-v2`, ..., written under `engine.agents.prompting.imported_prompts_dir()`, never into the
repository: `python -m engine import prompts gamabench DIR`.

DIR is their prompt folder in their format: a folder per game, named as the arena names the game, holding
`description_v<k>.txt` (the rules: the system text) and `request_v<k>.txt` (the ask of each round; the Pirate Game
has `request1_v<k>.txt`, the proposal, and `request2_v<k>.txt`, the vote). A file's text is what follows its
`<commentblockmarker>###</commentblockmarker>`; `!<INPUT i>!` is filled with the value its header names
("!<INPUT 0>! -- round id"), as their `server.get_prompt` fills the inputs their game code passes. Each name becomes
the arena's field (`FIELDS`): a name the arena does not know is refused with the file and the names it knows. Their
CoT and persona messages become empty (the arena's strategies add their own); the output format asks for the
arena's answer key, and the request ends with "Do not use markdown format." where it does not say so.

The round reports (`report_v<k>.txt`, where their code inserts the model's answer as an assistant turn) are not
imported: the arena's history lines report the rounds (docs/PAPERS.md)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from engine.agents.prompting import AUTHORS_PREFIX, imported_prompts_dir, load_template

MARKER = "<commentblockmarker>###</commentblockmarker>"
INPUT = re.compile(r"!<INPUT (\d+)>!")
VARIABLE = re.compile(r"^\s*!<INPUT (\d+)>!\s*--\s*(.+?)\s*$", re.MULTILINE)
NO_MARKDOWN = "Do not use markdown format."

# each game's request files and the arena's phase each asks for
REQUESTS = {"guessing_game": {"request": "choose"}, "bar_game": {"request": "choose"},
            "divide_dollar": {"request": "choose"}, "public_goods": {"request": "choose"},
            "diner_dilemma": {"request": "choose"}, "sealed_bid_auction": {"request": "bid"},
            "battle_royale": {"request": "shoot"}, "pirate_game": {"request1": "propose", "request2": "vote"}}
# the answer the arena reads in each phase, as the output format asks for it (the view's `format` says what it is)
ANSWERS = {("guessing_game", "choose"): '{{"chosen_number": "<{format}>"}}',
           ("bar_game", "choose"): '{{"decision": "<{format}>"}}',
           ("divide_dollar", "choose"): '{{"bid_amount": "<{format}>"}}',
           ("public_goods", "choose"): '{{"tokens_contributed": "<{format}>"}}',
           ("diner_dilemma", "choose"): '{{"chosen_dish": "<{format}>"}}',
           ("sealed_bid_auction", "bid"): '{{"bid": "<{format}>"}}',
           ("battle_royale", "shoot"): '{{"target": "<{format}>"}}',
           ("pirate_game", "propose"): '{{"plan": "<{format}>"}}',
           ("pirate_game", "vote"): '{{"decision": "<accept or reject>"}}'}
# a variable's name (lower case, as their headers write it) -> the arena's text for it
COMMON_FIELDS = {
    "round id": "{round}", "round": "{round}", "current round": "{round}",
    "number of players": "{n}", "player number": "{n}", "players": "{n}",
    "number of rounds": "{rounds}", "rounds": "{rounds}", "round message": " There will be {rounds} rounds.",
    "minimum": "{min}", "min": "{min}", "maximum": "{max}", "max": "{max}",
    "golds": "{golds}", "gold": "{golds}", "total golds": "{golds}",
    "cot message": "", "role play message": "", "role message": "",
}
GAME_FIELDS = {
    "guessing_game": {"ratio": "{ratio_text}"},
    "bar_game": {"ratio": "{ratio_pct}", "home utility": "{home}", "minimum utility": "{min}",
                 "maximum utility": "{max}"},
    "public_goods": {"ratio": "{ratio_text}", "tokens": "{tokens}"},
    "diner_dilemma": {"cheap cost": "{cheap_price}", "cheap utility": "{cheap_utility}",
                      "expensive cost": "{costly_price}", "expensive utility": "{costly_utility}"},
    "sealed_bid_auction": {"valuation": "{valuation}", "mode": "{price_rule}"},
    "battle_royale": {"hit rate": "{my_rate}", "alive players": "{alive_text}", "player id": "{player}"},
    "pirate_game": {"rank": "{rank}", "proposer": "{proposer}"},
}


def fields(game: str, phase: str | None) -> dict[str, str]:
    """The variable names a file of `game` may use and the arena's text for each (`phase`: a request's)."""
    known = COMMON_FIELDS | GAME_FIELDS.get(game, {})
    return known | ({"output format": ANSWERS[(game, phase)]} if phase else {})


def template_text(path: Path, game: str, phase: str | None) -> str:
    """One of their files as an arena template (str.format over the game's view)."""
    text = path.read_text(encoding="utf-8")
    if MARKER not in text:
        raise ValueError(f"{path}: no '{MARKER}' line (their get_prompt reads the text after it)")
    header, body = text.split(MARKER, 1)
    names = {int(i): name.lower() for i, name in VARIABLE.findall(header)}
    known = fields(game, phase)
    for i in sorted({int(i) for i in INPUT.findall(body)}):
        if i not in names:
            raise ValueError(f"{path}: !<INPUT {i}>! is used but its header does not name it")
        if names[i] not in known:
            raise ValueError(f"{path}: !<INPUT {i}>! is '{names[i]}', which the arena cannot fill "
                             f"(it knows: {', '.join(sorted(known))})")
    braced = body.strip().replace("{", "{{").replace("}", "}}")
    filled = INPUT.sub(lambda m: known[names[int(m[1])]], braced)
    if phase and NO_MARKDOWN.lower() not in filled.lower():
        filled = f"{filled} {NO_MARKDOWN}"
    return filled


def prompt_versions(folder: Path) -> dict[tuple[str, str], dict[str, str]]:
    """(game, `authors-v<k>`) -> the template of every version of every game the folder holds."""
    found = {}
    for game, requests in REQUESTS.items():
        for description in sorted((folder / game).glob("description_v*.txt")):
            k = description.stem.removeprefix("description_")
            template = {"system": template_text(description, game, None)}
            for stem, phase in requests.items():
                request = folder / game / f"{stem}_{k}.txt"
                if not request.is_file():
                    raise ValueError(f"{description} has no {request.name} beside it")
                template[phase] = template_text(request, game, phase)
            found[(game, f"{AUTHORS_PREFIX}{k}")] = template
    return found


def import_prompts(folder: str | Path) -> str:
    """Write the folder's prompt versions to `imported_prompts_dir()` (replacing those of an earlier import)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ValueError(f"no folder at {folder}: give the authors' prompt folder (their `prompt_template/`)")
    found = prompt_versions(folder)
    if not found:
        raise ValueError(f"{folder} holds no description_v<k>.txt under a game's folder ({', '.join(REQUESTS)})")
    home = imported_prompts_dir()
    for (game, version), template in found.items():
        (home / game).mkdir(parents=True, exist_ok=True)
        (home / game / f"{version}.yaml").write_text(yaml.safe_dump(template, allow_unicode=True, sort_keys=False),
                                                     encoding="utf-8")
    load_template.cache_clear()
    games = sorted({game for game, _ in found})
    names = sorted({version for _, version in found})
    return (f"imported {len(found)} prompt versions ({', '.join(names)}) of {len(games)} games "
            f"({', '.join(games)}) into {home}")
