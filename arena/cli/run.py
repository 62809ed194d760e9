"""``arena run``: plan the run, load the bots as the plan says, play it, print the tables."""

from __future__ import annotations

import shlex
from dataclasses import fields
from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import (
    BotsDir,
    DbPath,
    Params,
    SandboxMode,
    SortBy,
    Variant,
    announce_sandbox,
    check_format,
    check_sort,
    fail,
    game_params,
    load_registry,
    names,
    open_store,
    print_tables,
    sandbox_settings,
    unfinished_runs,
    warn,
)

TournamentFileArgument = Annotated[
    Path | None, typer.Argument(help="A tournament file (TOML), e.g. tournaments/example.toml.")
]
GamesPerGame = Annotated[
    int | None,
    typer.Option("--games", "-n", help="Games of each game in this run. [default: 100]"),
]
GameNames = Annotated[
    list[str] | None,
    typer.Option("--game", "-g", help="A game to play (repeatable). [default: all]"),
]
BotNames = Annotated[
    list[str] | None,
    typer.Option("--bots", "-b", help="Comma-separated bot names. [default: every bot]"),
]
Players = Annotated[
    int | None,
    typer.Option(
        help="Table size of games that allow several (How Low Can You Go?: 2-10, default 4)."
    ),
]
Seed = Annotated[str | None, typer.Option(help="Seed of the whole run. [default: a new one]")]
Jobs = Annotated[
    int | None,
    typer.Option(
        "--jobs",
        "-j",
        help="Game worker processes. [default: the number of cores; with --isolation process, "
        "half]",
    ),
]
MoveTime = Annotated[
    float | None, typer.Option(help="Seconds a bot may take per decision. [default: 1.0]")
]
TimeBank = Annotated[
    float | None,
    typer.Option(
        help="Seconds each bot has for a whole game past --move-time: a decision may run over "
        "its move time by drawing on this bank; an empty bank is a timeout. [default: none]"
    ),
]
MaxFaults = Annotated[
    int | None, typer.Option(help="Faults in one game before a bot forfeits it. [default: 3]")
]
Isolation = Annotated[
    str | None,
    typer.Option(
        help="shared: bots run inside the game workers (fast; your own bots). process: every "
        "bot in its own process with its own limits (untrusted bots). [default: shared; a "
        "continued run: as it was played]"
    ),
]
BotMemory = Annotated[
    int | None,
    typer.Option(help="MiB of memory per bot process (process isolation). [default: 1024]"),
]
BotCpu = Annotated[
    int | None,
    typer.Option(
        help="CPU seconds a bot process may use in all (process isolation). [default: no limit]"
    ),
]
Records = Annotated[
    bool, typer.Option("--records/--no-records", help="Store every game's full record.")
]
Duplicate = Annotated[
    bool | None,
    typer.Option(
        "--duplicate/--no-duplicate",
        help="Seat rotations replay one deal (default); --no-duplicate: a new deal every game.",
        show_default=False,
    ),
]
Resume = Annotated[
    bool,
    typer.Option(
        "--resume",
        help="Continue the latest interrupted run in the database, with its isolation and bot "
        "limits.",
    ),
]
Again = Annotated[
    bool,
    typer.Option(
        "--again",
        help="Play a finished run's very games once more (same bots and versions, settings and "
        "seed); refused without it.",
    ),
]
FailFast = Annotated[
    bool,
    typer.Option(
        "--fail-fast",
        help="Stop at the first fault of any bot (for a bot under development): print its "
        "traceback and the observation it was answering.",
    ),
]
Pairing = Annotated[
    str | None,
    typer.Option(
        help="Who plays whom: round-robin, random (rounds of tables drawn from the field), "
        "gauntlet (every table holds a bot under test: --gauntlet), swiss (tables of similar "
        "standings), matchmaking (tables of close, uncertain ratings). [default: round-robin while "
        "one full round fits in --games, else random]",
        show_default=False,
    ),
]
Gauntlet = Annotated[
    list[str] | None,
    typer.Option(
        help="The bots under test of --pairing gauntlet (comma-separated; implies it).",
        show_default=False,
    ),
]
Format = Annotated[str, typer.Option("--format", help="Format of the final tables.")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress display.")]
BackendName = Annotated[
    str | None,
    typer.Option(
        "--backend",
        help="Where the games are played: local (this machine), or ray (Ray workers anywhere on "
        "a cluster; pip install 'arena[ray]'; docs/cluster.md). Results are the same. "
        "[default: local]",
        show_default=False,
    ),
]
RayAddress = Annotated[
    str | None,
    typer.Option(
        "--ray-address",
        help="The Ray cluster to join (host:port, or auto: the one `ray start` began here). "
        "[default with --backend ray: $RAY_ADDRESS, else a new local Ray instance]",
        show_default=False,
    ),
]
ReportFile = Annotated[
    Path | None,
    typer.Option(
        "--report",
        help="Write the HTML report of the database (as `arena report`) to this file at the end.",
    ),
]


def run(
    tournament_file: TournamentFileArgument = None,
    games_per_game: GamesPerGame = None,
    game_names: GameNames = None,
    bots: BotNames = None,
    players: Players = None,
    seed: Seed = None,
    jobs: Jobs = None,
    move_time: MoveTime = None,
    time_bank: TimeBank = None,
    max_faults: MaxFaults = None,
    isolation: Isolation = None,
    bot_memory: BotMemory = None,
    bot_cpu: BotCpu = None,
    db: DbPath = None,
    bots_dirs: BotsDir = None,
    records: Records = True,
    duplicate: Duplicate = None,
    resume: Resume = False,
    again: Again = False,
    variant: Variant = None,
    param: Params = None,
    fail_fast: FailFast = False,
    pairing: Pairing = None,
    gauntlet: Gauntlet = None,
    fmt: Format = "table",
    sort: SortBy = "conservative",
    quiet: Quiet = False,
    sandbox: SandboxMode = None,
    report_file: ReportFile = None,
    backend: BackendName = None,
    ray_address: RayAddress = None,
) -> None:
    """Play tournaments, rate the bots with TrueSkill, print the leaderboard.

    Plays --games games of every game between every bot that plays it (duplicate format: seat
    rotations replay the same deal), in a round robin or as --pairing says. Rerunning an
    interrupted command continues it.
    """
    from arena.tournament.run_plan import RunOptions
    from arena.views.leaderboard import FORMATS

    check_format(fmt, FORMATS)
    check_sort(sort)
    bots = names(bots)
    params = game_params(param)
    gauntlet = names(gauntlet)
    given = (
        locals()
    )  # every option but --format, --sort, --quiet and --sandbox is a RunOptions field
    options = RunOptions(**{f.name: given[f.name] for f in fields(RunOptions) if f.name in given})
    plan = _plan(options, tournament_file)
    # Bots must not see the database, whatever folder the sandbox shows them.
    if plan.backend == "ray":
        _need_ray()
    settings = sandbox_settings(sandbox, hidden=[Path(plan.db).parent])
    if plan.load_isolated:
        _out_of_bots_reach()
    registry, store, settled = _settle(plan, settings)
    try:
        summary = _play(plan, registry, store, settled, quiet, settings, fail_fast)
        if (
            report_file is not None
        ):  # a stopped or interrupted run too: what is stored is worth seeing
            _write_report(store, registry, report_file)
        _report_faults(plan, store, summary)
        if summary.stopped_by is not None:
            _report_stop(store, registry, summary)
            raise typer.Exit(code=1)
        if summary.interrupted:
            _say_how_to_continue(plan)
            raise typer.Exit(code=130)
        plans = settled.tournament.plans
        fielded = [[registry.bots[bot].plugin_name for bot in p.bots] for p in plans]
        print_tables(
            store,
            [p.game for p in plans],
            fmt,
            registry=registry,
            sort=sort,
            # all versions of the bots when two versions of a bot played
            all_versions=any(len(names) > len(set(names)) for names in fielded),
        )
    finally:
        store.close()


def _plan(options, tournament_file: Path | None):
    """The checked plan of the run; decided before any bot file is loaded."""
    from arena.limits import PlanError
    from arena.tournament.file import TournamentFileError, load_tournament_file
    from arena.tournament.run import default_db
    from arena.tournament.run_plan import plan_run

    loaded = None
    if tournament_file is not None:
        try:
            loaded = load_tournament_file(tournament_file)
        except TournamentFileError as exc:
            raise fail(str(exc)) from None
        if options.bots_dirs is None:
            _check_file_folders(loaded)
    try:
        return plan_run(options, loaded, unfinished_runs, default_db())
    except PlanError as exc:
        raise fail(str(exc)) from None


def _need_ray() -> None:
    """--backend ray without Ray installed: one line, before any bot file is loaded."""
    from arena.execution.cluster.connect import NOT_INSTALLED, ray_installed

    if not ray_installed():
        raise fail(NOT_INSTALLED)


def _out_of_bots_reach() -> None:
    """This process non-dumpable: a bot process of the same user can then neither write into
    its output through ``/proc/PID/fd/1`` nor read its memory (the sandbox hides it from root)."""
    from arena.execution.process.sandbox import no_memory_access

    no_memory_access()


def _check_file_folders(loaded) -> None:
    """A folder of the file's bots_dir that is missing, named as the file's key (the one-line
    error of load_registry would name --bots-dir, which the user did not give)."""
    folders = loaded.settings.get("bots_dir") or []
    for folder in [folders] if isinstance(folders, str) else folders:
        if not Path(folder).is_dir():
            raise fail(f"{loaded.path}: bots_dir: {folder}: no such folder")


def _settle(plan, sandbox):
    """(registry, store, settled run), or a one-line error."""
    from functools import partial

    from arena.limits import PlanError
    from arena.tournament.settle import settle

    try:
        return settle(plan, partial(load_registry, sandbox=sandbox), open_store, warn)
    except PlanError as exc:
        raise fail(str(exc)) from None


def _play(plan, registry, store, settled, quiet: bool, sandbox, fail_fast: bool = False):
    """Play (or continue) the settled run with a progress display; report what was played."""
    from arena.execution.process.bot_process import IsolationError
    from arena.execution.workers import WorkerError
    from arena.store.database import StoreError
    from arena.tournament.run import TournamentError, run_tournament
    from arena.views.progress import Progress

    _announce(plan, settled, sandbox, _fields_programs(registry, settled))
    progress = Progress(enabled=not quiet)
    try:
        with progress:
            summary = run_tournament(
                settled.tournament,
                registry,
                store,
                # on Ray: at most --jobs workers if given, else the whole cluster
                jobs=settled.jobs if plan.backend == "local" else plan.jobs or 0,
                resume=True,
                progress=progress.update,
                fail_fast=fail_fast,
                sandbox=sandbox,
                backend=plan.backend,
                ray_address=plan.ray_address,
                announce=lambda line: typer.echo(line, err=True),
            )
    except (StoreError, TournamentError, WorkerError, IsolationError) as exc:
        raise fail(str(exc), code=1) from None
    _report(summary)
    return summary


def _write_report(store, registry, path: Path) -> None:
    from arena.cli.report import write

    count = write(store, registry.game_classes(), path)
    typer.echo(f"{path}: report written ({count} games to replay)", err=True)


def _fields_programs(registry, settled) -> bool:
    """Whether the run seats a program bot (bots/*.toml): its programs are sandboxed in both
    isolation modes, so the sandbox line is printed (and this process kept out of their reach)."""
    names = {name for game_plan in settled.tournament.plans for name in game_plan.bots}
    bots = registry.bots
    return any(
        bots[name].origin and bots[name].origin[0] == "manifest" for name in names if name in bots
    )


def _announce(plan, settled, sandbox, programs: bool = False) -> None:
    from arena.views.fields import describe_plan

    tournament = settled.tournament
    for game_plan in tournament.plans:
        typer.echo(describe_plan(game_plan, tournament.games_per_game), err=True)
    how = settled.isolation
    if plan.isolation_kept_from_run(settled.isolation):
        how += f" (kept from run {settled.previous.id}; --isolation to change it)"
    jobs = f"{settled.jobs} job(s)"
    if plan.backend == "ray":
        jobs = "backend ray"  # (where, and how many workers: the backend's line, next)
    bank = "" if tournament.time_bank is None else f", time bank {tournament.time_bank:g} s"
    typer.echo(
        f"seed {tournament.seed}, {jobs}, isolation {how}{bank}, results in {plan.db}", err=True
    )
    if settled.isolation == "process" or programs:
        announce_sandbox(sandbox, tournament.bot_memory)


def _report(summary) -> None:
    from arena.views.fields import describe_games_per_bot

    if summary.resumed and summary.games_skipped:
        typer.echo(
            f"resumed run {summary.run_id}: {summary.games_skipped} games were already stored",
            err=True,
        )
    rate = summary.games_played / summary.seconds if summary.seconds > 0 else 0.0
    typer.echo(
        f"played {summary.games_played} games ({summary.decisions:,} decisions) in "
        f"{summary.seconds:.1f} s, {rate:,.0f} games/s",
        err=True,
    )
    for game, counts in summary.games_per_bot.items():
        line = describe_games_per_bot(game, counts)
        if line:
            typer.echo(line, err=True)


def _report_faults(plan, store, summary) -> None:
    """One line per bot that faulted in the run, and the command that shows the faults."""
    from arena.store.database import StoreError
    from arena.tournament.run import default_db
    from arena.views.faults import summary_lines

    show = ["arena", "faults", "--run", str(summary.run_id)]
    if plan.db != default_db():
        show += ["--db", str(plan.db)]
    try:
        counts = store.fault_counts(summary.run_id)
    except StoreError as exc:
        raise fail(str(exc), code=1) from None
    for line in summary_lines(counts, summary.run_id, shlex.join(show)):
        typer.echo(line, err=True)


def _report_stop(store, registry, summary) -> None:
    """--fail-fast stopped the run: the fault, its traceback, the observation it answered."""
    from arena.games.base import RecordError
    from arena.games.record import expand
    from arena.views.faults import fail_fast_report, observation_at

    game, index, outcome, fault = summary.stopped_by
    shown = {
        "game_id": store.game_id(summary.run_id, game, index),
        "run": summary.run_id,
        "game": game,
        "bot": outcome.bots[fault.seat],
        "traceback": fault.detail,
        **fault.to_json(),
    }
    observation, note = None, "(no record of the game: --no-records)"
    if outcome.record is not None:
        try:
            record = expand(outcome.record, registry.game_classes())
            observation = observation_at(
                record, registry.game_classes(), fault.seat, fault.decision
            )
        except RecordError as exc:
            note = f"(its record cannot be read: {exc})"
    typer.echo(fail_fast_report(shown, observation, note), err=True)


def _say_how_to_continue(plan) -> None:
    """A command that works as printed: the run's database and bot folders (isolation and bot
    limits are stored with the run)."""
    from arena.tournament.run import default_db

    again = ["arena", "run", "--resume"]
    if plan.db != default_db():
        again += ["--db", str(plan.db)]
    for folder in plan.bots_dirs:
        again += ["--bots-dir", str(folder)]
    typer.echo(
        f"interrupted: finished games are stored and rated; continue with: {shlex.join(again)}",
        err=True,
    )
