"""The run ``arena run`` plays, settled once the bot files are loaded as its plan says.

``settle`` loads the registry as ``RunPlan`` decided, builds the tournament (or takes the resumed
run's), finds the stored run it continues and applies how its bots run (isolation, bot limits) and
the number of game workers. The command line then only plays the ``SettledRun`` and prints.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from arena.limits import PlanError
from arena.plugins.loading import Registry, default_bots_dirs
from arena.store.database import RunInfo, Store
from arena.tournament.plan import Tournament, tournament_from_identity
from arena.tournament.run import default_jobs
from arena.tournament.run_plan import RunPlan, chosen_settings
from arena.tournament.versions import apply_versions, field_old_versions

# load_registry(bots_dirs, quiet=, isolated=, memory_mib=): the registry; unless quiet, it reports
# each bot file that failed to load.
LoadRegistry = Callable[..., Registry]


@dataclass
class SettledRun:
    """The run a command plays or continues, ready to play: its tournament carries how its bots
    run (``isolation``, ``bot_memory``, ``bot_cpu``)."""

    tournament: Tournament
    previous: RunInfo | None  # the stored run it continues
    jobs: int  # game workers

    @property
    def isolation(self) -> str:
        return self.tournament.isolation


def settle(
    plan: RunPlan,
    load_registry: LoadRegistry,
    open_store: Callable[[Path], Store],
    warn: Callable[[Registry], None],
) -> tuple[Registry, Store, SettledRun]:
    """(the registry, the open store, the settled run). Raises ``PlanError``; the store is closed
    on any error.

    The bot files are loaded once, as the plan says. The one exception: when loading them isolated
    was a guess (``plan.loading_is_a_guess``) and the run settled turns out not to be played with
    process isolation (or cannot be settled with the bots loaded so), they are loaded a second
    time, here in arena's process, and the run is settled again. Until the guess is confirmed the
    first loading is quiet, so each load error is reported once (``warn``)."""
    registry = load_registry(
        plan.bots_dirs,
        quiet=plan.loading_is_a_guess,
        isolated=plan.load_isolated,
        memory_mib=plan.loading_memory,
    )
    if plan.loading_is_a_guess:
        guessed = _settle_if_isolated(plan, registry, open_store)
        if guessed is not None:
            warn(registry)
            return registry, *guessed
        registry = load_registry(plan.bots_dirs)  # the guess was wrong: the second load
    made = _made_by_opening(plan.db)
    store = open_store(plan.db)
    try:
        return registry, store, settle_run(plan, registry, store)
    except BaseException:
        _close(store, made)  # a run that cannot be settled leaves no empty database behind
        raise


def _settle_if_isolated(
    plan: RunPlan, registry: Registry, open_store: Callable[[Path], Store]
) -> tuple[Store, SettledRun] | None:
    """(store, settled run) if the run settles and plays with process isolation, else None."""
    made = _made_by_opening(plan.db)
    store = open_store(plan.db)
    try:
        settled = settle_run(plan, registry, store)
    except BaseException as exc:
        _close(store, made)
        if isinstance(exc, PlanError):
            return None
        raise
    if settled.isolation != "process":
        _close(store, made)
        return None
    return store, settled


def _made_by_opening(db: Path) -> list[Path]:
    """The database file and the folders above it that opening ``db`` would create."""
    made, path = [], db
    while not path.exists():
        made.append(path)
        if path.parent == path:
            break
        path = path.parent
    return made


def _close(store: Store, made: list[Path]) -> None:
    """Close the store; remove what opening it made, unless a run is in it by now (another
    command may have started one in the same new file meanwhile)."""
    try:
        unused = bool(made) and not store.run_ids()
    except Exception:  # (unreadable: not ours to remove)
        unused = False
    store.close()
    if unused:
        _remove_made(made)


def _remove_made(made: list[Path]) -> None:
    """Remove what opening a database made (``_made_by_opening``), if nothing else was put there."""
    if not made:
        return
    for extra in ("-wal", "-shm", "-journal"):
        made[0].with_name(made[0].name + extra).unlink(missing_ok=True)
    for path in made:
        try:
            path.unlink() if path == made[0] else path.rmdir()
        except OSError:
            return


def settle_run(plan: RunPlan, registry: Registry, store: Store) -> SettledRun:
    """The run this command plays or continues, and how its bots run. Raises ``PlanError``."""
    versions = apply_versions(registry, store)
    load_old = {"isolated": plan.load_isolated, "memory_mib": plan.loading_memory}
    if plan.resume:
        previous = store.latest_unfinished_run()
        if previous is None:
            raise PlanError(f"{plan.db}: no interrupted run to resume")
        tournament = tournament_from_identity(previous.config)
        bots = [bot for game_plan in tournament.plans for bot in game_plan.bots]
        field_old_versions(registry, store, versions, bots, stored_names=True, **load_old)
        missing = _missing_for(registry, tournament, plan.bots_dirs)
        if missing:
            raise PlanError(missing)
    else:
        request = plan.request
        sections = request.sections or []
        named = [
            *(request.bots or []),
            *(request.gauntlet or []),
            *(b for s in sections for b in [*(s.bots or []), *(s.gauntlet or [])]),
        ]
        field_old_versions(registry, store, versions, named, **load_old)
        tournament, previous = _continued(plan, registry, store)
        if previous is None and not plan.again:
            _refuse_a_finished_run(store, tournament)
    versions.record(store, [bot for game_plan in tournament.plans for bot in game_plan.bots])
    # A continued run keeps the isolation and bot limits it was played with (a run stored
    # before they were kept has none: the file's or the defaults), unless this command says.
    kept = previous.settings if previous is not None else {}
    chosen = chosen_settings(plan.given, kept, plan.in_file)
    tournament.isolation = chosen["isolation"]
    tournament.bot_memory, tournament.bot_cpu = chosen["bot_memory"], chosen["bot_cpu"]
    jobs = plan.jobs if plan.jobs is not None else default_jobs(tournament.isolation)
    return SettledRun(tournament, previous, jobs)


def _refuse_a_finished_run(store: Store, tournament: Tournament) -> None:
    """The same games again (same bots and versions, settings and seed) only with --again: they
    would count twice in the ratings for nothing."""
    done = store.finished_run(tournament.identity())
    if done is not None:
        raise PlanError(
            f"run {done.id} already played these very games (the same bots and versions, "
            f"settings and seed {tournament.seed}); add --again to play them once more, or "
            "choose another --seed"
        )


def _continued(
    plan: RunPlan, registry: Registry, store: Store
) -> tuple[Tournament, RunInfo | None]:
    """The tournament this command asks for, and the stored run it continues if there is one.
    A run stored before pairings existed was a round robin: rerunning its command continues it,
    even where the default pairing is now ``random``."""
    tournament = plan.request.build(registry)
    candidates = [tournament]
    if plan.request.pairing is None and any(p.pairing == "random" for p in tournament.plans):
        older = copy.deepcopy(tournament)
        for game_plan in older.plans:
            if game_plan.pairing == "random":
                game_plan.pairing = "round-robin"
        candidates.append(older)
    for candidate in candidates:
        if plan.request.seed is None:
            # Rerunning the same command without --seed continues its interrupted run.
            for run in store.unfinished_runs():
                if {**run.config, "seed": candidate.seed} == candidate.identity():
                    candidate.seed = run.seed
                    break
        previous = store.find_run(candidate.identity())
        if previous is not None:
            return candidate, previous
    return tournament, None


def _missing_for(registry: Registry, tournament: Tournament, bots_dirs: list[Path]) -> str | None:
    """Why the run cannot be continued with these games and bots, if it cannot."""
    for game_plan in tournament.plans:
        if game_plan.game not in registry.games:
            return f"cannot resume: game {game_plan.game!r} is no longer registered"
        for bot in game_plan.bots:
            if bot not in registry.bots:
                folders = ", ".join(map(str, bots_dirs or default_bots_dirs()))
                return (
                    f"cannot resume: bot {bot!r} is no longer loaded (bot folders: {folders}; "
                    "name the run's with --bots-dir)"
                )
    return None
