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
    check_format,
    fail,
    load_registry,
    names,
    open_store,
    print_tables,
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
Format = Annotated[str, typer.Option("--format", help="Format of the final tables.")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress display.")]
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
    max_faults: MaxFaults = None,
    isolation: Isolation = None,
    bot_memory: BotMemory = None,
    bot_cpu: BotCpu = None,
    db: DbPath = None,
    bots_dirs: BotsDir = None,
    records: Records = True,
    duplicate: Duplicate = None,
    resume: Resume = False,
    fmt: Format = "table",
    quiet: Quiet = False,
    report_file: ReportFile = None,
) -> None:
    """Play round-robin tournaments, rate the bots with TrueSkill, print the leaderboard.

    Plays --games games of every game between every bot that plays it (duplicate format: seat
    rotations replay the same deal). Rerunning an interrupted command continues it.
    """
    from arena.tournament.run_plan import RunOptions
    from arena.views.leaderboard import FORMATS

    check_format(fmt, FORMATS)
    bots = names(bots)
    given = locals()  # every option but the format and --quiet is a RunOptions field, same name
    options = RunOptions(**{f.name: given[f.name] for f in fields(RunOptions)})
    plan = _plan(options, tournament_file)
    registry, store, settled = _settle(plan)
    try:
        summary = _play(plan, registry, store, settled, quiet)
        if report_file is not None:  # an interrupted run too: what is stored is worth seeing
            _write_report(store, registry, report_file)
        if summary.interrupted:
            _say_how_to_continue(plan)
            raise typer.Exit(code=130)
        print_tables(store, [p.game for p in settled.tournament.plans], fmt, registry=registry)
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
    try:
        return plan_run(options, loaded, _unfinished_runs, default_db())
    except PlanError as exc:
        raise fail(str(exc)) from None


def _unfinished_runs(db: Path) -> list:
    """The database's unfinished runs, newest first (none if there is no database yet)."""
    if not db.exists():
        return []
    store = open_store(db, create=False)
    try:
        return store.unfinished_runs()
    finally:
        store.close()


def _settle(plan):
    """(registry, store, settled run), or a one-line error."""
    from arena.limits import PlanError
    from arena.tournament.settle import settle

    try:
        return settle(plan, load_registry, open_store, warn)
    except PlanError as exc:
        raise fail(str(exc)) from None


def _play(plan, registry, store, settled, quiet: bool):
    """Play (or continue) the settled run with a progress display; report what was played."""
    from arena.execution.process.bot_process import IsolationError
    from arena.execution.workers import WorkerError
    from arena.store.database import StoreError
    from arena.tournament.run import TournamentError, run_tournament
    from arena.views.progress import Progress

    _announce(plan, settled)
    progress = Progress(enabled=not quiet)
    try:
        with progress:
            summary = run_tournament(
                settled.tournament,
                registry,
                store,
                jobs=settled.jobs,
                resume=True,
                progress=progress.update,
            )
    except (StoreError, TournamentError, WorkerError, IsolationError) as exc:
        raise fail(str(exc), code=1) from None
    _report(summary)
    return summary


def _write_report(store, registry, path: Path) -> None:
    from arena.cli.report import write

    count = write(store, registry.game_classes(), path)
    typer.echo(f"{path}: report written ({count} games to replay)", err=True)


def _announce(plan, settled) -> None:
    tournament = settled.tournament
    for game_plan in tournament.plans:
        typer.echo(
            f"{game_plan.game}: {tournament.games_per_game} games, {game_plan.players} seats, "
            f"bots: {', '.join(game_plan.bots)}",
            err=True,
        )
    how = settled.isolation
    if plan.isolation_kept_from_run(settled.isolation):
        how += f" (kept from run {settled.previous.id}; --isolation to change it)"
    typer.echo(
        f"seed {tournament.seed}, {settled.jobs} job(s), isolation {how}, results in {plan.db}",
        err=True,
    )


def _report(summary) -> None:
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
