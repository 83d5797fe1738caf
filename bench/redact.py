"""Is redaction cheap enough to run on every answer? Times `engine.secrets.redact` on 10 kB answers with three
keys in the environment: ordinary prose (words, numbers, JSON moves, a game board), the same prose dense in
escapes and encoded runs (JSON \\u escapes, HTML entities, percent-encoding, base64, hex), and the prose with a
key echoed in it. Prints the time per 10 kB answer (the fastest of five rounds) and the rate; keep it within 2x
of the figure before a change.

    .venv/bin/python bench/redact.py [--calls 50]
"""

from __future__ import annotations

import argparse
import base64
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from engine.secrets import redact  # noqa: E402

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


def escaped(rng: random.Random) -> str:
    """Prose dense in escapes and encoded runs, none of them a key."""
    parts = []
    while sum(map(len, parts)) < SIZE:
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 10)))
        parts.append(rng.choice((
            "".join(f"\\u{ord(c):04x}" for c in words[:12]),
            "".join(f"&#{ord(c)};" for c in words[:12]) + " &amp; &lt;b&gt;",
            "".join(f"%{b:02X}" for b in words[:12].encode()),
            base64.b64encode(words.encode()).decode(),
            words.encode().hex(),
            words,
        )))
    return " ".join(parts)[:SIZE]


def per_answer_ms(texts: list[str], rounds: int = 5) -> float:
    """The fastest of a few rounds over the answers (the machine is shared: a slower round was interrupted)."""
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
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
    kinds = {"ordinary prose": plain, "escapes and encoded runs": [escaped(rng) for _ in range(calls)],
             "prose with a key echoed": [t[:5000] + KEYS["OPENAI_API_KEY"] + t[5000:] for t in plain]}
    for kind, texts in kinds.items():
        ms = per_answer_ms(texts)
        print(f"{kind:26s} {ms:7.2f} ms per 10 kB answer, {SIZE / 1000 / ms * 1000:8.0f} kB/s")


if __name__ == "__main__":
    main()
