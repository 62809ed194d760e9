"""The one timed call into bot code: every mode times and classifies a bot's answer here.

``timed_call`` runs any bot method (the factory, ``start``, ``end``); ``timed_act`` asks for a
decision and finds the answer among the legal actions while the deadline is still armed (a hostile
``__eq__`` could loop forever). Both return ``(kind, value, seconds)``: ``kind`` is None and
``value`` the result on success, else ``kind`` is the fault's kind and ``value`` its message. An
answer that came but too late is a ``timeout`` too. The watchdog (``referee.watchdog``) turns a
passed deadline into ``MoveTimeout`` inside the bot's code.

``TimeBanks`` are the seats' time banks of one game (``--time-bank``): each decision's limit is
the move time plus what is left of its seat's bank, and what a decision takes past the move time is
drawn from it, by the referee's clock.
"""

from __future__ import annotations

import time
from typing import Any

from arena.referee.faults import NO_ANSWER, classify, late
from arena.referee.interrupt import Interrupt
from arena.referee.watchdog import INF, Watchdog

_clock = time.perf_counter


class TimeBanks:
    """Each seat's time bank for one game: seconds its decisions may, in all, run past the move
    time. A decision's limit is ``limit(seat)``; what it took is ``charge``d afterwards (the
    referee's measure of it, never the bot's), so that a decision past its limit, a ``timeout``,
    empties the bank. ``left(seat)`` is what a seat has before its next decision (what a request
    to a program bot carries, ``"time": {"move": ..., "bank": ...}``)."""

    __slots__ = ("move_time", "seconds", "remaining", "used")

    def __init__(self, players: int, move_time: float, seconds: float):
        self.move_time = move_time
        self.seconds = seconds
        self.remaining = [float(seconds)] * players
        self.used = [0.0] * players

    def left(self, seat: int) -> float:
        """Seconds left in the seat's bank."""
        return self.remaining[seat]

    def limit(self, seat: int, move_time: float | None = None) -> float:
        """The time limit of the seat's next decision: the move time (``move_time``, if the seat
        has its own) plus its bank."""
        return (self.move_time if move_time is None else move_time) + self.remaining[seat]

    def charge(self, seat: int, elapsed: float) -> None:
        """Draw what a decision of ``elapsed`` seconds took past the move time (all of the bank,
        at most)."""
        over = elapsed - self.move_time
        if over > 0.0:
            drawn = min(over, self.remaining[seat])
            self.remaining[seat] -= drawn
            self.used[seat] += drawn

    def to_json(self) -> dict:
        """What the game record keeps: the bank and each seat's use of it, in seconds."""
        return {"seconds": self.seconds, "used": [round(u, 4) for u in self.used]}


def time_banks(players: int, move_time: float, seconds: float | None) -> TimeBanks | None:
    """The seats' banks of a game played with ``--time-bank seconds`` (None: no bank)."""
    return None if seconds is None else TimeBanks(players, move_time, seconds)


def timed_call(
    watchdog: Watchdog,
    limit: float,
    function,
    *args: Any,
    interrupt: Interrupt | None = None,
) -> tuple[str | None, Any, float]:
    """``function(*args)`` under the time limit."""
    start = _clock()
    watchdog.deadline = start + limit
    try:
        value = function(*args)
        watchdog.deadline = INF
    except BaseException as exc:  # SystemExit and KeyboardInterrupt from a bot are faults
        return _fault(exc, NO_ANSWER, watchdog, limit, start, interrupt)
    seconds = _clock() - start
    if seconds > limit:
        return "timeout", late(seconds, limit), seconds
    return None, value, seconds


def timed_act(
    watchdog: Watchdog,
    limit: float,
    act,
    observation,
    legal: list,
    interrupt: Interrupt | None = None,
) -> tuple[str | None, Any, float]:
    """``act(observation)`` under the time limit -> (None, index of the answer in ``legal``,
    seconds), or (fault kind, message, seconds)."""
    answer = NO_ANSWER
    start = _clock()
    watchdog.deadline = start + limit
    try:
        answer = act(observation)
        try:
            index = legal.index(answer)
        except ValueError:
            index = _canonical_index(observation, answer, legal)
        watchdog.deadline = INF
    except BaseException as exc:
        return _fault(exc, answer, watchdog, limit, start, interrupt)
    seconds = _clock() - start
    if seconds > limit:
        return "timeout", late(seconds, limit), seconds
    return None, index, seconds


def _canonical_index(observation, answer, legal: list) -> int:
    """The index of an answer the game accepts written another way (a set of cards in any
    order: ``Observation.canonical_action``), else the ``ValueError`` of an illegal answer.
    Looked up on the class: the bot may have changed its observation object."""
    canonical = getattr(type(observation), "canonical_action", None)
    alternative = canonical(answer) if canonical is not None else None
    if alternative is None:
        raise ValueError("not a legal action")
    return legal.index(alternative)


def _fault(exc, answer, watchdog: Watchdog, limit, start, interrupt) -> tuple[str, str, float]:
    # Classified before the deadline is disarmed: describing runs the bot's own code.
    kind, message = classify(exc, answer, limit)
    watchdog.deadline = INF
    if interrupt is not None:
        interrupt.pass_on(exc)
    return kind, message, _clock() - start
