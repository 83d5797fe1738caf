"""An agent's name, as every table, CSV and link gives it: a pure function of one seat, fixed when its match is
written (`seats.agent_name`, engine/store/writer.py), so a name never changes when later runs are added.

The agent is its agent string and every setting that changes its play: for a model its temperature, prompt
version and answer cap (max_tokens), each named where it is not the arena's default (the `DEFAULT_*` constants,
which never change: "local/smollm2 (t=0.0, max_tokens=24)"); a bot (`bot:...`) plays by its agent string alone. A
label (the spec's `label`: a display name for one agent string, engine/play/spec.py) comes first, before the agent it
stands for, so two different agents never share a name, whatever labels their runs gave them ("challenger-bot ·
bot:random"); a spec's alias for a seat is no label. A model's strategy (`cot`, `pgm`, a persona) is a column of its
own (`seats.strategy`) wherever a table compares strategies (MAgIC's profile, γ-Bench's and Who is Spy's tables), so
one model played two ways is one name with two strategies there.
"""

from __future__ import annotations

from functools import lru_cache

# a model seat's settings when its spec names none (engine/agents/base.py `AgentSpec` reads them from here)
DEFAULT_TEMPERATURE = 1.0
DEFAULT_PROMPT_VERSION = "v1"
DEFAULT_MAX_TOKENS = 256
LABEL_MARK = " · "  # between a label and the agent it names


@lru_cache(maxsize=65_536)
def agent_name(agent: str, label: str | None = None, temperature: float | None = None,
               prompt_version: str | None = None, max_tokens: int | None = None) -> str:
    """The name of the agent that held a seat (its columns as `seats` stores them; the label may be the agent
    string itself, as the writer stores an unlabelled seat)."""
    who = agent if agent.startswith("bot:") else agent + _settings(temperature, prompt_version, max_tokens)
    return who if label in (None, "", agent) else f"{label}{LABEL_MARK}{who}"


def _settings(temperature: float | None, prompt_version: str | None, max_tokens: int | None) -> str:
    """A model's settings as its name shows them: " (t=0.7, prompt v2, max_tokens=64)" (those it has that are not
    the defaults; a setting a record does not hold, NULL, is not shown)."""
    shown = [f"t={float(temperature)!r}" if temperature not in (None, DEFAULT_TEMPERATURE) else None,
             f"prompt {prompt_version}" if prompt_version not in (None, DEFAULT_PROMPT_VERSION) else None,
             f"max_tokens={int(max_tokens)}" if max_tokens not in (None, DEFAULT_MAX_TOKENS) else None]
    shown = [text for text in shown if text is not None]
    return f" ({', '.join(shown)})" if shown else ""


def model_sql(alias: str = "s") -> str:
    """The model a seat of `alias` (none: the columns unqualified) played, without its settings: its label beside
    its agent string, `agent_name` at the defaults. What Robustness compares the settings of, in SQL; the summaries'
    `label` column holds it."""
    of = f"{alias}." if alias else ""
    return (f"(CASE WHEN coalesce({of}label, '') IN ('', {of}agent) THEN {of}agent "
            f"ELSE {of}label || '{LABEL_MARK}' || {of}agent END)")


SEAT_COLUMNS = ("agent", "label", "temperature", "prompt_version", "max_tokens")  # what a name reads


def seat_names(rows: list[dict]) -> list[str]:
    """`agent_name` of each seat row (a mapping holding `SEAT_COLUMNS`)."""
    return [agent_name(*(row[column] for column in SEAT_COLUMNS)) for row in rows]
