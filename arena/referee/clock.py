"""The one timed call into bot code: every mode times and classifies a bot's answer here.

``timed_call`` runs any bot method (the factory, ``start``, ``end``); ``timed_act`` asks for a
decision and finds the answer among the legal actions while the deadline is still armed (a hostile
``__eq__`` could loop forever). Both return ``(kind, value, seconds)``: ``kind`` is None and
``value`` the result on success, else ``kind`` is the fault's kind and ``value`` its message. An
answer that came but too late is a ``timeout`` too. The watchdog (``referee.watchdog``) turns a
passed deadline into ``MoveTimeout`` inside the bot's code.
"""

from __future__ import annotations

import time
from typing import Any

from arena.referee.faults import NO_ANSWER, classify, late
from arena.referee.interrupt import Interrupt
from arena.referee.watchdog import INF, Watchdog

_clock = time.perf_counter


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
