"""What a GAMA-Bench published file's name and meta block say: the model, the game, the study or condition
(the naming rules are in engine/papers/gamabench/importer.py's docstring), and our game's name, preset and parameters.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from engine.papers.gamabench.records import RecordError

PAPER_MODEL = "gpt-3.5-turbo-0125"
PERSONAS = {"1": "persona:cooperative", "2": "persona:selfish", "3": "persona:mathematician"}
MAX_RUN_NUMBER = 10_000  # their runs are numbered 1-5 (at most 10 in a study); as many as a spec may repeat
LEADERBOARD_RUNS = ("1", "2", "3", "4", "5")  # board.py: f"{model}{game}_v1_{i}.json" for i in range(1, 6)
GAMA_NAMES = ("guessing_game", "bar_game_implicit", "bar_game_explicit", "bar_game", "divide_dollar",
              "public_goods", "diner_dilemma", "sealed_bid_auction", "battle_royale", "pirate_game")
# the game's name in a file name: after the model and "_" (or "-": "gpt-4-0125-pirate_game_v1_1.json"), then an
# optional prompt version and an optional suffix that may hold underscores ("_savept1_0"); some files have no version
# ("battle_royale_cot2.json": their meta says it)
FILE_NAME = re.compile(r"(?:^|[_-])(?P<game>" + "|".join(GAMA_NAMES) + r")(?:_(?P<version>v\d+)(?=_|\.json$))?"
                       r"(?:_(?P<suffix>[A-Za-z0-9]+(?:_[A-Za-z0-9]+)*))?\.json$")


def as_number(value: Any) -> float:
    return float(value)


def parse_name(name: str) -> dict[str, Any]:
    """The match's game, model prefix and condition from a GAMA-Bench file name. `model` is the name's prefix
    (no prefix: the paper's model); `model_name` settles it against what the file records. `prompt_version`
    is None when the name has none (the file's meta has it). `own_setting` names the study of every file but
    the leaderboard's runs (`_v1_1`.._v1_5`; a numbered run of another version is told apart by its version)."""
    m = FILE_NAME.search(name)
    if not m:
        raise RecordError("not a GAMA-Bench record name ([model_]game[_vK][_suffix].json)")
    prefix = name[:m.start("game")].rstrip("_-")
    suffix = m["suffix"] or ""
    cond = {"gama_game": m["game"], "model": prefix.replace("_", "-") or PAPER_MODEL, "prompt_version": m["version"],
            "temperature": 1.0, "strategy": "vanilla", "repeat": 0, "variant": suffix or None, "own_setting": None}
    if suffix.isdigit():
        if not 1 <= int(suffix) <= MAX_RUN_NUMBER:
            raise RecordError(f"run number {suffix[:20]} is outside 1-{MAX_RUN_NUMBER:,}: no record of theirs")
        cond["repeat"], cond["variant"] = int(suffix) - 1, None
    elif re.fullmatch(r"t[0-5]", suffix):
        cond["temperature"] = round(int(suffix[1]) * 0.2, 1)
    elif re.fullmatch(r"v[1-9]", suffix):
        cond["prompt_version"] = suffix
    elif re.fullmatch(r"cot\d", suffix):
        cond["strategy"] = "cot"
    elif re.fullmatch(r"role[1-3]", suffix):
        cond["strategy"] = PERSONAS[suffix[-1]]
    if not (suffix in LEADERBOARD_RUNS or suffix.isdigit() and m["version"] not in (None, "v1")):
        cond["own_setting"] = suffix or m["version"] or "unnumbered"
    return cond


def filed_apart(name: str, model: str) -> str | None:
    """The study of a file board.py never reads although its name numbers a run: board.py reads
    `<model>_<game>_v1_<k>.json`, the model written out and joined with "_" (no prefix: the paper's model). The
    authors' folder also keeps older copies of runs under other names: joined with "-"
    ("gpt-4-0125-pirate_game_v1_1.json", "gpt-4-0125-preview-pirate_game_v1_3.json") or an abbreviation of the
    model ("gpt-3.5-0613_public_goods_v1_1.json" for gpt-3.5-turbo-0613, "gpt-3.5_1106_..."); the same rounds
    counted twice would weigh those runs double in the leaderboard row. None for a name board.py reads."""
    m = FILE_NAME.search(name)
    prefix = name[:m.start("game")] if m else ""
    return None if prefix in ("", f"{model}_") else f"filed as {prefix}"


def versioned_copy(path: Path) -> Path | None:
    """The file `<game>_v1_<suffix>.json` beside a study file named without a version, when there is one. The
    authors saved some studies again under the versioned name (the meta gained `mode` and `models`):
    "battle_royale_t1.json" and "battle_royale_v1_t1.json", "sealed_bid_auction_cot2.json" and
    "sealed_bid_auction_v1_cot2.json". None for any other file."""
    m = FILE_NAME.search(path.name)
    if not m or m["version"] or not m["suffix"] or m["suffix"].isdigit():
        return None
    copy = path.with_name(f"{path.name[:m.start('game')]}{m['game']}_v1_{m['suffix']}.json")
    return copy if copy.is_file() else None


def _tokens(name: str) -> list[str]:
    return [t for t in re.split(r"[^a-z0-9]+", name.lower()) if t]


def _added_tokens(short: list[str], long: list[str]) -> list[str] | None:
    """The tokens `long` adds to `short` when `short` is a subsequence of it, else None."""
    added, rest = [], iter(long)
    for want in short:
        for token in rest:
            if token == want:
                break
            added.append(token)
        else:
            return None
    return added + list(rest)


def recorded_model(data: dict[str, Any]) -> str | None:
    """The model the file itself names: every player's `model` when they agree, else meta `models` (or `model`)."""
    players = data.get("player_data")
    names = {str(p["model"]) for p in players if isinstance(p, dict) and p.get("model")} \
        if isinstance(players, list) else set()
    if len(names) == 1:
        return names.pop()
    meta = data.get("meta") if isinstance(data.get("meta"), dict) else {}
    models = meta.get("models") or meta.get("model")
    return models if isinstance(models, str) and models else None


def model_name(prefix_model: str, data: dict[str, Any]) -> str:
    """The model of a record. The file name's prefix, the authors' own short name ("llama-3.1-405b" for what the
    file records as "meta-llama/Meta-Llama-3.1-405B-Instruct"), except when it only abbreviates the recorded
    model by leaving words out ("gpt-3.5-0613", "gpt-4-0125" for "gpt-3.5-turbo-0613", "gpt-4-0125-preview": the
    older copies' names, the leaderboard's model names; `filed_apart` keeps those copies out of its row); a date
    the recorded name adds ("gpt-4o-2024-08-06") is no reason to rename. A file without a prefix is the paper's
    model unless it records an unrelated one."""
    recorded = recorded_model(data)
    if not recorded or "/" in recorded:
        return prefix_model
    mine, theirs = _tokens(prefix_model), _tokens(recorded)
    if prefix_model == PAPER_MODEL:  # no prefix in the name
        related = _added_tokens(theirs, mine) is not None or _added_tokens(mine, theirs) is not None
        return PAPER_MODEL if related else recorded
    added = _added_tokens(mine, theirs)
    return recorded if added and all(t.isalpha() for t in added) else prefix_model


def _pricing(meta: dict[str, Any], data: dict[str, Any], where: tuple[str, ...]) -> str:
    """First or second price: meta `mode` ("highest bid" / "second highest bid"), else the folder the authors
    filed it in (older files have no mode), else whether a winner ever paid less than its bid."""
    if meta.get("mode"):
        return "second" if "second" in str(meta["mode"]).lower() else "first"
    for part in reversed(where):
        if part in ("first_price", "second_price"):
            return part.split("_")[0]
    paid_less = any(isinstance(r, dict) and "bid_winner_payment" in r
                    and as_number(r["bid_winner_payment"])
                    < as_number(r.get("bid_winner_proposed", r["bid_winner_payment"]))
                    for r in data["round_records"])
    return "second" if paid_less else "first"


def game_setup(gama_game: str, meta: dict[str, Any], data: dict[str, Any],
               where: tuple[str, ...] = ()) -> tuple[str, str, dict[str, Any]]:
    """Our game name, preset and parameters for a GAMA-Bench file's meta block (`where`: the folders it is in)."""
    n = int(as_number(meta["player_num"]))
    rounds = len(data["round_records"])
    if gama_game == "guessing_game":
        return "guessing_game", "default", {"players": n, "rounds": rounds, "min": int(as_number(meta["min"])),
                                            "max": int(as_number(meta["max"])), "ratio": as_number(meta["ratio"])}
    if gama_game.startswith("bar_game"):
        mode = str(meta.get("mode") or gama_game.rpartition("_")[2])
        return "bar_game", mode, {"players": n, "rounds": rounds, "ratio": as_number(meta["ratio"]), "mode": mode,
                                  "min": int(as_number(meta["min"])), "max": int(as_number(meta["max"])),
                                  "home": int(as_number(meta["home"]))}
    if gama_game == "divide_dollar":
        return "divide_dollar", "default", {"players": n, "rounds": rounds, "golds": int(as_number(meta["golds"]))}
    if gama_game == "public_goods":
        return "public_goods", "default", {"players": n, "rounds": rounds, "tokens": int(as_number(meta["tokens"])),
                                           "ratio": as_number(meta["ratio"])}
    if gama_game == "diner_dilemma":
        return "diner_dilemma", "default", {
            "players": n, "rounds": rounds, "cheap_price": int(as_number(meta["cheap_cost"])),
            "cheap_utility": int(as_number(meta["cheap_utility"])), "costly_price": int(as_number(meta["exp_cost"])),
            "costly_utility": int(as_number(meta["exp_utility"]))}
    if gama_game == "sealed_bid_auction":
        pricing = _pricing(meta, data, where)
        return "sealed_bid_auction", f"{pricing}_price", {
            "players": n, "rounds": rounds, "valuation_min": int(as_number(meta["valuation_min"])),
            "valuation_max": int(as_number(meta["valuation_max"])), "valuation_step": int(as_number(meta["interval"])),
            # their files save the seed after the last round (it grows by one a round): the match's is the first
            "valuation_seed": int(as_number(meta.get("seed", 42 + rounds))) - rounds, "pricing": pricing}
    if gama_game == "battle_royale":
        base, step = int(as_number(meta["base_hit_rate"])), int(as_number(meta["interval"]))
        return "battle_royale", "default", {"players": n, "hit_min": base, "hit_max": base + step * (n - 1),
                                            "rounds": max(20, rounds)}  # their main.py's 20 (one shot a round)
    return "pirate_game", "default", {"players": n, "golds": int(as_number(meta.get("gold", meta.get("golds", 100))))}
