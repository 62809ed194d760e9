"""A match of two bots (``arena match A B``): duplicate boards, counted as pentanomial outcomes,
until a sequential probability ratio test decides (``--sprt``) or the games run out.

A and B share the table: with two bots and N seats, each board is one deal played twice, once
with A, B, A, B… in the seats and once with B, A, B, A… (``tournament.schedule``). Each game gives
A a result against B (1: A placed ahead, ½: level, 0: behind; a bot's place is the mean rank of
its seats), a board the mean of its two results (``ratings.sprt.board_outcome``). The test is
fed whole boards in schedule order and stops at the first board where it decides, so the result
is the same whatever ``--jobs`` is, and a resumed match replays its stored games into the test.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

from arena.ratings.sprt import OUTCOME_NAMES, SequentialTest, Sprt, board_outcome

GAMES_PER_BOARD = 2  # two bots: a group of two, two seat rotations


class Stopper(Protocol):
    decided: str | None
    run_id: int | None

    def replay(self, games: Iterable[tuple[int, int, dict[str, float]]]) -> None: ...

    def add(self, board: int, placings: dict[str, float]) -> bool: ...

    def result(self) -> dict: ...


def result_of(placings: dict[str, float], a: str, b: str) -> float:
    """A's result against B in one game: 1 ahead, ½ level, 0 behind."""
    if placings[a] < placings[b]:
        return 1.0
    return 0.5 if placings[a] == placings[b] else 0.0


@dataclass
class MatchStopper:
    """Counts the boards of a match; says stop once its test (if any) has decided."""

    a: str
    b: str
    sprt: Sprt | None
    test: SequentialTest = field(init=False)
    games: int = 0
    run_id: int | None = None
    _board: int | None = None
    _results: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.test = SequentialTest(self.sprt or Sprt())

    @classmethod
    def of(cls, tournament) -> MatchStopper:
        match = tournament.match
        sprt = Sprt(**match["sprt"]) if match.get("sprt") else None
        return cls(match["a"], match["b"], sprt)

    @property
    def decided(self) -> str | None:
        return self.test.decided if self.sprt is not None else None

    def replay(self, games: Iterable[tuple[int, int, dict[str, float]]]) -> None:
        for _, board, placings in games:
            if self.add(board, placings):
                return

    def add(self, board: int, placings: dict[str, float]) -> bool:
        """Count one game, in schedule order; True: the test has decided, stop after it."""
        if board != self._board:
            self._board, self._results = board, []
        self._results.append(result_of(placings, self.a, self.b))
        self.games += 1
        if len(self._results) < GAMES_PER_BOARD:
            return False
        self.test.add(board_outcome(self._results))
        self._results = []
        return self.decided is not None

    def status(self) -> str:
        """The progress line's part: the LLR against its bounds."""
        test = self.test
        if self.sprt is None:
            return f"{test.boards} boards, score {test.score():.3f}"
        return (
            f"LLR {test.llr:+.2f} ({self.sprt.lower:+.2f}, {self.sprt.upper:+.2f}) "
            f"{test.boards} boards"
        )

    def result(self) -> dict:
        test = self.test
        result = {
            "a": self.a,
            "b": self.b,
            "games": self.games,
            "boards": test.boards,
            "pentanomial": dict(zip(OUTCOME_NAMES, test.counts, strict=True)),
            "score": round(test.score(), 4),
            # (None: A won or lost every board, an Elo difference without bound)
            "elo": round(test.elo(), 1) + 0.0 if math.isfinite(test.elo()) else None,  # not -0.0
        }
        if self.sprt is not None:
            result["sprt"] = {
                "elo0": self.sprt.elo0,
                "elo1": self.sprt.elo1,
                "alpha": self.sprt.alpha,
                "beta": self.sprt.beta,
                "model": self.sprt.model,
                "llr": round(test.llr, 3),
                "lower": round(self.sprt.lower, 3),
                "upper": round(self.sprt.upper, 3),
                "decision": test.decided or "none (game cap reached)",
            }
        return result
