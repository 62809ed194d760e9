"""Worker processes that play games, and survive the bots that kill them.

Games are played in forked worker processes (``--jobs`` of them, at least one), so a bot that ends
its process — ``os._exit``, a segfault, the kernel's out-of-memory killer — or that blocks forever
where no signal reaches it takes down a worker, never the run. Each worker shares two numbers with
the parent: a heartbeat its watchdog thread writes (see ``referee.watchdog``), and the index of the
game it is playing. When a worker dies or its heartbeat stops, the parent kills it, starts a new one, and
hands the game to a *diagnosis*: the same game replayed alone in a fresh process that reports every
call into bot code. Games are deterministic, so the replay meets the same fault; the diagnosis
then knows the seat and decision, and replays the game once more with that seat forfeited from
that decision on (a ``crash`` or ``timeout`` fault). The final outcome is the same whatever
``--jobs`` is, and the other games of the worker are simply played again.

The parent collects outcomes in schedule order, so the caller sees the same sequence as if every
game had been played one after the other.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import wait

from arena.execution.child_process import die_with_parent
from arena.execution.context import ScheduledGame
from arena.referee.faults import process_ended, unresponsive
from arena.referee.outcome import GameOutcome, SeatForfeit
from arena.referee.watchdog import get_watchdog, grace_for

PlayFunction = Callable[[ScheduledGame, dict | None, object], GameOutcome]

NO_GAME = -1.0
POLL = 0.1
TASKS_AHEAD = 2  # chunks sent to a worker before it answers the first


class WorkerError(Exception):
    """Games cannot be played (workers keep dying for no bot's fault); one line for the user."""


@dataclass
class _Task:
    items: list[ScheduledGame]
    forfeits: dict[int, dict[int, SeatForfeit]] = field(default_factory=dict)


def _quiet_child() -> None:
    """Common set-up of every child: Ctrl-C is the parent's business; bots print to stderr."""
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        os.dup2(2, 1)
    except OSError:
        pass
    sys.stdout = sys.stderr


def chunk_sizes(n: int, jobs: int, largest: int) -> list[int]:
    """Sizes of the chunks of ``n`` games for ``jobs`` workers: the largest while many games are
    left (each chunk costs the parent a few hundred µs), then smaller and smaller so that the
    workers finish together. Short runs get small chunks throughout, so that Ctrl-C loses little."""
    largest = min(largest, n // (8 * jobs))
    sizes = []
    left = n
    while left > 0:
        size = max(1, min(largest, left // (2 * jobs)))
        sizes.append(size)
        left -= size
    return sizes


class TaskFeed:
    """A worker's end of its pipe to the pool: tasks in, each task's outcomes out, in that order."""

    def __init__(self, conn):
        self.conn = conn
        self.closed = False

    def take(self, wait: bool) -> _Task | None:
        """The next task; None if the pool stops this worker, or if none has come yet and
        ``wait`` is False."""
        if self.closed or not (wait or self.conn.poll()):
            return None
        try:
            task = self.conn.recv()
        except (EOFError, OSError):
            task = None
        self.closed = task is None
        return task

    def give(self, outcomes: list[GameOutcome]) -> None:
        try:
            self.conn.send(outcomes)
        except (BrokenPipeError, OSError):
            self.closed = True


# Plays the tasks of a feed until it closes; ``slot[1]`` is the index of the game in bot code.
TaskPlayer = Callable[[TaskFeed, object], None]


def play_each(play: PlayFunction) -> TaskPlayer:
    """A task player that plays each task's games one after the other, marking each in ``slot``."""

    def play_tasks(feed: TaskFeed, slot) -> None:
        while (task := feed.take(wait=True)) is not None:
            outcomes = []
            for item in task.items:
                slot[1] = item.index
                outcomes.append(play(item, task.forfeits.get(item.index), None))
            slot[1] = NO_GAME
            feed.give(outcomes)

    return play_tasks


def _worker_main(conn, slot, play_tasks: TaskPlayer, move_time: float) -> None:
    _quiet_child()
    watchdog = get_watchdog(move_time)
    watchdog.heartbeat = slot
    slot[0] = time.monotonic()
    play_tasks(TaskFeed(conn), slot)


class _Tracker:
    """Written by the referee in a diagnosis process: who is in bot code, since when."""

    def __init__(self, shared):
        self.shared = shared  # [start (monotonic) or 0, seat, decision, last leave (monotonic)]

    def enter(self, seat: int, decision: int) -> None:
        shared = self.shared
        shared[1] = seat
        shared[2] = decision
        shared[0] = time.monotonic()

    def leave(self) -> None:
        self.shared[0] = 0.0
        self.shared[3] = time.monotonic()


def _diagnose_main(conn, track, play: PlayFunction, item, forfeits) -> None:
    _quiet_child()
    outcome = play(item, forfeits, _Tracker(track))
    conn.send(outcome)


class _Worker:
    def __init__(self, ctx, play_tasks: TaskPlayer, move_time: float):
        self.slot = ctx.RawArray("d", [0.0, NO_GAME])
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(
            target=_worker_main, args=(child, self.slot, play_tasks, move_time), name="arena-worker"
        )
        self.process.start()
        child.close()
        # Sent and not yet answered, oldest first. Two at a time: the worker starts the next
        # chunk at once instead of waiting for the parent to read its outcomes and send more.
        self.tasks: deque[_Task] = deque()

    def send(self, task: _Task) -> None:
        self.tasks.append(task)  # a dead worker's tasks go back to the queue when it is replaced
        try:
            self.conn.send(task)
        except OSError:
            pass  # it has died since it last answered: the pool finds out on its next look

    def stop(self, kill: bool = False) -> None:
        if kill and self.process.is_alive():
            self.process.kill()
        elif self.process.is_alive():
            try:
                self.conn.send(None)
            except OSError:
                pass
        self.process.join(timeout=1.0)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.conn.close()


class WorkerPool:
    """``jobs`` forked workers playing chunks of scheduled games with ``play_tasks`` (by default
    each game in turn with ``play``).

    ``play(item, forfeits, tracker)`` plays one game in this process: the diagnosis uses it.
    """

    def __init__(
        self,
        jobs: int,
        play: PlayFunction | None,
        move_time: float,
        play_tasks: TaskPlayer | None = None,
        time_bank: float | None = None,
    ):
        self.ctx = multiprocessing.get_context("fork")
        self.jobs = max(1, jobs)
        self.play = play
        self.play_tasks = play_tasks or play_each(play)
        self.move_time = move_time
        self.time_bank = time_bank or 0.0  # a decision may last that much longer (a seat's bank)
        # A worker whose heartbeat is older than this is stuck in a bot that no signal reaches.
        self.stuck_after = grace_for(move_time) + 1.0
        self.workers: list[_Worker] = []
        self.unexplained_deaths = 0

    def __enter__(self) -> WorkerPool:
        self.workers = [
            _Worker(self.ctx, self.play_tasks, self.move_time) for _ in range(self.jobs)
        ]
        return self

    def __exit__(self, *exc) -> None:
        for worker in self.workers:
            worker.stop(kill=exc[0] is not None)
        self.workers = []

    def outcomes(
        self, items: list[ScheduledGame], chunks: list[int]
    ) -> Iterator[tuple[ScheduledGame, GameOutcome]]:
        """Every item's outcome, in the order of ``items``, played in chunks of these sizes."""
        queue: deque[_Task] = deque()
        start = 0
        for size in chunks:
            queue.append(_Task(items[start : start + size]))
            start += size
        if start < len(items):
            raise ValueError("the chunks do not cover the items")
        results: dict[int, GameOutcome] = {}
        position = 0
        while position < len(items):
            # One chunk to each worker before a second to any: with few chunks, a worker taking
            # two at once would leave another idle.
            for depth in range(1, TASKS_AHEAD + 1):
                for worker in self.workers:
                    if len(worker.tasks) < depth and queue:
                        worker.send(queue.popleft())
            while position < len(items) and items[position].index in results:
                item = items[position]
                yield item, results.pop(item.index)
                position += 1
            if position >= len(items):
                break
            busy = [w for w in self.workers if w.tasks]
            ready = wait([w.conn for w in busy] + [w.process.sentinel for w in busy], timeout=POLL)
            now = time.monotonic()
            for index, worker in enumerate(self.workers):
                if not worker.tasks:
                    continue
                if worker.conn in ready:
                    try:
                        outcomes = worker.conn.recv()
                    except (EOFError, OSError):
                        outcomes = None
                    if outcomes is not None:
                        task = worker.tasks.popleft()
                        for item, outcome in zip(task.items, outcomes, strict=True):
                            results[item.index] = outcome
                # Even after an answer: it may have died in the next chunk already.
                dead = worker.process.sentinel in ready or not worker.process.is_alive()
                heartbeat = worker.slot[0]
                stuck = heartbeat > 0 and now - heartbeat > self.stuck_after
                if dead or stuck:
                    self.workers[index] = self._replace(worker, queue, results, stuck and not dead)

    def _replace(self, worker: _Worker, queue: deque, results: dict, stuck: bool) -> _Worker:
        """Handle a dead or stuck worker; return its replacement."""
        tasks = worker.tasks
        current = int(worker.slot[1])
        worker.stop(kill=True)
        items = [item for task in tasks for item in task.items]
        forfeits = {i: f for task in tasks for i, f in task.forfeits.items()}
        culprit = next((item for item in items if item.index == current), None)
        if self.play is None:  # bots live in processes of their own: the worker itself failed
            culprit = None
        others = [item for item in items if item is not culprit]
        if others:
            queue.appendleft(
                _Task(others, {i.index: forfeits[i.index] for i in others if i.index in forfeits})
            )
        if culprit is None:
            self._unexplained("a worker process died between games")
        else:
            results[culprit.index] = self.diagnose(culprit, forfeits.get(culprit.index))
        return _Worker(self.ctx, self.play_tasks, self.move_time)

    def _unexplained(self, what: str) -> None:
        self.unexplained_deaths += 1
        if self.unexplained_deaths > 3:
            raise WorkerError(f"{what}, again and again, with no bot to blame; stopping the run")

    def diagnose(self, item: ScheduledGame, forfeits: dict[int, SeatForfeit] | None) -> GameOutcome:
        """Play one game alone, watching every call into bot code, until it finishes."""
        forfeits = dict(forfeits or {})
        for _ in range(len(item.seats) + 4):
            outcome, verdict = self._diagnosis(item, forfeits)
            if outcome is not None:
                return outcome
            kind, message, started, seat, decision = verdict
            if started <= 0:
                self._unexplained(f"game {item.seed}: a process died outside any bot's code")
                continue
            forfeits[seat] = SeatForfeit(decision, kind, message)
        raise WorkerError(f"game {item.seed} could not be finished; its processes keep dying")

    def _diagnosis(self, item: ScheduledGame, forfeits: dict) -> tuple[GameOutcome | None, tuple]:
        """One replay of the game in a process of its own -> (its outcome, None), or (None,
        (fault kind, message, when the call began or 0, seat, decision)) of the call it died in."""
        limit = self.move_time + self.time_bank + grace_for(self.move_time)
        track = self.ctx.RawArray("d", [0.0, -1.0, 0.0, time.monotonic()])
        conn, child = self.ctx.Pipe()
        process = self.ctx.Process(
            target=_diagnose_main,
            args=(child, track, self.play, item, forfeits),
            name="arena-diagnosis",
        )
        process.start()
        child.close()
        outcome = None
        verdict = None
        while outcome is None and verdict is None:
            ready = wait([conn, process.sentinel], timeout=POLL)
            if conn in ready:
                try:
                    outcome = conn.recv()
                    break
                except (EOFError, OSError):
                    pass
            started = track[0]
            if process.sentinel in ready or not process.is_alive():
                process.join()
                verdict = ("crash", process_ended(process.exitcode), started)
            elif started > 0 and time.monotonic() - started > limit:
                process.kill()
                process.join()
                verdict = ("timeout", unresponsive(self.move_time), started)
            elif started == 0 and time.monotonic() - track[3] > limit + self.stuck_after:
                # Stuck outside every call into bot code (a bot's thread, a ``__del__``): nobody
                # to blame, but no waiting forever either.
                process.kill()
                process.join()
                verdict = ("timeout", unresponsive(self.move_time), 0.0)
        process.join(timeout=1.0)
        conn.close()
        if outcome is not None:
            return outcome, None
        return None, (*verdict, int(track[1]), int(track[2]))
