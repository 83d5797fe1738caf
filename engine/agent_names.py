"""An agent's name, as every table, CSV and link gives it: a pure function of one seat, fixed when its match is
written (`seats.agent_name`, engine/store/writer.py), so a name never changes when later runs are added.

The agent is its agent string and every setting that changes its play: for a model its temperature, prompt
version and answer cap (max_tokens); a bot (`bot:...`) plays by its agent string alone. A model's strategy (`cot`,
`pgm`, a persona) is a column of its own (`seats.strategy`) wherever a table compares strategies (MAgIC's profile,
γ-Bench's and Who is Spy's tables), so one model played two ways is one name with two strategies there. A label
(the spec's `label`, or the alias a lineup names) is a display name: it comes first, before the agent it stands
for, so two different agents never share a name, whatever labels their runs gave them ("challenger-bot ·
bot:random", "gpt · openai/gpt-4o-mini (t=0.7, prompt v1, max_tokens=256)").
"""

from __future__ import annotations

from functools import lru_cache

LABEL_MARK = " · "  # between a label and the agent it names


@lru_cache(maxsize=65_536)
def agent_name(agent: str, label: str | None = None, temperature: float | None = None,
               prompt_version: str | None = None, max_tokens: int | None = None) -> str:
    """The name of the agent that held a seat (its columns as `seats` stores them; the label may be the agent
    string itself, as the writer stores an unlabelled seat)."""
    who = agent if agent.startswith("bot:") else agent + _settings(temperature, prompt_version, max_tokens)
    return who if label in (None, "", agent) else f"{label}{LABEL_MARK}{who}"


def model_name(agent: str, label: str | None = None) -> str:
    """The agent without its settings: what Robustness compares the settings of (its label, if any, beside its agent
    string, so one label given to two models never merges them). `agent_name` at no setting."""
    return agent_name(agent, label)


def model_sql(alias: str = "s") -> str:
    """`model_name` of the seats of `alias` (none: the columns unqualified), in SQL; the summaries' `label` column
    holds it."""
    of = f"{alias}." if alias else ""
    return (f"(CASE WHEN coalesce({of}label, '') IN ('', {of}agent) THEN {of}agent "
            f"ELSE {of}label || '{LABEL_MARK}' || {of}agent END)")


def _settings(temperature: float | None, prompt_version: str | None, max_tokens: int | None) -> str:
    """A model's settings as its name shows them: " (t=0.7, prompt v2, max_tokens=64)" (those it has)."""
    shown = [f"t={float(temperature)!r}" if temperature is not None else None,
             f"prompt {prompt_version}" if prompt_version is not None else None,
             f"max_tokens={int(max_tokens)}" if max_tokens is not None else None]
    shown = [text for text in shown if text is not None]
    return f" ({', '.join(shown)})" if shown else ""


SEAT_COLUMNS = ("agent", "label", "temperature", "prompt_version", "max_tokens")  # what a name reads


def seat_names(rows: list[dict]) -> list[str]:
    """`agent_name` of each seat row (a mapping holding `SEAT_COLUMNS`)."""
    return [agent_name(*(row[column] for column in SEAT_COLUMNS)) for row in rows]
