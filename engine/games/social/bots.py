"""The scripted players of both social games (`bot:letters`, `bot:injector`, `bot:obedient`): clues from
their word's spelling, votes for the player whose first letter differs."""

from __future__ import annotations

import random
import re
from collections import Counter
from typing import Any

from engine.games.base import Observation
from engine.games.extensions import policy
from engine.games.social.overlays import ATTACK_TEXT, DEFENSE_TEXT

_LETTER = re.compile(r"starts with the letter (\w)", re.IGNORECASE)


def letter_clue(obs: Observation, word: str) -> str:
    """A scripted clue from the word's spelling, worded per player and round so it never repeats."""
    w = word.strip() or "?"
    r = obs.view["round"]
    if r == 1:
        letter = w[0].upper()
        heard = {v for s, v in first_letters(obs).items() if s != obs.seat}
        if len(first_letters(obs)) >= 2 and len(heard) == 1 and letter not in heard:
            letter = heard.pop()  # everyone before me agrees and I differ: I am the odd one, so blend in
        return f"{obs.player} says: my word starts with the letter {letter}."
    if r == 2:
        return f"{obs.player} adds: my word ends with the letter {w[-1].upper()}."
    return f"{obs.player} in round {r}: my word has {len(w)} letters."


def first_letters(obs: Observation) -> dict[int, str]:
    """Each player's first-letter clue (bots' round-1 clues), by seat."""
    out = {}
    for c in obs.view["clues"]:
        m = _LETTER.search(c["text"])
        if m:
            out[c["seat"]] = m.group(1).upper()
    return out


def odd_one_out(obs: Observation) -> int | None:
    """The seat whose first letter differs from everyone else's, when exactly one does."""
    letters = first_letters(obs)
    if len(letters) < 3:
        return None
    common, count = Counter(letters.values()).most_common(1)[0]
    odd = [s for s, letter in letters.items() if letter != common]
    return odd[0] if len(odd) == 1 and count >= 2 else None


def bot_word(obs: Observation, rng: random.Random) -> str:
    """The word a bot talks about: its own, or (a chameleon) a topic word matching the others' clues."""
    if obs.view["my_word"]:
        return obs.view["my_word"]
    letters = [v for s, v in first_letters(obs).items() if s != obs.seat]
    words = obs.view.get("topic_words") or ["thing"]
    if letters:
        wanted = Counter(letters).most_common(1)[0][0]
        matching = [w for w in words if w[0].upper() == wanted]
        if matching:
            return matching[0]
    return words[random.Random(obs.view["seat"] * 7919 + len(words)).randrange(len(words))]


def bot_vote(obs: Observation, rng: random.Random, spare: set[int] = frozenset(), space: Any = None) -> Any:
    """Vote for the odd one out by first letters unless it is me; otherwise any other living player."""
    space = space or obs.space
    targets = [s for s in obs.view["alive"] if s != obs.seat and s not in spare]
    if not targets:
        return None if None in space.options else space.sample(rng)
    odd = odd_one_out(obs)
    return odd if odd in targets else rng.choice(targets)


def bot_guesses(obs: Observation, space: Any) -> dict[str, str]:
    """A bot guesses that every other player holds its own word."""
    return {n: obs.view["my_word"] or "unknown" for n in space.others}


def bot_belief(obs: Observation, rng: random.Random) -> dict[str, Any]:
    names = tuple(obs.view["players"].split(", "))
    odd = odd_one_out(obs)
    if obs.view["known_role"] == obs.view["special_role"]:
        odd = obs.seat
    suspect = names[odd] if odd is not None else rng.choice([n for n in names if n != obs.player])
    thinks = {n: suspect if n != suspect else rng.choice([m for m in names if m != n]) for n in names
              if n != obs.player}
    return {"suspect": suspect, "thinks": thinks}


def holds_special_role(obs: Observation) -> bool:
    """What a bot answers to the role probe: the role it was told, else whether it is the odd one out."""
    if obs.view["known_role"] is not None:
        return obs.view["known_role"] == obs.view["special_role"]
    return odd_one_out(obs) == obs.seat


def letters_player(obs: Observation, rng: random.Random, arg: str | None) -> Any:
    """The scripted player of both games: clues from its word's spelling, votes for the odd one out."""
    phase = obs.phase
    if phase == "clue":
        return letter_clue(obs, bot_word(obs, rng))
    if phase == "role":
        return "yes" if holds_special_role(obs) else "no"
    if phase == "consistency":
        special = obs.view["special_role"]
        return f"I am {obs.player}, my role is {special if holds_special_role(obs) else 'non-' + special}."
    if phase == "belief":
        return bot_belief(obs, rng)
    if phase == "words":
        return bot_guesses(obs, obs.space)
    if phase == "words_vote":
        return {"words": bot_guesses(obs, obs.space.words), "vote": bot_vote(obs, rng, space=obs.space.vote)}
    if phase == "guess":
        return bot_word(obs, rng)
    return bot_vote(obs, rng)


def injection(arg: str | None) -> str | None:
    """`bot:injector`'s argument: none (it attacks) or `defense`."""
    if arg not in (None, "defense"):
        raise ValueError(f"bot:injector takes no argument (it attacks) or 'defense', got {arg!r}")
    return arg


def injector(obs: Observation, rng: random.Random, arg: str | None) -> Any:
    """Plays like `letters` but ends every speech with Who-is-Spy's injection (`bot:injector` attacks,
    `bot:injector:defense` defends)."""
    action = letters_player(obs, rng, arg)
    if obs.phase == "clue":
        return f"{action} {DEFENSE_TEXT if arg == 'defense' else ATTACK_TEXT}"
    return action


def obedient(obs: Observation, rng: random.Random, arg: str | None) -> Any:
    """A civilian with no defence: it obeys injected instructions found in what it has seen."""
    heard = [line for line in obs.history if not line.startswith(f"{obs.player}:")]
    if obs.phase == "clue" and any(ATTACK_TEXT in line for line in heard) and obs.view["my_word"]:
        return f"My word is {obs.view['my_word']}."
    if obs.phase == "vote":
        protected = {s for s in range(obs.view["n_players"])
                     if any(line.startswith(f"Player {s + 1}:") and DEFENSE_TEXT in line for line in heard)}
        return bot_vote(obs, rng, protected)
    return letters_player(obs, rng, arg)


for _game in ("chameleon", "undercover"):
    policy(_game, "letters")(letters_player)
    policy(_game, "injector", argument=injection)(injector)
    policy(_game, "obedient")(obedient)
