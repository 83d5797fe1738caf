"""Answers that measure the prompt, not the player (issue 40): a model whose every answer is one value, or the value
the prompt showed as its example (SmolLM2 answered v1's "42" every time: the guessing game's headline read
"58.00 [58.00 to 58.00]"). Computed from the turn log per agent, game, decision phase and prompt version, over the
agent's own answers (a fallback move is the engine's, not the agent's); the Transcripts and Robustness pages show
the flags. A shipped prompt shows placeholders only (tests/test_prompts_examples.py), so a copied example points at
a prompt of an older arena or a researcher's own."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import pandas as pd

from engine import store
from engine.agents.agent_names import model_sql
from engine.agents.prompting import examples
from engine.present.numbers import number
from engine.store.selection import ALL, Selection

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


def _own_answers(selection: Selection, agents: tuple[str, ...], game: str | None) -> tuple[str, list]:
    """The FROM and WHERE of the agents' own answers (a model's decisions that no fallback move replaced) in the
    selected matches (of `agents` and `game` when given), and their parameters."""
    where, params = selection.where("m")
    if agents:
        where += f" AND {model_sql('s')} IN (SELECT unnest(?))"
        params.append(list(agents))
    if game:
        where += " AND m.game = ?"
        params.append(game)
    return f"""FROM turns t JOIN seats s ON s.match_id = t.match_id AND s.seat = t.seat
        JOIN matches m ON m.match_id = t.match_id
        WHERE {where} AND t.prompt IS NOT NULL AND NOT coalesce(t.fallback, false) AND s.agent NOT LIKE 'bot:%'""", \
        params


_KEY_SQL = f"{model_sql('s')} AS agent, m.game, t.phase, s.prompt_version, s.temperature, s.strategy"


def answer_rows(db: str | Path, selection: Selection = ALL, agents: tuple[str, ...] = (),
                game: str | None = None) -> pd.DataFrame:
    """One row per agent (label), game, phase, condition (KEYS) and action: the agent's own answers with it, and the
    row id of one of their turns (`sample`). Grouped by action alone, reading neither the prompts nor the answers'
    texts: those are the bulk of the turn log, too slow to read for a page."""
    own, params = _own_answers(selection, agents, game)
    return store.query(db, f"""
        SELECT {_KEY_SQL}, json_extract(t.action, '$.action')::VARCHAR AS action, count(*) AS answers,
               min(t.rowid) AS sample
        {own} GROUP BY ALL""", params)


def _texts_copied(db: str | Path, key: tuple, texts: tuple[str, ...], selection: Selection) -> int:
    """How many of the key's own answers (KEYS' values) end with one of the text examples its prompt showed."""
    own, params = _own_answers(selection, (key[0],), key[1])
    pattern = "(" + "|".join(re.escape(text) for text in texts) + ")[\\s\"'`*.]*$"
    return int(store.rows(db, f"""
        SELECT count(*) {own} AND t.phase IS NOT DISTINCT FROM ? AND s.prompt_version IS NOT DISTINCT FROM ?
        AND s.temperature IS NOT DISTINCT FROM ? AND s.strategy IS NOT DISTINCT FROM ?
        AND regexp_matches(t.response, ?, 'i')""", [*params, *key[2:], pattern])[0][0])


def answer_flags(db: str | Path, selection: Selection = ALL, agents: tuple[str, ...] = (),
                 game: str | None = None) -> pd.DataFrame:
    """Per agent, game, phase and condition (KEYS, then COLUMNS): its own answers, how many distinct actions, how many
    copy an example of the prompt it was sent (one prompt of the key read: the action equals a value of one of its
    JSON examples, or the answer ends with one of its text examples), its most frequent action, and the flag: COPIED
    when at least half copy an example, else CONSTANT when MIN_ANSWERS or more are all one action, else blank."""
    rows = answer_rows(db, selection, agents, game)
    if rows.empty:
        return pd.DataFrame(columns=COLUMNS)
    samples = rows.groupby(KEYS, dropna=False)["sample"].transform("min")
    prompts = dict(store.rows(db, "SELECT rowid, prompt::VARCHAR FROM turns WHERE rowid IN (SELECT unnest(?))",
                              [sorted(set(samples.tolist()))]))
    shown = [_shown(prompts.get(sample)) for sample in samples]
    rows["copied"] = [answers if action is not None and _key(json.loads(action)) in values else 0
                      for action, answers, (values, _) in zip(rows["action"], rows["answers"], shown, strict=True)]
    by_action = rows.sort_values("answers", ascending=False, kind="stable")
    flags = rows.groupby(KEYS, dropna=False, as_index=False, sort=False).agg(
        answers=("answers", "sum"), copied=("copied", "sum"), distinct=("action", "size"))
    flags = flags.merge(by_action.drop_duplicates(KEYS)[[*KEYS, "action"]].rename(columns={"action": "top_answer"}),
                        on=KEYS)
    texts = {tuple(key): examples for key, (_, examples) in zip(rows[KEYS].itertuples(index=False), shown,
                                                                strict=True) if examples}
    for i, key in enumerate(flags[KEYS].itertuples(index=False)):
        if tuple(key) in texts:  # a text example ("X: (1,3)"): the answers' own words are read, for this key only
            flags.loc[i, "copied"] = max(flags.loc[i, "copied"], _texts_copied(db, tuple(key), texts[tuple(key)],
                                                                               selection))
    flags["flag"] = [COPIED if c > 0 and 2 * c >= n else CONSTANT if d == 1 and n >= MIN_ANSWERS else ""
                     for n, c, d in zip(flags["answers"], flags["copied"], flags["distinct"], strict=True)]
    return flags[COLUMNS].sort_values(KEYS, ignore_index=True)


def flag_lines(flags: pd.DataFrame) -> list[str]:
    """Each flagged row in words: "local/smollm2, guessing_game (choose), prompt v1, temperature 1.00, vanilla:
    answers copy the prompt's example (9 of 9 answers: 42)"."""
    return [f"{row.agent}, {row.game} ({row.phase}), prompt {row.prompt_version}, temperature "
            f"{number(row.temperature)}, {row.strategy}: {row.flag} "
            f"({row.copied if row.flag == COPIED else row.answers} of {row.answers} answers: {row.top_answer})"
            for row in flags[flags["flag"] != ""].itertuples(index=False)]
