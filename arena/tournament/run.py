"""Running a tournament: schedule the games, play them (in worker processes), rate, store.

Games are played in chunks by ``--jobs`` worker processes but rated and stored strictly in schedule
order, so the leaderboard is the same whatever ``--jobs`` is. Every stored batch carries the ratings
it leads to: a run stopped at any moment continues from its last batch (``--resume``) to the same
final leaderboard as a run never stopped.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from arena.execution.process.isolated_play import IsolatedPlayer
from arena.execution.workers import TaskFeed, WorkerPool, chunk_sizes
from arena.games.base import Game
from arena.plugins.loading import Registry
from arena.ratings.trueskill import Environment, RatingTable
from arena.referee import table as referee
from arena.referee.table import GameOutcome, play_game
from arena.store.database import Store
from arena.tournament.plan import GamePlan, Tournament
from arena.tournament.schedule import ScheduledGame, round_robin


class TournamentError(Exception):
    """A tournament that cannot be run as asked; the message is one line for the user."""


@dataclass
class RunSummary:
    run_id: int
    games_played: int
    games_skipped: int
    decisions: int
    seconds: float
    interrupted: bool = False
    resumed: bool = False


# --- the worker side --------------------------------------------------------------------------
# Set in the parent before the pool forks, so workers inherit loaded bot files and game objects.
_context: dict = {}


def _play_scheduled(
    item: ScheduledGame, forfeits: dict | None = None, tracker: object = None
) -> GameOutcome:
    ctx = _context
    registry: Registry = ctx["registry"]
    game: Game = ctx["games"][item.game]
    factories = [registry.bots[name].create for name in item.seats]
    return play_game(
        game,
        factories,
        item.seats,
        item.seed,
        move_time=ctx["move_time"],
        max_faults=ctx["max_faults"],
        keep_record=ctx["records"],
        forfeits=forfeits,
        tracker=tracker,
    )


def _play_isolated(feed: TaskFeed, slot) -> None:
    ctx = _context
    IsolatedPlayer(
        ctx["registry"],
        ctx["games"],
        ctx["move_time"],
        ctx["max_faults"],
        ctx["records"],
        ctx["bot_memory"] * 1024 * 1024,
        ctx["bot_cpu"],
    ).play(feed)


def _outcomes_in_order(
    schedule: list[ScheduledGame], jobs: int, tournament: Tournament
) -> Iterator[tuple[ScheduledGame, GameOutcome]]:
    """Outcomes in schedule order: in this process when ``jobs`` is 0, else in worker processes."""
    if tournament.isolation == "process":
        # Bigger chunks: a worker steps a chunk's games together, one batch per bot process each
        # round. Not bigger than 256, so that the progress display moves and Ctrl-C keeps most of
        # the work done.
        # As many chunks for every worker, of nearly equal sizes, so that the workers end together.
        workers = max(1, jobs)
        count = -(-len(schedule) // 256)
        count = max(workers, -(-count // workers) * workers)
        sizes = [len(schedule) // count + (i < len(schedule) % count) for i in range(count)]
        sizes = [size for size in sizes if size]
        pool = WorkerPool(max(1, jobs), None, tournament.move_time, play_tasks=_play_isolated)
        with pool:
            yield from pool.outcomes(schedule, sizes)
        return
    if jobs <= 0:
        for item in schedule:
            yield item, _play_scheduled(item)
        return
    with WorkerPool(jobs, _play_scheduled, tournament.move_time) as pool:
        yield from pool.outcomes(schedule, chunk_sizes(len(schedule), jobs, largest=128))


# --- the parent side ----------------------------------------------------------------------------
ProgressCallback = Callable[[str, int, int], None]


def run_tournament(
    tournament: Tournament,
    registry: Registry,
    store: Store,
    jobs: int = 1,
    resume: bool = True,
    progress: ProgressCallback | None = None,
) -> RunSummary:
    identity = tournament.identity()
    run = store.find_run(identity) if resume else None
    resumed = run is not None
    if run is not None:
        run_id = run.id
        if run.settings != tournament.settings():
            store.set_run_settings(run_id, tournament.settings())
    else:
        run_id = store.start_run(tournament.seed, identity, tournament.settings())

    games = {}
    schedules: list[tuple[GamePlan, list[ScheduledGame], int]] = []
    for plan in tournament.plans:
        game_class = registry.games[plan.game].cls
        games[plan.game] = game_class(players=plan.players, variant=plan.variant, **plan.params)
        schedule = list(
            round_robin(
                plan.game,
                plan.bots,
                plan.players,
                tournament.games_per_game,
                tournament.seed,
                tournament.duplicate,
            )
        )
        done = store.games_done(run_id, plan.game)
        schedules.append((plan, schedule[done:], done))

    _context.clear()
    _context.update(
        registry=registry,
        games=games,
        move_time=tournament.move_time,
        max_faults=tournament.max_faults,
        records=tournament.records,
        bot_memory=tournament.bot_memory,
        bot_cpu=tournament.bot_cpu,
    )

    began = time.perf_counter()
    played = 0
    decisions = 0
    skipped = sum(done for _, _, done in schedules)
    interrupted = False
    previous_handler = signal.getsignal(signal.SIGINT)

    saving = False

    def on_interrupt(signum, frame):
        referee.interrupt_requested = True
        if not saving:  # never inside a database write: the batch is then checked after it
            raise KeyboardInterrupt

    def save(batch: list, game: str, table: RatingTable) -> None:
        nonlocal saving
        saving = True
        try:
            store.save_batch(run_id, batch, game, table.states())
        finally:
            saving = False
        if referee.interrupt_requested:
            raise KeyboardInterrupt

    in_main_thread = _is_main_thread()
    if in_main_thread:
        signal.signal(signal.SIGINT, on_interrupt)
    try:
        for plan, schedule, done in schedules:
            table = RatingTable(plan.environment, store.rating_states(plan.game))
            batch: list = []
            last_flush = time.perf_counter()
            total = done + len(schedule)
            count = done
            if progress:
                progress(plan.game, count, total)
            try:
                for item, outcome in _outcomes_in_order(schedule, jobs, tournament):
                    placings = outcome.placings()
                    _rate(table, placings, plan.game)
                    batch.append((item.index, item.board, outcome, placings))
                    played += 1
                    count += 1
                    decisions += outcome.decisions
                    now = time.perf_counter()
                    if now - last_flush > 0.5 or len(batch) >= 2000:
                        pending, batch = batch, []
                        save(pending, plan.game, table)
                        last_flush = now
                        if progress:
                            progress(plan.game, count, total)
            finally:
                # Everything rated so far is stored, even when the run is interrupted.
                if batch:
                    pending, batch = batch, []
                    save(pending, plan.game, table)
            if progress:
                progress(plan.game, count, total)
        store.set_run_status(run_id, "finished")
    except KeyboardInterrupt:
        interrupted = True
        store.set_run_status(run_id, "interrupted")
    finally:
        referee.interrupt_requested = False
        if in_main_thread:
            signal.signal(signal.SIGINT, previous_handler)
        _context.clear()
    return RunSummary(
        run_id=run_id,
        games_played=played,
        games_skipped=skipped,
        decisions=decisions,
        seconds=time.perf_counter() - began,
        interrupted=interrupted,
        resumed=resumed,
    )


def _rate(table: RatingTable, placings: dict[str, float], game: str) -> None:
    try:
        table.update(placings)
    except (ArithmeticError, ValueError) as exc:
        # Extreme environments (tournament files may set them) can overflow TrueSkill's floats.
        values = ", ".join(f"{k}={v:g}" for k, v in table.environment.__dict__.items())
        raise TournamentError(
            f"{game}: TrueSkill cannot rate a game with {values} ({_detail(exc)}); "
            "the games before it are stored"
        ) from None


def _is_main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def default_jobs(isolation: str = "shared") -> int:
    """One game worker per core; with ``--isolation process``, one per two cores: a worker's bot
    processes keep about one more core busy (on two cores, one worker plays 8 % faster than two,
    ``arena bench``)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    return max(1, cores // 2 if isolation == "process" else cores)


def default_db() -> Path:
    return Path("leaderboard") / "arena.db"


def stderr_is_terminal() -> bool:
    return sys.stderr.isatty()


def _detail(exc: BaseException) -> str:
    """What an arithmetic error says, without its errno: ``OverflowError(34, 'Numerical result
    out of range')`` says "Numerical result out of range"."""
    return str(exc.args[-1]) if exc.args else type(exc).__name__
