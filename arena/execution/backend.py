"""How the games of a run get played: one interface, schedule in, outcomes out.

A backend is a context manager made from one ``PlayContext`` (the loaded bots, the game objects,
the referee's settings). ``outcomes(schedule)`` yields ``(scheduled game, GameOutcome)`` for every
game of the schedule, **in schedule order**, whatever order the games finished in: the caller
rates and stores them as they come, so the leaderboard is the same whatever the backend. A game
must come out the same wherever it is played: its seed decides the deals and every bot's
generator, and the rules of refereeing live in one place (``referee.table.Table``).

Backends today (``make_backend`` chooses):

- ``InProcess`` (``--jobs 0``): each game in this process, one after the other;
- ``SharedWorkers`` (``--isolation shared``): forked game workers, the bots inside them
  (``execution.workers``);
- ``IsolatedBots`` (``--isolation process``): game workers with each bot in its own process,
  decisions sent in batches (``execution.process``);
- ``RayBackend`` (``--backend ray``): chunks of the schedule as Ray tasks anywhere on a cluster,
  each played there by one of the two above (``execution.cluster``; Ray imported only then).

A new backend (a cluster, bots in other languages speaking JSON lines) implements ``outcomes``
and keeps its processes between ``__enter__`` and ``__exit__``; an exception in the caller reaches
``__exit__``, which then stops everything at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from arena.execution.context import PlayContext, ScheduledGame
from arena.execution.descendants import Descendants
from arena.execution.process import bubblewrap
from arena.execution.process.isolated_play import IsolatedPlayer
from arena.execution.workers import TaskFeed, WorkerPool, chunk_sizes
from arena.referee.faults import is_exclusion
from arena.referee.outcome import GameOutcome

Outcomes = Iterator[tuple[ScheduledGame, GameOutcome]]


class Backend:
    """Plays schedules of games (see the module's docstring)."""

    def __init__(self, context: PlayContext):
        self.context = context

    def __enter__(self) -> Backend:
        return self

    def __exit__(self, *exc) -> None:
        self.context.programs.close()  # bot programs this process started (in-process play)

    def outcomes(self, schedule: list[ScheduledGame]) -> Outcomes:
        raise NotImplementedError

    def describe(self) -> str | None:
        """A line on where the games are played, once the backend is entered (None: the start
        line's job count says it all)."""
        return None

    def outcomes_by_round(self, rounds: Iterable[list[ScheduledGame]]) -> Outcomes:
        """The outcomes of round after round, in order. A round is asked of ``rounds`` only once
        every outcome of the round before has been taken: a pairing that draws a round from the
        results before it (swiss, matchmaking) gets them all, whatever ``--jobs`` is."""
        for games in rounds:
            yield from self.outcomes(games)


class InProcess(Backend):
    """Every game in this process, in schedule order."""

    def outcomes(self, schedule: list[ScheduledGame]) -> Outcomes:
        play = self.context.play
        for item in schedule:
            yield item, play(item)


class SharedWorkers(Backend):
    """``jobs`` forked game workers, each playing chunks of the schedule with the bots inside it.

    Workers are forked for each schedule (each game of the run: ``outcomes_by_round`` keeps them
    for all its rounds), and so are the bots' processes of ``IsolatedBots``: a bot's CPU-time limit
    counts within one game's schedule."""

    def __init__(self, context: PlayContext, jobs: int):
        super().__init__(context)
        self.jobs = max(1, jobs)
        self.pool: WorkerPool | None = None
        # What the bots start (in the workers, or from their own processes) ends with the run.
        self.descendants = Descendants()

    def __enter__(self) -> SharedWorkers:
        self.descendants.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        if self.pool is not None:  # (a caller that stopped iterating: stop the workers now)
            self.pool.__exit__(*exc)
        self.descendants.__exit__(*exc)

    def new_pool(self) -> WorkerPool:
        context = self.context
        return WorkerPool(self.jobs, context.play, context.move_time, time_bank=context.time_bank)

    def chunks(self, n: int) -> list[int]:
        return chunk_sizes(n, self.jobs, largest=128)

    def outcomes(self, schedule: list[ScheduledGame]) -> Outcomes:
        return self.outcomes_by_round([schedule])

    def outcomes_by_round(self, rounds: Iterable[list[ScheduledGame]]) -> Outcomes:
        """One pool of workers for every round (a round's games are spread over them)."""
        self.pool = pool = self.new_pool()
        with pool:
            for games in rounds:
                if games:
                    yield from pool.outcomes(games, self.chunks(len(games)))
        self.pool = None


class IsolatedBots(SharedWorkers):
    """Game workers that each step many games at once, every bot in a process of its own.

    A bot a worker excluded (its processes kept failing) stays excluded in the workers of the
    run's next schedules: the outcomes say so (``referee.faults.excluded``)."""

    def __init__(self, context: PlayContext, jobs: int):
        super().__init__(context, jobs)
        self.excluded: dict[str, str] = {}  # bot -> why

    def new_pool(self) -> WorkerPool:
        context = self.context
        bubblewrap.active(context.sandbox)  # tried here, once: the forked workers inherit it
        excluded = dict(self.excluded)

        def play_tasks(feed: TaskFeed, slot) -> None:
            IsolatedPlayer(context, excluded).play(feed)

        return WorkerPool(
            self.jobs, None, context.move_time, play_tasks=play_tasks, time_bank=context.time_bank
        )

    def outcomes_by_round(self, rounds: Iterable[list[ScheduledGame]]) -> Outcomes:
        for item, outcome in super().outcomes_by_round(rounds):
            for fault in outcome.fault_log:
                if fault.decision == 0 and fault.kind == "crash" and is_exclusion(fault.message):
                    self.excluded.setdefault(outcome.bots[fault.seat], fault.message)
            yield item, outcome

    def chunks(self, n: int) -> list[int]:
        return even_chunks(n, self.jobs)


def even_chunks(n: int, workers: int, largest: int = 256) -> list[int]:
    """Sizes of as many chunks of ``n`` games for every worker, nearly equal, so that the workers
    end together. Bigger than ``chunk_sizes``: a worker steps a chunk's games together, one batch
    per bot process each round; not bigger than ``largest``, so that the progress display moves
    and Ctrl-C keeps most of the work done."""
    count = -(-n // largest)
    count = max(workers, -(-count // workers) * workers)
    sizes = [n // count + (i < n % count) for i in range(count)]
    return [size for size in sizes if size]


def make_backend(context: PlayContext, isolation: str = "shared", jobs: int = 1) -> Backend:
    """The backend for ``--isolation`` and ``--jobs``: with ``process``, at least one worker.
    (``--backend ray``: ``execution.cluster.backend.RayBackend``, made by the tournament.)"""
    if isolation == "process":
        return IsolatedBots(context, jobs)
    if jobs <= 0:
        return InProcess(context)
    return SharedWorkers(context, jobs)
