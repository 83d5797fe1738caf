"""Is redaction cheap enough to run on every answer and every stored match? Times `engine.secrets.redact` on 10 kB
answers with three keys in the environment: ordinary prose (words, numbers, JSON moves, a game board) and the
prose with a key echoed in it; and `redact_together` on a match's texts, 20 answers of 10 kB read together with a
key leaked four characters per answer. Prints the time per 10 kB (the fastest of five rounds) and the rate; keep
it within 2x of the figure before a change.

    .venv/bin/python bench/redact.py [--calls 50]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from engine.secrets import redact, redact_together  # noqa: E402

SIZE = 10_000
KEYS = {"OPENAI_API_KEY": "sk-bench-abcdef1234567890XYZ", "ANTHROPIC_API_KEY": "sk-ant-api03-Qw9zLmN4pR7tUv2XyB",
        "GROQ_API_KEY": "gsk_Hh31kLmPq9RsTt0UvWx7Yz"}
WORDS = ("the a of to and in I will choose number because my opponent last round played cooperate defect "
         "bid raise fold call check 0 1 2 3 4 5 6 7 8 9 10 42 100 2/3 average guess strategy player win").split()


def prose(rng: random.Random) -> str:
    """An ordinary answer: sentences, a JSON move, a board."""
    parts = []
    while sum(map(len, parts)) < SIZE:
        parts.append(" ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 20))).capitalize() + ".")
        if rng.random() < 0.2:
            parts.append(f'{{"chosen_number": {rng.randint(0, 100)}, "reason": "round {rng.randint(1, 20)}"}}')
        if rng.random() < 0.1:
            parts.append("\n| X | O |   |\n|---|---|---|\n| O | X | X |\n")
    return " ".join(parts)[:SIZE]


def per_10kb_ms(texts: list[str], together: bool, rounds: int = 5) -> float:
    """The fastest of a few rounds over the texts, one by one or all together (the machine is shared: a slower
    round was interrupted)."""
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        if together:
            redact_together(texts)
        else:
            for text in texts:
                redact(text)
        best = min(best, time.perf_counter() - start)
    return best * 1000 / len(texts)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=50)
    calls = parser.parse_args().calls
    for name in [name for name in os.environ if any(w in name.upper() for w in ("KEY", "TOKEN", "SECRET",
                                                                                   "PASSWORD", "CREDENTIAL"))]:
        del os.environ[name]  # only this process's copy: the bench's keys are the only ones searched
    os.environ.update(KEYS)
    rng = random.Random(0)
    plain = [prose(rng) for _ in range(calls)]
    key = KEYS["OPENAI_API_KEY"]
    leaked = [t[:5000] + key[i % 7 * 4:][:4] + t[5000:] for i, t in enumerate(plain[:20])]
    kinds = {"ordinary prose": (plain, False), "prose with a key echoed": ([t[:5000] + key + t[5000:] for t in plain],
                                                                           False),
             "a match, a key in pieces": (leaked, True)}
    for kind, (texts, together) in kinds.items():
        ms = per_10kb_ms(texts, together)
        print(f"{kind:26s} {ms:7.2f} ms per 10 kB, {SIZE / 1000 / ms * 1000:8.0f} kB/s")


if __name__ == "__main__":
    main()
