"""Interrupting a bot stuck in Python code, at no cost per decision.

Arming a POSIX timer for every decision costs two system calls (about 1 µs here), as much as the
engine spends on a move. Instead the referee writes a deadline into ``watchdog.deadline`` and a
sleeping thread checks it a few times per move time; when it has passed, the thread sends SIGALRM
to the main thread, whose handler raises ``MoveTimeout`` inside the bot's code. ``time.sleep`` and
busy loops in Python are interrupted; code blocked inside C without checking signals is not. The
signal is sent again on every tick while the deadline stays passed, so a bot that swallows the
first ``MoveTimeout`` gets another.

In a worker process the same thread also writes a *heartbeat* (a monotonic time) into memory the
parent can read, on every tick, unless a decision has overrun its deadline by more than ``grace``.
A bot that blocks signals, or holds the interpreter inside C, stops the heartbeat: the parent
then kills the worker and replays the game to find out which seat did it.
"""

from __future__ import annotations

import math
import os
import signal
import threading
import time

# The C functions under signal's wrappers, which turn their results into enums (getsignal: 3 µs
# through a ValueError for every handler that is not SIG_DFL or SIG_IGN); called once per game.
from _signal import getsignal as _getsignal
from _signal import pthread_sigmask as _pthread_sigmask

INF = math.inf
# Bound now: a bot may replace ``time.perf_counter`` (a clock that stands still is never late).
_clock = time.perf_counter


class MoveTimeout(BaseException):
    """Raised in the bot's code when its decision runs past the time limit.

    A ``BaseException`` so that a bot's ``except Exception`` cannot swallow it.
    """


class Watchdog:
    def __init__(self, tick: float = 0.02):
        self.deadline = INF
        self.tick = tick
        self.grace = 1.0
        self.heartbeat = None  # a shared array: [0] is written with time.monotonic()
        self.pid = os.getpid()
        self.enabled = threading.current_thread() is threading.main_thread()
        self._main = threading.main_thread().ident
        self._thread: threading.Thread | None = None
        # One bound method, so that ``reinstall`` can tell it by identity.
        self._handler = self._on_alarm
        if self.enabled:
            signal.signal(signal.SIGALRM, self._handler)
            self._thread = threading.Thread(target=self._watch, name="arena-watchdog", daemon=True)
            self._thread.start()

    def _on_alarm(self, signum, frame) -> None:
        if _clock() >= self.deadline:
            raise MoveTimeout()

    def _watch(self) -> None:
        clock = _clock
        while True:
            time.sleep(self.tick)
            now = clock()
            deadline = self.deadline
            if now >= deadline:
                try:
                    signal.pthread_kill(self._main, signal.SIGALRM)
                except (ProcessLookupError, OSError):
                    return
            heartbeat = self.heartbeat
            if heartbeat is not None and now < deadline + self.grace:
                heartbeat[0] = time.monotonic()

    def reinstall(self) -> None:
        """Put our SIGALRM handler back, in case a bot replaced it."""
        if self.enabled and _getsignal(signal.SIGALRM) is not self._handler:
            signal.signal(signal.SIGALRM, self._handler)

    def restore(self) -> None:
        """Our handler back and SIGALRM unblocked: after a bot that may have switched them off.

        Too costly for every decision (a few µs); done at every game's start, after every fault,
        and after every call when a game is replayed to find a culprit.
        """
        if self.enabled:
            self.reinstall()
            _pthread_sigmask(signal.SIG_UNBLOCK, _ALARM)


_watchdog: Watchdog | None = None
_ALARM = (signal.SIGALRM,)


def batch_allowance(move_time: float) -> float:
    """How far past the move time a game worker lets a bot process's decision run, by the
    worker's own clock, before it is a timeout: the worker sees a batch's decisions only between
    its other work, a few milliseconds apart (``execution.process.isolated_play``)."""
    return max(0.010, 0.10 * move_time)


def grace_for(move_time: float) -> float:
    """How long past its deadline a decision may run before its process counts as stuck."""
    return max(1.0, move_time)


def time_left() -> float:
    """Seconds before the call into bot code running in this process is past its limit (its
    move time and what is left of its seat's time bank); infinite when none is timed."""
    watchdog = _watchdog
    if watchdog is None or watchdog.pid != os.getpid():
        return INF
    return max(0.0, watchdog.deadline - _clock())


def get_watchdog(move_time: float) -> Watchdog:
    """The process's watchdog, ticking often enough for ``move_time``."""
    global _watchdog
    tick = max(0.002, min(0.05, move_time / 20))
    in_main = threading.current_thread() is threading.main_thread()
    # A forked worker inherits the object but not the thread.
    if _watchdog is None or _watchdog.pid != os.getpid() or (not _watchdog.enabled and in_main):
        _watchdog = Watchdog(tick)
    _watchdog.tick = min(_watchdog.tick, tick)
    _watchdog.grace = grace_for(move_time)
    _watchdog.restore()
    return _watchdog
