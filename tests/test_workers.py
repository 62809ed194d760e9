"""arena.execution.workers.WorkerPool: outcomes in schedule order, whatever happens to the workers."""

from __future__ import annotations

import os
import time

from arena.execution.workers import WorkerPool
from arena.tournament.schedule import ScheduledGame


def _dies_at_game_8(item, forfeits, tracker):
    if item.index == 8 and tracker is None:  # in a game worker; the diagnosis plays it through
        os._exit(3)
    return ("outcome", item.index)


def test_a_worker_dying_right_after_answering_loses_nothing_and_stops_nothing():
    """The worker answers a chunk, starts the next (two are in flight) and dies in it while the
    parent is busy: the parent must not fail sending it more work, and must replay the rest."""
    items = [ScheduledGame(i, "g", f"s{i}", ("a", "b"), i) for i in range(16)]
    seen = []
    with WorkerPool(1, _dies_at_game_8, 1.0) as pool:
        for item, outcome in pool.outcomes(items, [4, 4, 4, 4]):
            seen.append((item.index, outcome))
            time.sleep(0.05)  # a busy parent: the worker is dead before it is sent more
    assert seen == [(i, ("outcome", i)) for i in range(16)]
