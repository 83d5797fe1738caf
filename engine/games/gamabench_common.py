"""What the eight γ-Bench games (GAMA-Bench, docs/PAPERS.md) share, in one place.

- `Move`: one decision as the turn log keeps it (round, seat, phase, action) plus the public
  record of the step it closed (`context`). A γ-Bench score is a function of moves only, so a
  live match (the game's own moves), a match read back from the turns table and an imported
  GAMA-Bench record are scored by the same classmethod `score(params, moves, seat)`.
- `GamaGame`: the plumbing every game needs on top of that: the step records that become the
  public state (`{"round": .., "last": record}`, the per-round figures a dashboard plots), the
  0-100 score as the metric `gamabench_score` (seat NULL for the match, one per seat too), the
  seat's score column, and the win/rank from the in-game payoff.
- `SimultaneousGame`: N players act at once for a fixed number of rounds; each round closes with
  a record built by the pure classmethod `record(params, round, actions, context)` (the importer
  builds records with it too) and announced by `announce_round`.
- Re-asks, as the authors' code asks (games/guessing_game.py and the other games' `start`: `while True`, the
  same request again until `json.loads` and the field parse; no random move ever): the same question up to
  `MAX_TRIES` times, then the match ends as an error (the authors' loop would never end) instead of
  scoring a move the model did not make (`retry: authors`, the default; `retry: feedback` is the arena's
  own 3 tries, told the error, then a random move).
- Reading an answer, as the authors' code reads it (`reading: authors`, the default of the simultaneous games):
  `json.loads` of the whole answer (Public Goods and the Auction: of its span from the first `{` to the last
  `}`), the game's key spelled exactly, then `int(...)` whatever the range: a bid above the valuation, a
  negative contribution or a guess of 150 is played and scored as given, as in the authors' records. Anything
  else is asked again. `reading: lenient` is the arena's own (a JSON object anywhere or the bare value, within
  the game's bounds: engine.games.parsing).
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass
from typing import Any

from engine.games.base import (
    ERROR,
    FEEDBACK,
    ActionSpace,
    AnswerSettings,
    Game,
    Observation,
    Param,
    RetryPolicy,
    SeatResult,
    rank_by,
    reading_param,
    retry_param,
)
from engine.games.parsing import loaded_json_field, python_int

SCORE_METRIC = "gamabench_score"
MAX_TRIES = 10  # the authors ask until the answer parses; a model that never does ends its match as an error


@dataclass(frozen=True)
class Move:
    round: int
    seat: int
    phase: str
    action: Any
    context: dict[str, Any]


RETRY_POLICIES = {"authors": RetryPolicy("authors", tries=MAX_TRIES, feedback=False, exhausted=ERROR),
                  "feedback": FEEDBACK}  # the arena's own: 3 tries told the error, then a random move


def gamabench_retry_param() -> Param:
    """The `retry` parameter every γ-Bench game has: the authors' ask-until-parsed, or the arena's `feedback`."""
    return retry_param(RETRY_POLICIES)


def gamabench_reading_param() -> Param:
    """The `reading` parameter every γ-Bench game has: its authors' reading of an answer, or the arena's lenient one."""
    return reading_param("'authors' = as γ-Bench's code (json.loads of the answer, int() of the key whatever the "
                         "range); 'lenient' = the arena's (a JSON object anywhere or the bare value, within bounds)")


def players_param(default: int = 10) -> Param:
    return Param(default, "number of players", lo=2, hi=100)


def rounds_param(default: int = 20) -> Param:
    return Param(default, "rounds played", lo=1, hi=200)


class GamaGame(Game):
    """A γ-Bench game: moves in, a 0-100 score out; records of each step in the public state."""

    paper = "GAMA-Bench"
    # temperature 1 (the paper's §3), answers capped at 1,024 tokens (CUHK-ARISE/GAMABench
    # llm_settings/openai_models.py `chat`)
    answer_settings = AnswerSettings(temperature=1.0, max_tokens=1024)
    retry_policies = RETRY_POLICIES
    rules_version = 2  # asked until the answer parses (capped), never a random move
    score_meaning = ("γ-Bench score 0-100 (GAMA-Bench's formula): how close the seat's moves came to the game's "
                     "best play; the winner is decided by payoff, so a 100 need not be a win")

    @classmethod
    def n_seats(cls, params: dict[str, Any]) -> int:
        return params["players"]

    @classmethod
    @abstractmethod
    def score(cls, params: dict[str, Any], moves: list[Move], seat: int | None = None) -> float | None:
        """γ-Bench's 0-100 score of the match (seat None) or of one seat's moves; None if it has none.

        A seat's score is the game's formula over that seat's moves alone (El Farol: the seat's going
        rate against R), so in a mixed-model match each model gets its own figure."""

    def setup(self) -> None:
        self.n = self.n_seats(self.p)
        self.records: list[dict[str, Any]] = []
        self.moves: list[Move] = []
        self.payoff = [0.0] * self.n
        self.start()

    def start(self) -> None:
        """Game-specific setup after the shared one (deal, draw, announce the start)."""

    def close_step(self, record: dict[str, Any], actions: dict[int, Any], phase: str) -> None:
        """Keep the step's record and the moves that led to it; add the payoffs it holds."""
        self.records.append(record)
        self.moves.extend(Move(self.round, s, phase, a, record) for s, a in sorted(actions.items()))
        for s, gain in enumerate(record.get("payoffs") or []):
            self.payoff[s] += gain

    def public_state(self) -> dict[str, Any]:
        last = self.records[-1] if self.records else {}
        return {"round": last.get("round", 0), "last": last}

    def seat_scores(self) -> dict[int, float | None]:
        return {s: self.score(self.p, self.moves, s) for s in range(self.n)}

    def standing(self) -> dict[int, float]:
        """What decides the winner: the total payoff unless a game says otherwise."""
        return dict(enumerate(self.payoff))

    def result(self) -> dict[int, SeatResult]:
        ranks = rank_by(self.standing())
        scores = self.seat_scores()
        return {s: SeatResult(scores[s], ranks[s] == 1, ranks[s]) for s in range(self.n)}

    def metrics(self) -> list[tuple[int | None, str, float]]:
        rows: list[tuple[int | None, str, float]] = []
        match_score = self.score(self.p, self.moves)
        if match_score is not None:
            rows.append((None, SCORE_METRIC, match_score))
        for s, value in self.seat_scores().items():
            if value is not None:
                rows.append((s, SCORE_METRIC, value))
            rows.append((s, "payoff", self.payoff[s]))
        return rows

    def outcome(self) -> dict[str, Any]:
        return {"score": self.score(self.p, self.moves), "payoff": self.payoff, "steps": len(self.records)}


class SimultaneousGame(GamaGame):
    """Every player acts at once, `rounds` times; the round's record says what happened. A subclass's
    `params` are `SimultaneousGame.params | {its own}`."""

    phase = "choose"
    params = {"players": players_param(), "rounds": rounds_param(), "retry": gamabench_retry_param(),
              "reading": gamabench_reading_param()}
    rules_version = 3  # 3: answers read as the authors' code reads them (`reading: authors`)
    braces = False  # the authors' code loads the span from the first { to the last } (Goods, Auction)

    @classmethod
    @abstractmethod
    def record(cls, params: dict[str, Any], round_: int, actions: list[Any], context: dict[str, Any]) -> dict[str, Any]:
        """The public record of a round: the actions, the figures, `payoffs` per seat. Pure."""

    @abstractmethod
    def space(self, seat: int) -> ActionSpace: ...

    @abstractmethod
    def view(self, seat: int) -> dict[str, Any]:
        """What this seat may know now, beyond the parameters (filled into prompts, read by bots)."""

    @abstractmethod
    def announce_round(self, record: dict[str, Any]) -> None: ...

    def parse(self, seat: int, text: str) -> Any:
        """The seat's action: under `reading: authors` the authors' key of the JSON object the answer is
        (`authors_value` converts it), else the arena's lenient reading of the seat's space."""
        space = self.space(seat)
        if self.p["reading"] == "lenient":
            return space.parse(text)
        return self.authors_value(loaded_json_field(text, space.key, braces=self.braces))

    def authors_value(self, value: Any) -> Any:
        """What the authors' code makes of the key's value: `int(value)`, unchecked (a game may say otherwise)."""
        return python_int(value)

    def round_context(self) -> dict[str, Any]:
        """Facts drawn for this round before anyone acts (a valuation...); public once the round closes."""
        return {}

    def start(self) -> None:
        self.round = 1

    def to_act(self) -> list[int]:
        return [] if self.done() else list(range(self.n))

    def observe(self, seat: int) -> Observation:
        base = {"n": self.n, "n_others": self.n - 1, "my_payoff": round(self.payoff[seat], 4),
                "my_actions": [m.action for m in self.moves if m.seat == seat]}
        return self.make_observation(seat, self.phase, base | self.view(seat), self.space(seat))

    def step(self, actions: dict[int, Any]) -> None:
        ordered = [actions[s] for s in range(self.n)]
        record = self.record(self.p, self.round, ordered, self.round_context())
        self.close_step(record, actions, self.phase)
        self.announce_round(record)
        self.round += 1

    def done(self) -> bool:
        return len(self.records) >= self.p["rounds"]

    @staticmethod
    def by_round(moves: list[Move], seat: int | None = None) -> dict[int, list[Move]]:
        rounds: dict[int, list[Move]] = {}
        for m in moves:
            if seat is None or m.seat == seat:
                rounds.setdefault(m.round, []).append(m)
        return dict(sorted(rounds.items()))
