"""``arena.Deadline``: when an anytime search must stop, for bot writers."""

from __future__ import annotations

import time


class Deadline:
    """Stop after ``cpu_seconds`` of this process's CPU time or ``wall_seconds`` on the clock,
    whichever comes first.

    CPU time is the budget: other processes on a busy machine do not eat into it, so a search
    that stops at an iteration budget well within it plays the same moves on any machine. The
    clock is the safety cap that keeps the answer inside the move time (``info.move_time``)::

        deadline = arena.Deadline(0.2, 0.5 * self.move_time)
        for _ in range(self.iterations):
            ...  # one more sample
            if deadline.passed():
                break
    """

    __slots__ = ("cpu", "wall")

    def __init__(self, cpu_seconds: float, wall_seconds: float) -> None:
        self.cpu = time.process_time() + cpu_seconds
        self.wall = time.perf_counter() + wall_seconds

    def passed(self) -> bool:
        return time.process_time() >= self.cpu or time.perf_counter() >= self.wall
