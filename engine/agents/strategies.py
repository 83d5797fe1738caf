"""Strategy overlays: how a prompt is changed around the game's own wording.

A strategy string is `name` or `name:arg` (`persona:mathematician`). Overlays are declared with
`engine.games.extensions.overlay(name)`: the generic ones here, a game family's own (the social games'
attack/defense) next to its rules; every game module is loaded before a strategy is looked up.
`vanilla` leaves the prompt alone; `cot` asks for reasoning before the answer (the parsers read the
answer last, so reasoning first is safe); `persona:<name>` puts a character in the system prompt (a
named one or free text).

A strategy may also ask a question before the decision (a `Probe`): `pgm`, MAgIC's PGM-aware
agent, first asks the two-hop belief (what I think of each other player; what I think each of
them thinks), then asks for the decision with that answer in the conversation. The agent stores
the probe's answer on the turn (`Decision.extra[probe.key]`). A game may register a probe worded
for its own rules with `engine.games.extensions.add_probe(strategy, probe, game=...)`.
"""

from __future__ import annotations

from engine.games import all_games
from engine.games.base import Observation
from engine.games.extensions import (
    NEEDS_ARG,
    OVERLAYS,
    PGM_DECIDE,
    PROBES,
    Messages,
    Probe,
    add_probe,
    append_to_last_user,
    overlay,
)

COT = "Think it through step by step first, then give your final answer on the last line in the format asked."

PERSONAS = {
    "cooperative": "You are a cooperative player. You care about the group doing well, you keep your word, "
                   "and you trust the other players until they give you a reason not to.",
    "selfish": "You are a selfish player. Only your own score matters to you, and you take every advantage "
               "the rules allow, whatever it costs the others.",
    "mathematician": "You are a mathematician. You work out the payoffs, the probabilities and what a rational "
                     "opponent would do before you commit to anything.",
}
FREE_PERSONA = "Play this game in character. Your character: {persona}."


def prepend_to_system(messages: Messages, text: str) -> Messages:
    out = [dict(m) for m in messages]
    if out and out[0]["role"] == "system":
        out[0]["content"] = text + "\n\n" + out[0]["content"]
        return out
    return [{"role": "system", "content": text}, *out]


@overlay("vanilla")
def _vanilla(messages: Messages, obs: Observation, arg: str | None) -> Messages:
    return messages


@overlay("cot")
def _cot(messages: Messages, obs: Observation, arg: str | None) -> Messages:
    return append_to_last_user(messages, COT)


@overlay("persona", needs_arg=True)
def _persona(messages: Messages, obs: Observation, arg: str | None) -> Messages:
    return prepend_to_system(messages, persona_text(arg or ""))


def persona_text(name: str) -> str:
    """A named persona's description, or the free text itself as the character."""
    return PERSONAS.get(name.strip().lower()) or FREE_PERSONA.format(persona=name.strip())


# ---------------------------------------------------------------- probes asked before the decision
def find_probe(strategy: str, game: str) -> tuple[Probe, str | None] | None:
    all_games()  # games word probes of their own
    name, arg = split(strategy)
    probe = PROBES.get((name, game)) or PROBES.get((name, None))
    return (probe, arg) if probe else None


PGM_BELIEF = (
    "Do not decide yet. First analyse the situation in two steps, briefly:\n"
    "1. From your own point of view: what do you believe about each other player - what they are after, "
    "what they know, what they will do next - and why?\n"
    "2. In their shoes: for each other player, what do you believe that player thinks about you and about "
    "the rest, and why?\n"
    "Use this form:\n"
    "As {player}, I think <another player> ..., because ...\n"
    "As for the others' thoughts: I think <another player> thinks that {player} ..., and that <a third player> "
    "..., because ..."
)


@overlay("pgm")
def _pgm(messages: Messages, obs: Observation, arg: str | None) -> Messages:
    return messages  # the belief question is the pgm probe below


add_probe("pgm", Probe(key="belief", question=lambda obs, arg: PGM_BELIEF.format(player=obs.player),
                       decide=PGM_DECIDE))


# ---------------------------------------------------------------- strategy strings
def split(strategy: str) -> tuple[str, str | None]:
    name, _, arg = strategy.partition(":")
    return name, arg or None


def _known() -> str:
    return ", ".join(sorted(n + ":<name>" if n in NEEDS_ARG else n for n in OVERLAYS))


def check(strategy: str) -> None:
    """Raise ValueError naming the known strategies if `strategy` is not one."""
    all_games()  # games may declare overlays of their own
    name, arg = split(strategy)
    if name not in OVERLAYS:
        raise ValueError(f"unknown strategy '{strategy}' (known: {_known()})")
    if name in NEEDS_ARG and not (arg and arg.strip()):
        hint = f" ({', '.join(PERSONAS)} or free text)" if name == "persona" else ""
        raise ValueError(f"strategy '{name}' needs a value: '{name}:<value>'{hint}")


def apply(strategy: str, messages: Messages, obs: Observation) -> Messages:
    all_games()
    name, arg = split(strategy)
    if name not in OVERLAYS:
        raise ValueError(f"unknown strategy '{strategy}' (known: {_known()})")
    return OVERLAYS[name](messages, obs, arg)
