"""An agent's name, as every table, CSV and link gives it: a pure function of one seat, fixed when its match is
written (`seats.agent_name`, engine/store/writer.py), so a name never changes when later runs are added.

The agent is its agent string and every setting that changes its play: for a model its temperature, prompt
version and answer cap (max_tokens), each named where it is not its game's protocol default (`Game.protocol_settings`:
the temperature and cap the paper's code plays the game with, the arena's own `DEFAULT_*` elsewhere; prompt v1):
"local/smollm2 (t=0.0, max_tokens=24)". So a model at MAgIC's caps (40 tokens in the Public Good, 128 in the
Prisoner's Dilemma) is one name across MAgIC's games, and a deliberate change (γ-Bench at t=0.0) shows. A bot
(`bot:...`) plays by its agent string alone. A
label (the spec's `label`: a display name for one agent string, engine/play/spec.py) comes first, before the agent it
stands for, so two different agents never share a name, whatever labels their runs gave them ("challenger-bot ·
bot:random"); a spec's alias for a seat is no label. A model's strategy (`cot`, `pgm`, a persona) is a column of its
own (`seats.strategy`) wherever a table compares strategies (MAgIC's profile, γ-Bench's and Who is Spy's tables), so
one model played two ways is one name with two strategies there.
"""

from __future__ import annotations

from functools import lru_cache

from engine.games.base import ARENA_SETTINGS, AnswerSettings

# a model seat's settings when neither its spec nor its game's protocol names them (engine/agents/base.py `AgentSpec`
# reads them from here)
DEFAULT_TEMPERATURE = ARENA_SETTINGS.temperature
DEFAULT_PROMPT_VERSION = "v1"
DEFAULT_MAX_TOKENS = ARENA_SETTINGS.max_tokens
LABEL_MARK = " · "  # between a label and the agent it names


@lru_cache(maxsize=65_536)
def agent_name(agent: str, label: str | None = None, temperature: float | None = None,
               prompt_version: str | None = None, max_tokens: int | None = None,
               protocol: AnswerSettings = ARENA_SETTINGS) -> str:
    """The name of the agent that held a seat (its columns as `seats` stores them; the label may be the agent
    string itself, as the writer stores an unlabelled seat) in a match whose protocol plays with `protocol`."""
    who = agent if agent.startswith("bot:") else agent + _settings(temperature, prompt_version, max_tokens, protocol)
    return who if label in (None, "", agent) else f"{label}{LABEL_MARK}{who}"


def _settings(temperature: float | None, prompt_version: str | None, max_tokens: int | None,
              protocol: AnswerSettings) -> str:
    """A model's settings as its name shows them: " (t=0.7, prompt v2, max_tokens=64)" (those it has that are not
    the protocol's and prompt v1; a setting a record does not hold, NULL, is not shown)."""
    shown = [f"t={float(temperature)!r}" if temperature not in (None, protocol.temperature) else None,
             f"prompt {prompt_version}" if prompt_version not in (None, DEFAULT_PROMPT_VERSION) else None,
             f"max_tokens={int(max_tokens)}" if max_tokens not in (None, protocol.max_tokens) else None]
    shown = [text for text in shown if text is not None]
    return f" ({', '.join(shown)})" if shown else ""


def match_protocol(game: str, params: dict) -> AnswerSettings:
    """The answer settings of the protocol a match of `game` with `params` plays (`Game.protocol_settings`); the
    arena's for a game this code does not know."""
    from engine.games import all_games

    cls = all_games().get(game)
    return cls.protocol_settings(params) if cls is not None else ARENA_SETTINGS


def model_sql(alias: str = "s") -> str:
    """The model a seat of `alias` (none: the columns unqualified) played, without its settings: its label beside
    its agent string, `agent_name` at the defaults. What Robustness compares the settings of, in SQL; the summaries'
    `label` column holds it."""
    of = f"{alias}." if alias else ""
    return (f"(CASE WHEN coalesce({of}label, '') IN ('', {of}agent) THEN {of}agent "
            f"ELSE {of}label || '{LABEL_MARK}' || {of}agent END)")


SEAT_COLUMNS = ("agent", "label", "temperature", "prompt_version", "max_tokens")  # what a name reads


def seat_names(rows: list[dict], protocols: list[AnswerSettings] | None = None) -> list[str]:
    """`agent_name` of each seat row (a mapping holding `SEAT_COLUMNS`) under its match's protocol (`protocols`, one
    per row; none: the arena's defaults, the rule of the names stored before the games declared theirs)."""
    protocols = protocols or [ARENA_SETTINGS] * len(rows)
    return [agent_name(*(row[column] for column in SEAT_COLUMNS), protocol=protocol)
            for row, protocol in zip(rows, protocols, strict=True)]
