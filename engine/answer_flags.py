"""Answers that measure the prompt, not the player (issue 40): a model whose every answer is one value, or the value
the prompt showed as its example (SmolLM2 answered v1's "42" every time: the guessing game's headline read
"58.00 [58.00 to 58.00]"). Computed from the turn log per agent, game, decision phase and prompt version, over the
agent's own answers (a fallback move is the engine's, not the agent's); the Transcripts and Robustness pages show
the flags. A shipped prompt shows placeholders only (tests/test_prompts_examples.py), so a copied example points at
a prompt of an older arena or a researcher's own."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import pandas as pd

from engine import store
from engine.agents.prompting import examples
from engine.numbers import number
from engine.selection import ALL, Selection

MIN_ANSWERS = 3  # fewer answers say nothing about an agent's answers being constant
CONSTANT, COPIED = "constant answers", "answers copy the prompt's example"
# what one flag is about: an agent's answers to one question (game and phase) under one condition (its prompt
# version, temperature and strategy: at temperature 0 a model sent the same prompt may well answer the same)
KEYS = ["agent", "game", "phase", "prompt_version", "temperature", "strategy"]
COLUMNS = [*KEYS, "answers", "distinct", "copied", "top_answer", "flag"]


@lru_cache(maxsize=1024)
def _shown(prompt: str | None) -> tuple[tuple[Any, ...], tuple[str, ...]]:
    """A stored prompt's examples: the values its JSON examples hold, and its text examples (lowercased)."""
    try:
        text = "\n".join(str(m.get("content", "")) for m in json.loads(prompt)) if prompt else ""
    except (ValueError, AttributeError):
        text = ""
    values, texts = [], []
    for example in examples(text):
        try:
            shown = json.loads(example)
        except ValueError:
            texts.append(example.strip().lower())  # a placeholder that is no JSON reads as no value
            continue
        values += [shown, *shown.values()] if isinstance(shown, dict) else [shown]
    return tuple(_key(v) for v in values), tuple(texts)


def _key(value: Any) -> str:
    """A value as answers are compared: its JSON, strings lowercased and stripped."""
    return json.dumps(value.strip().lower() if isinstance(value, str) else value, sort_keys=True, default=str)


def answer_rows(db: str | Path, selection: Selection = ALL, agents: tuple[str, ...] = (),
                game: str | None = None) -> pd.DataFrame:
    """One row per agent (label), game, phase, condition (KEYS), action and last line of the answer: the agent's own
    answers (a model's decisions that no fallback move replaced) and one prompt it was sent for them."""
    where, params = selection.where("m")
    if agents:
        where += " AND coalesce(s.label, s.agent) IN (SELECT unnest(?))"
        params.append(list(agents))
    if game:
        where += " AND m.game = ?"
        params.append(game)
    return store.query(db, f"""
        SELECT coalesce(s.label, s.agent) AS agent, m.game, t.phase, s.prompt_version, s.temperature, s.strategy,
               json_extract(t.action, '$.action')::VARCHAR AS action,
               lower(trim(regexp_extract(trim(t.response), '[^\\n]*$'), ' "''`*.')) AS last_line,
               count(*) AS answers, any_value(t.prompt)::VARCHAR AS prompt
        FROM turns t JOIN seats s ON s.match_id = t.match_id AND s.seat = t.seat
        JOIN matches m ON m.match_id = t.match_id
        WHERE {where} AND t.prompt IS NOT NULL AND NOT coalesce(t.fallback, false) AND s.agent NOT LIKE 'bot:%'
        GROUP BY ALL""", params)


def answer_flags(db: str | Path, selection: Selection = ALL, agents: tuple[str, ...] = (),
                 game: str | None = None) -> pd.DataFrame:
    """Per agent, game, phase and condition (KEYS, then COLUMNS): its own answers, how many distinct actions, how many
    copy an example of the prompt it was sent (the action equals a value of a JSON example, or the answer's last
    line is a text example), its most frequent action, and the flag: COPIED when at least half copy an example,
    else CONSTANT when MIN_ANSWERS or more are all one action, else blank."""
    rows = answer_rows(db, selection, agents, game)
    if rows.empty:
        return pd.DataFrame(columns=COLUMNS)
    copied = []
    for action, last_line, prompt in zip(rows["action"], rows["last_line"], rows["prompt"], strict=True):
        values, texts = _shown(prompt)
        copied.append(action is not None and _key(json.loads(action)) in values or last_line in texts)
    rows = rows.assign(copied=rows["answers"].where(copied, 0))
    keys = KEYS
    by_action = rows.groupby([*keys, "action"], dropna=False, as_index=False)["answers"].sum()
    top = by_action.sort_values("answers", ascending=False, kind="stable").drop_duplicates(keys)
    flags = rows.groupby(keys, dropna=False, as_index=False).agg(answers=("answers", "sum"), copied=("copied", "sum"))
    flags = flags.merge(by_action.groupby(keys, dropna=False).size().rename("distinct").reset_index(), on=keys)
    flags = flags.merge(top[[*keys, "action"]].rename(columns={"action": "top_answer"}), on=keys)
    flags["flag"] = [COPIED if c > 0 and 2 * c >= n else CONSTANT if d == 1 and n >= MIN_ANSWERS else ""
                     for n, c, d in zip(flags["answers"], flags["copied"], flags["distinct"], strict=True)]
    return flags[COLUMNS].sort_values(keys, ignore_index=True)


def flag_lines(flags: pd.DataFrame) -> list[str]:
    """Each flagged row in words: "local/smollm2, guessing_game (choose), prompt v1, temperature 1.00, vanilla:
    answers copy the prompt's example (9 of 9 answers: 42)"."""
    return [f"{row.agent}, {row.game} ({row.phase}), prompt {row.prompt_version}, temperature "
            f"{number(row.temperature)}, {row.strategy}: {row.flag} "
            f"({row.copied if row.flag == COPIED else row.answers} of {row.answers} answers: {row.top_answer})"
            for row in flags[flags["flag"] != ""].itertuples(index=False)]
