"""Running a tournament: schedule the games, have an execution backend play them, rate, store.

The backend (``execution.backend``: in this process, in ``--jobs`` game workers, or with every bot
in its own process) may play games in any order, but they are rated and stored strictly in schedule
order, so the leaderboard is the same whatever ``--jobs`` is. Every stored batch carries the ratings
it leads to: a run stopped at any moment continues from its last batch (``--resume``) to the same
final leaderboard as a run never stopped.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial

from arena.execution.backend import Backend, make_backend
from arena.execution.context import PlayContext, ScheduledGame
from arena.execution.process.bubblewrap import SandboxSettings
from arena.games.base import Game
from arena.plugins.loading import Registry
from arena.ratings.trueskill import RatingTable
from arena.referee.faults import Fault
from arena.referee.interrupt import Interrupt
from arena.referee.outcome import GameOutcome
from arena.store.database import Store, default_db  # noqa: F401 (default_db: as before)
from arena.tournament.match import MatchStopper, Stopper
from arena.tournament.plan import GamePlan, Tournament
from arena.tournament.schedule import Schedule

ProgressCallback = Callable[[str, int, int], None]
FLUSH_SECONDS = 0.5  # a batch is stored at least this often, or at
FLUSH_GAMES = 2000  # this many games


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
    games_per_bot: dict[str, list[int]] = field(default_factory=dict)  # by game, after the run
    # --fail-fast: the game whose fault stopped the run (stored), and that fault
    stopped_by: tuple[str, int, GameOutcome, Fault] | None = None


class _FailFast(Exception):
    """A bot faulted in a run with ``fail_fast``: the game, its index and outcome, the fault."""


def run_tournament(
    tournament: Tournament,
    registry: Registry,
    store: Store,
    jobs: int = 1,
    resume: bool = True,
    progress: ProgressCallback | None = None,
    stopper: Stopper | None = None,
    fail_fast: bool = False,
    sandbox: SandboxSettings | None = None,
    backend: str = "local",
    ray_address: str | None = None,
    announce: Callable[[str], None] | None = None,
) -> RunSummary:
    """Play the tournament's games that are not stored yet, rate them, store them (bot processes
    sandboxed as ``sandbox`` says, by default bubblewrap if it works). A match
    (``tournament.match``) stops once its ``stopper`` (default: ``tournament.match``'s) says so,
    between whole boards. ``fail_fast``: stop after storing the first game in which a bot faulted
    (``stopped_by``); the run is marked stopped: not continued by the same command, which starts
    a new run. ``backend`` ``ray``: the games are played on Ray (``ray_address``: the cluster,
    None: a local instance; ``jobs``: at most so many workers, 0: the whole cluster); results
    are the same. ``announce`` is given the backend's line on where it plays, if it has one."""
    run_id, resumed = _open_run(store, tournament, resume)
    games, schedules = _schedules(tournament, registry, store, run_id)
    if tournament.match is not None:
        stopper = stopper or MatchStopper.of(tournament)
        stopper.replay(store.run_placings(run_id, tournament.plans[0].game))
        stopper.run_id = run_id
    began = time.perf_counter()
    saver = _Saver(store, run_id, Interrupt())
    context = PlayContext(
        registry,
        games,
        move_time=tournament.move_time,
        time_bank=tournament.time_bank,
        max_faults=tournament.max_faults,
        records=tournament.records,
        bot_memory=tournament.bot_memory * 1024 * 1024,
        bot_cpu=tournament.bot_cpu,
        sandbox=sandbox or SandboxSettings(),
        interrupt=saver.interrupt,
    )
    summary = RunSummary(run_id, 0, sum(done for _, _, done in schedules), 0, 0.0, resumed=resumed)
    try:
        with (
            _ctrl_c(saver),
            _backend(
                context, tournament.isolation, _workers_for(jobs, schedules), backend, ray_address
            ) as played_by,
        ):
            line = played_by.describe()
            if announce is not None and line:
                announce(line)
            began = time.perf_counter()  # (joining a cluster is not playing)
            for plan, schedule, done in schedules:
                _play_plan(
                    plan, schedule, done, played_by, saver, summary, progress, stopper, fail_fast
                )
            summary.games_per_bot = {
                plan.game: store.games_per_bot(run_id, plan.game, plan.bots)
                for plan, _, _ in schedules
            }
        if stopper is not None:
            store.set_note(f"match/{run_id}", stopper.result())
        store.set_run_status(run_id, "finished")
    except _FailFast as stop:
        summary.stopped_by = stop.args
        store.set_run_status(run_id, "stopped")
    except KeyboardInterrupt:
        summary.interrupted = True
        store.set_run_status(run_id, "interrupted")
    summary.seconds = time.perf_counter() - began
    return summary


def _backend(
    context: PlayContext, isolation: str, jobs: int, kind: str, address: str | None
) -> Backend:
    """The backend a run's games are played by: local (``make_backend``) or on Ray."""
    if kind == "ray":
        from arena.execution.cluster.backend import RayBackend  # (Ray only when asked for)

        return RayBackend(context, isolation, jobs or None, address)
    return make_backend(context, isolation, jobs)


def _workers_for(jobs: int, schedules: list[tuple[GamePlan, Schedule, int]]) -> int:
    """``--jobs``, but never more workers than the run has games left to play (``-j 256`` for
    four games started 256 processes); 0 (in this process) stays 0."""
    left = sum(schedule.games - done for _, schedule, done in schedules)
    return min(jobs, max(1, left)) if jobs > 0 else jobs


def _open_run(store: Store, tournament: Tournament, resume: bool) -> tuple[int, bool]:
    """The stored run to continue (its settings brought up to date), or a new one."""
    identity = tournament.identity()
    run = store.find_run(identity) if resume else None
    if run is None:
        return store.start_run(tournament.seed, identity, tournament.settings()), False
    if run.settings != tournament.settings():
        store.set_run_settings(run.id, tournament.settings())
    return run.id, True


def _schedules(
    tournament: Tournament, registry: Registry, store: Store, run_id: int
) -> tuple[dict[str, Game], list[tuple[GamePlan, Schedule, int]]]:
    """The game objects by name, and each game's schedule with the number of its games stored."""
    games = {}
    schedules = []
    for plan in tournament.plans:
        game_class = registry.games[plan.game].cls
        games[plan.game] = game_class(players=plan.players, variant=plan.variant, **plan.params)
        done = store.games_done(run_id, plan.game)
        schedules.append((plan, schedule_for(plan, tournament), done))
    return games, schedules


def schedule_for(plan: GamePlan, tournament: Tournament) -> Schedule:
    """The schedule of one game of the tournament (lazy: nothing is drawn before it is played)."""
    return Schedule(
        plan.game,
        plan.bots,
        plan.players,
        tournament.games_per_game,
        tournament.seed,
        tournament.duplicate,
        plan.pairing,
        plan.gauntlet,
        plan.environment,
    )


def _rounds_left(
    schedule: Schedule, done: int, stored: Callable[[], list[tuple[int, int, dict]]]
) -> Iterator[list[ScheduledGame]]:
    """The rounds of the games not stored yet. A pairing drawn from results is given the stored
    games' placings (``stored()``, in schedule order) instead of playing them, so that it draws
    the rounds after them as the interrupted run would have."""
    placings = (p for _, _, p in stored()) if schedule.adaptive and done else iter(())
    for games in schedule.rounds():
        left = [item for item in games if item.index >= done]
        if schedule.adaptive:
            for item in games[: len(games) - len(left)]:
                schedule.record(item, next(placings))
        if left:
            yield left


class _Saver:
    """Stores batches of rated games; a Ctrl-C never interrupts a database write: the flag is
    checked after it."""

    def __init__(self, store: Store, run_id: int, interrupt: Interrupt):
        self.store = store
        self.run_id = run_id
        self.interrupt = interrupt
        self.saving = False
        self.pid = os.getpid()

    def on_interrupt(self, signum, frame) -> None:
        if os.getpid() != self.pid:
            # A game worker forked a moment ago, before it ignores Ctrl-C: the run's business.
            return
        self.interrupt.requested = True
        if not self.saving:
            raise KeyboardInterrupt

    def save(self, batch: list, game: str, table: RatingTable) -> None:
        self.saving = True
        try:
            self.store.save_batch(self.run_id, batch, game, table.states())
        finally:
            self.saving = False
        if self.interrupt.requested:
            raise KeyboardInterrupt


class _ctrl_c:
    """The saver's SIGINT handler while the run plays (in the main thread only)."""

    def __init__(self, saver: _Saver):
        self.saver = saver
        self.previous = None
        self.in_main = threading.current_thread() is threading.main_thread()

    def __enter__(self) -> None:
        if self.in_main:
            self.previous = signal.signal(signal.SIGINT, self.saver.on_interrupt)

    def __exit__(self, *exc) -> None:
        if self.in_main:
            signal.signal(signal.SIGINT, self.previous)


def _play_plan(
    plan: GamePlan,
    schedule: Schedule,
    done: int,
    backend: Backend,
    saver: _Saver,
    summary: RunSummary,
    progress: ProgressCallback | None,
    stopper: Stopper | None = None,
    fail_fast: bool = False,
) -> None:
    """Play one game's schedule from game ``done`` on; rate and store the outcomes in schedule
    order, in batches, until the ``stopper`` (if any) says to stop."""
    if stopper is not None and stopper.decided:
        return  # decided already: the run stopped after its deciding board, before it was finished
    table = RatingTable(plan.environment, saver.store.rating_states(plan.game))
    batch: list = []
    last_flush = time.perf_counter()
    total = schedule.games
    count = done
    if progress:
        progress(plan.game, count, total)
    stored = partial(saver.store.run_placings, saver.run_id, plan.game)
    try:
        for item, outcome in backend.outcomes_by_round(_rounds_left(schedule, done, stored)):
            placings = outcome.placings()
            _rate(table, placings, plan.game)
            schedule.record(item, placings)
            batch.append((item.index, item.board, outcome, placings))
            summary.games_played += 1
            summary.decisions += outcome.decisions
            count += 1
            if fail_fast and outcome.fault_log:
                raise _FailFast(plan.game, item.index, outcome, outcome.fault_log[0])
            if stopper is not None and stopper.add(item.board, placings):
                break
            now = time.perf_counter()
            if now - last_flush > FLUSH_SECONDS or len(batch) >= FLUSH_GAMES:
                pending, batch = batch, []
                saver.save(pending, plan.game, table)
                last_flush = now
                if progress:
                    progress(plan.game, count, total)
    finally:
        # Everything rated so far is stored, even when the run is interrupted.
        if batch:
            saver.save(batch, plan.game, table)
    if progress:
        progress(plan.game, count, total)


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


def default_jobs(isolation: str = "shared") -> int:
    """One game worker per core; with ``--isolation process``, one per two cores: a worker's bot
    processes keep about one more core busy (on two cores, one worker plays 8 % faster than two,
    ``arena bench``)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    return max(1, cores // 2 if isolation == "process" else cores)


def _detail(exc: BaseException) -> str:
    """What an arithmetic error says, without its errno: ``OverflowError(34, 'Numerical result
    out of range')`` says "Numerical result out of range"."""
    return str(exc.args[-1]) if exc.args else type(exc).__name__
