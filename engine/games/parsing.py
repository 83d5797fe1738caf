"""Reading actions out of free model text, shared by every game.

The convention every prompt states: the answer comes last, optionally as a JSON
object. So a JSON object with the expected key wins; otherwise the last
matching token in the text is the answer, except where a game asks for the JSON
object only (γ-Bench's numbers, as its authors' code reads them): there an answer
without it counts only if it is nothing but the number, never a number met in prose
("... Player 1 with the" is not a guess of 1). Each failure raises one ParseError
whose message says what was wrong, so a re-ask can tell the model.
Work is linear in the text length: a huge answer is slow to read, never a hang.
"""

from __future__ import annotations

import json
import re
from typing import Any

_FLAT_JSON = re.compile(r"\{[^{}]*\}")
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w])")


class ParseError(ValueError):
    """The text holds no usable action; the message says why, in words a model can act on."""


class IllegalAction(ParseError):
    """The text names a real action that the rules forbid now (a taken cell, a bid above the valuation): unusable
    like any unparseable answer, unless the game's retry policy makes it lose the game (`RetryPolicy.illegal`)."""

    def __init__(self, message: str, action: Any):
        super().__init__(message)
        self.action = action


def json_field(text: str, key: str) -> Any | None:
    """The value of `key` in the last flat JSON object of the text that has it, else None."""
    found = None
    for m in _FLAT_JSON.finditer(text):
        try:
            obj = json.loads(m.group(0))
        except ValueError:
            continue
        if isinstance(obj, dict):
            for k, v in obj.items():
                if isinstance(k, str) and k.strip().lower() == key.lower():
                    found = (v,)
    return found[0] if found else None


def require_text(text: str) -> str:
    """The answer itself, or a ParseError when there is none (not text, or only white space)."""
    if not isinstance(text, str) or not text.strip():
        raise ParseError("the answer was empty")
    return text


def _as_int(value: Any) -> int:
    if isinstance(value, bool):
        raise ParseError(f"{value!r} is not a number")
    if isinstance(value, int):
        return value
    try:
        number = float(str(value).strip())
    except ValueError:
        raise ParseError(f"{str(value)[:40]!r} is not a number") from None
    if number != number or number in (float("inf"), float("-inf")) or not number.is_integer():
        raise ParseError(f"{value!r} is not a whole number")
    return int(number)


_BARE = re.compile(r"""[\s"'`*]*(-?\d+(?:\.\d+)?)[\s"'`*.]*""")


def parse_int(text: str, lo: int, hi: int, key: str = "number", prose: bool = True) -> int:
    """An integer in [lo, hi]: the JSON field `key`, else the last number in the text (`prose`), or only an answer
    that is the number alone (not `prose`)."""
    require_text(text)
    value = json_field(text, key)
    if value is None and not prose:
        bare = _BARE.fullmatch(text)
        if bare is None:
            raise ParseError(f'no JSON object with "{key}" found; answer with {{"{key}": <an integer from {lo} to '
                             f"{hi}>}}")
        value = bare.group(1)
    if value is None:
        numbers = _NUMBER.findall(text)
        if not numbers:
            raise ParseError(f"no number found; answer with an integer from {lo} to {hi}")
        value = numbers[-1]
    number = _as_int(value)
    if not lo <= number <= hi:
        raise ParseError(f"{number} is outside the allowed range {lo} to {hi}")
    return number


def parse_choice(text: str, labels: tuple[str, ...], key: str = "action") -> int:
    """Index of the chosen label: the JSON field `key`, else the label mentioned last."""
    require_text(text)
    lowered = [label.lower() for label in labels]
    value = json_field(text, key)
    if value is not None:
        wanted = str(value).strip().lower()
        if wanted in lowered:
            return lowered.index(wanted)
        raise ParseError(f"{str(value)[:40]!r} is not one of: {', '.join(labels)}")
    best, best_end = -1, -1
    low_text = text.lower()
    for i, label in enumerate(lowered):
        pattern = r"(?<![\w])" + re.escape(label) + r"(?![\w])"
        for m in re.finditer(pattern, low_text):
            if m.end() > best_end:
                best, best_end = i, m.end()
    if best < 0:
        raise ParseError(f"no valid choice found; answer with one of: {', '.join(labels)}")
    return best


# ---------------------------------------------------------------- a paper's own reading (`reading: authors`)
def loaded_json_field(text: str, key: str, braces: bool = False) -> Any:
    """`key` of the JSON object the whole answer is, read as γ-Bench's code reads it (CUHK-ARISE/GAMABench
    `games/<game>.py`, `start`): `json.loads` of the answer, or with `braces` of its span from the first `{` to
    the last `}` (Public Goods, Sealed-Bid Auction), then the object's `key`, spelled exactly. A fenced block, prose
    around the object (without `braces`) or a missing key is unusable, as there."""
    require_text(text)
    body = text[text.find("{"):text.rfind("}") + 1] if braces else text.strip()
    try:
        obj = json.loads(body)
    except (ValueError, RecursionError):  # the authors' bare `except` takes a too deeply nested one too
        obj = None
    if not isinstance(obj, dict) or key not in obj:
        where = "from its first { to its last }" if braces else "as a whole"
        raise ParseError(f'no JSON object with "{key}": the answer {where} must be one; answer with '
                         f'{{"{key}": ...}} only')
    return obj[key]


AUTHORS_INT_LIMIT = 10**15  # beyond it a score's float arithmetic overflows; no answer of the authors' records nears it


def python_int(value: Any) -> int:
    """`int(value)` as the authors' code converts it, whatever the game's range: 12.9 -> 12, "12" -> 12, true -> 1;
    "12.5", null, a list are unusable, and so is a number beyond +-10**15, which no score could hold."""
    try:
        number = int(value)
    except (TypeError, ValueError, OverflowError):
        raise ParseError(f"{str(value)[:40]!r} is not an integer") from None
    if abs(number) > AUTHORS_INT_LIMIT:
        raise ParseError(f"{str(value)[:40]!r} is too large a number")
    return number
