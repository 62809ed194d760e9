"""``RayBackend``: a run's games played as Ray tasks, their outcomes handed back in schedule order.

Each round of the schedule is cut into chunks; a chunk is one Ray task (``node.play_chunk``), run
wherever the cluster has a free CPU, in a worker started in the run's shipped folder of bot files
(``staging``). A few chunks per worker are in flight at a time; the outcomes are yielded in
schedule order, each chunk's once, so the caller rates and stores exactly what a local run would.

The cluster's own faults: a Ray worker process or a node that dies takes its chunk with it, never
a result, since nothing is stored before the chunk's outcomes come back. Ray plays a lost task
again on its own (``max_retries``), and this backend submits a chunk Ray gave up on again too, up
to ``LOST_LIMIT`` times in all, then stops the run with one line. A bot that cannot be loaded on a
node stops the run with one line naming the bot and the node. What was stored before stays, and
``--resume`` continues it, as after a local run that stopped.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from arena.execution.backend import Backend, Outcomes, even_chunks
from arena.execution.cluster.connect import Session, cluster_size, import_ray
from arena.execution.cluster.staging import stage, staging_folder
from arena.execution.context import PlayContext, ScheduledGame
from arena.execution.workers import WorkerError, chunk_sizes
from arena.referee.faults import is_exclusion
from arena.referee.outcome import GameOutcome

AHEAD = 2  # chunks in flight per worker
LOST_LIMIT = 5  # times Ray may lose chunks in one run before it stops
RAY_RETRIES = 3  # Ray's own retries of a task whose worker died
WAIT = 0.2  # seconds between looks (a Ctrl-C is handled between them)
LARGEST_CHUNK = 32  # games of a chunk in the shared mode: a lost chunk costs little


@dataclass
class _Chunk:
    items: list[ScheduledGame]
    ref: object = None
    outcomes: list[GameOutcome] | None = None


class RayBackend(Backend):
    """Plays the run on Ray (see the module's docstring). ``workers``: at most this many chunks
    played at once (None: one per CPU of the cluster, two CPUs a worker with process
    isolation); ``address``: the cluster to join (None: a local instance)."""

    def __init__(
        self, context: PlayContext, isolation: str, workers: int | None, address: str | None
    ):
        super().__init__(context)
        self.isolation = isolation
        self.max_workers = workers
        self.address = address
        self.session: Session | None = None
        self.folder = None
        self.in_flight: list[_Chunk] = []
        self.excluded: dict[str, str] = {}  # bot -> why (process isolation, as IsolatedBots)
        self.lost = 0
        self.spec = None  # (NodeSpec, once entered)
        self.workers = 0
        self.nodes = 0

    def __enter__(self) -> RayBackend:
        ray = import_ray()
        try:
            self.folder = staging_folder()
            spec = self.spec = stage(
                self.context, self.isolation, Path(self.folder.name), ray.cloudpickle
            )
            self.session = Session.open(self.address, self.folder.name)
            self.spec_ref = ray.put(spec)
            cpus, self.nodes, smallest = cluster_size()
            per_worker = 2 if self.isolation == "process" and smallest >= 2 else 1
            self.workers = max(1, int(cpus // per_worker))
            if self.max_workers:
                self.workers = min(self.workers, self.max_workers)
            from arena.execution.cluster.node import play_chunk

            self.task = ray.remote(play_chunk).options(num_cpus=per_worker, max_retries=RAY_RETRIES)
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc) -> None:
        if self.in_flight:
            ray = import_ray()
            for chunk in self.in_flight:
                try:
                    ray.cancel(chunk.ref, force=True)
                except Exception:  # (already finished, or Ray is going down)
                    pass
            self.in_flight = []
        if self.session is not None:
            self.session.close()
            self.session = None
        if self.folder is not None:
            self.folder.cleanup()
            self.folder = None

    def describe(self) -> str:
        where = self.session.where if self.session else "Ray"
        nodes = f"{self.nodes} node" + ("s" if self.nodes != 1 else "")
        return f"ray: {self.workers} worker(s) on {nodes}, {where}"

    def outcomes(self, schedule: list[ScheduledGame]) -> Outcomes:
        return self.outcomes_by_round([schedule])

    def outcomes_by_round(self, rounds: Iterable[list[ScheduledGame]]) -> Outcomes:
        for games in rounds:
            if games:
                yield from self._round(games)

    def _sizes(self, n: int) -> list[int]:
        if self.isolation == "process":
            return even_chunks(n, self.workers)
        return chunk_sizes(n, self.workers, largest=LARGEST_CHUNK)

    def _round(self, games: list[ScheduledGame]) -> Outcomes:
        self.spec.refuse_programs(games)
        chunks, start = [], 0
        for size in self._sizes(len(games)):
            chunks.append(_Chunk(games[start : start + size]))
            start += size
        ray = import_ray()
        sent = taken = 0
        while taken < len(chunks):
            while sent < len(chunks) and sent - taken < AHEAD * self.workers:
                self._submit(chunks[sent])
                sent += 1
            refs = [chunk.ref for chunk in self.in_flight]
            ready, _ = ray.wait(refs, num_returns=1, timeout=WAIT)
            if ready:
                ready, _ = ray.wait(refs, num_returns=len(refs), timeout=0)
                for chunk in [c for c in self.in_flight if c.ref in set(ready)]:
                    self._collect(ray, chunk)
            while taken < len(chunks) and chunks[taken].outcomes is not None:
                chunk = chunks[taken]
                yield from zip(chunk.items, chunk.outcomes, strict=True)
                chunk.outcomes = []  # (yielded: nothing kept)
                taken += 1

    def _submit(self, chunk: _Chunk) -> None:
        chunk.ref = self.task.remote(self.spec_ref, chunk.items, dict(self.excluded))
        self.in_flight.append(chunk)

    def _collect(self, ray, chunk: _Chunk) -> None:
        """Take a finished chunk's outcomes, or submit it again if Ray lost it."""
        self.in_flight.remove(chunk)
        try:
            answer = ray.get(chunk.ref)
        except ray.exceptions.RayTaskError as exc:
            cause = getattr(exc, "cause", None)
            if isinstance(cause, WorkerError):
                raise WorkerError(str(cause)) from None
            raise WorkerError(f"a game failed on a Ray worker: {_one_line(cause or exc)}") from None
        except ray.exceptions.RayError as exc:  # a worker or node died, an object was lost
            self.lost += 1
            if self.lost > LOST_LIMIT:
                raise WorkerError(
                    f"Ray keeps losing games ({_one_line(exc)}); stopping the run"
                ) from None
            time.sleep(WAIT)
            self._submit(chunk)
            return
        if answer[0] == "unloadable":
            _, node, bot, message = answer
            raise WorkerError(f"bot {bot} cannot be loaded on node {node}: {message}")
        outcomes = answer[2]
        for outcome in outcomes:
            for fault in outcome.fault_log:
                if fault.decision == 0 and fault.kind == "crash" and is_exclusion(fault.message):
                    self.excluded.setdefault(outcome.bots[fault.seat], fault.message)
        chunk.outcomes = outcomes


def _one_line(exc: BaseException) -> str:
    lines = [line for line in str(exc).strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else type(exc).__name__
