"""The ``arena`` command. Thin: each command hands over to functions that are tested on their own.

Every error the user can cause ends as one line on stderr and exit code 2 (1 for a failed run).
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path
from typing import Annotated

import typer

from arena import __version__

app = typer.Typer(
    help="Pit card-playing bots against each other under exact rules; rate them with TrueSkill.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

BotsDir = Annotated[
    list[Path] | None,
    typer.Option(
        "--bots-dir",
        help="Folder of bot files, repeatable [default: ./bots, or $ARENA_BOTS_DIR].",
    ),
]
DbPath = Annotated[
    Path | None, typer.Option("--db", help="Results database [default: leaderboard/arena.db].")
]


def fail(message: str, code: int = 2) -> typer.Exit:
    typer.echo(f"arena: error: {message}", err=True)
    return typer.Exit(code=code)


def _folders(bots_dir: Path | list[Path] | None) -> list:
    """The --bots-dir folders given (none: the default ones)."""
    return [bots_dir] if isinstance(bots_dir, Path | str) else list(bots_dir or [])


def _registry(
    bots_dir: Path | list[Path] | None,
    quiet: bool = False,
    isolated: bool = False,
    memory_mib: int = 1024,
):
    """The registry; ``isolated``: bot files imported only by a sandboxed loading process."""
    from arena.execution.process.loading import load_registry_isolated
    from arena.plugins.loading import load_registry

    folders = _folders(bots_dir)
    for folder in folders:
        if not Path(folder).is_dir():
            raise fail(f"--bots-dir {folder}: no such folder")
    if isolated:
        registry = load_registry_isolated(folders or None, memory_mib=memory_mib)
    else:
        registry = load_registry(folders or None)
    if not quiet:
        _warn(registry)
    return registry


def _warn(registry) -> None:
    for error in registry.errors:
        typer.echo(f"arena: warning: {error}", err=True)


class _TryAgain(Exception):
    """The run was settled against a registry that is not the one it is played with."""


def _open_store(db: Path, create: bool = True):
    from arena.store.database import Store, StoreError

    try:
        return Store(db, create=create)
    except StoreError as exc:
        raise fail(str(exc)) from None


def _split(values: list[str] | None) -> list[str] | None:
    """The names of a comma-separated option, None if it was not given; an option given with no
    name in it (``--bots ''``) is an error, not "every bot"."""
    if values is None:
        return None
    names = [n.strip() for v in values for n in v.split(",") if n.strip()]
    if not names:
        raise fail("--bots names no bot; leave it out to play every bot")
    return names


@app.callback(invoke_without_command=True)
def _root(
    version: Annotated[bool, typer.Option("--version", help="Print the version and exit.")] = False,
) -> None:
    if version:
        typer.echo(f"arena {__version__}")
        raise typer.Exit()


@app.command()
def run(
    tournament_file: Annotated[
        Path | None, typer.Argument(help="A tournament file (TOML), e.g. tournaments/example.toml.")
    ] = None,
    games: Annotated[
        int | None,
        typer.Option("--games", "-n", help="Games of each game in this run. [default: 100]"),
    ] = None,
    game: Annotated[
        list[str] | None,
        typer.Option("--game", "-g", help="A game to play (repeatable). [default: all]"),
    ] = None,
    bots: Annotated[
        list[str] | None,
        typer.Option("--bots", "-b", help="Comma-separated bot names. [default: every bot]"),
    ] = None,
    players: Annotated[
        int | None,
        typer.Option(
            help="Table size of games that allow several (How Low Can You Go?: 2-10, default 4)."
        ),
    ] = None,
    seed: Annotated[
        str | None, typer.Option(help="Seed of the whole run. [default: a new one]")
    ] = None,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs",
            "-j",
            help="Game worker processes. [default: the number of cores; with --isolation process, half]",
        ),
    ] = None,
    move_time: Annotated[
        float | None, typer.Option(help="Seconds a bot may take per decision. [default: 1.0]")
    ] = None,
    max_faults: Annotated[
        int | None, typer.Option(help="Faults in one game before a bot forfeits it. [default: 3]")
    ] = None,
    isolation: Annotated[
        str | None,
        typer.Option(
            help="shared: bots run inside the game workers (fast; your own bots). process: every "
            "bot in its own process with its own limits (untrusted bots). [default: shared; a "
            "continued run: as it was played]"
        ),
    ] = None,
    bot_memory: Annotated[
        int | None,
        typer.Option(help="MiB of memory per bot process (process isolation). [default: 1024]"),
    ] = None,
    bot_cpu: Annotated[
        int | None,
        typer.Option(
            help="CPU seconds a bot process may use in all (process isolation). [default: no limit]"
        ),
    ] = None,
    db: DbPath = None,
    bots_dir: BotsDir = None,
    records: Annotated[
        bool, typer.Option("--records/--no-records", help="Store every game's full record.")
    ] = True,
    duplicate: Annotated[
        bool | None,
        typer.Option(
            "--duplicate/--no-duplicate",
            help="Seat rotations replay one deal (default); --no-duplicate: a new deal every game.",
            show_default=False,
        ),
    ] = None,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume",
            help="Continue the latest interrupted run in the database, with its isolation and bot "
            "limits.",
        ),
    ] = False,
    fmt: Annotated[str, typer.Option("--format", help="Format of the final tables.")] = "table",
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress display.")] = False,
) -> None:
    """Play round-robin tournaments, rate the bots with TrueSkill, print the leaderboard.

    Plays --games games of every game between every bot that plays it (duplicate format: seat
    rotations replay the same deal). Rerunning an interrupted command continues it.
    """
    from arena.execution.process.isolated_play import IsolationError
    from arena.execution.workers import WorkerError
    from arena.store.database import StoreError
    from arena.tournament.file import TournamentFileError, load_tournament_file
    from arena.tournament.plan import OPTIONS, PlanError, build_tournament, check_setting
    from arena.tournament.run import TournamentError, default_db, default_jobs, run_tournament
    from arena.views.leaderboard import FORMATS
    from arena.views.progress import Progress

    if fmt not in FORMATS:
        raise fail(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    settings: dict = {}
    sections = None
    if tournament_file is not None:
        try:
            loaded = load_tournament_file(tournament_file)
        except TournamentFileError as exc:
            raise fail(str(exc)) from None
        settings, sections = loaded.settings, loaded.games

    def pick(value, key, default):
        return value if value is not None else settings.get(key, default)

    def named(value, key):
        """How an error names a setting: its option, or the file and key it came from."""
        from_file = value is None and key in settings
        return f"{tournament_file}: {key}" if from_file else OPTIONS[key]

    # How bots run: given on this command line, else as the run being continued was played,
    # else from the file. Checked now, whichever is used.
    given = {"isolation": isolation, "bot_memory": bot_memory, "bot_cpu": bot_cpu}
    try:
        for key, value in given.items():
            if pick(value, key, None) is not None:
                check_setting(key, pick(value, key, None), named(value, key))
        n_jobs = pick(jobs, "jobs", None)
        if n_jobs is not None:
            check_setting("jobs", n_jobs, named(jobs, "jobs"))
    except PlanError as exc:
        raise fail(str(exc)) from None

    db_path = Path(pick(db, "db", None) or default_db())
    seed_value = pick(seed, "seed", None)
    if records and tournament_file is not None:
        records = settings.get("records", True)  # --no-records wins over the file
    file_dirs = settings.get("bots_dir")
    if bots_dir is None and file_dirs is not None:
        # Folders in a tournament file are relative to the working directory, like ./bots.
        bots_dir = [Path(d) for d in ([file_dirs] if isinstance(file_dirs, str) else file_dirs)]
    bot_names = _split(bots)
    from_file = {
        key
        for key, value in (
            ("games", games),
            ("move_time", move_time),
            ("max_faults", max_faults),
            ("bots", bot_names),
        )
        if value is None and key in settings
    }

    def settle(registry, final: bool):
        """The run this command plays or continues, and how: (store, tournament, the stored run
        it continues or None, the isolation and bot limits chosen). Not ``final``: _TryAgain
        instead of an error."""

        def stop(message: str) -> Exception:
            return fail(message) if final else _TryAgain()

        store = _open_store(db_path)
        try:
            if resume:
                previous = store.latest_unfinished_run()
                if previous is None:
                    raise stop(f"{db_path}: no interrupted run to resume")
                tournament = _tournament_from_identity(previous.config)
                missing = _missing_for(registry, tournament, bots_dir)
                if missing:
                    raise stop(missing)
            else:
                try:
                    tournament = build_tournament(
                        registry,
                        games=pick(games, "games", 100),
                        game_names=game,
                        bots=pick(bot_names, "bots", None),
                        players=players,
                        seed=seed_value,
                        move_time=pick(move_time, "move_time", 1.0),
                        max_faults=pick(max_faults, "max_faults", 3),
                        records=records,
                        sections=sections,
                        duplicate=pick(duplicate, "duplicate", True),
                        source=tournament_file,
                        from_file=from_file,
                    )
                except PlanError as exc:
                    raise stop(str(exc)) from None
                if seed_value is None:
                    # Rerunning the same command without --seed continues its interrupted run.
                    for run in store.unfinished_runs():
                        if {**run.config, "seed": tournament.seed} == tournament.identity():
                            tournament.seed = run.seed
                            break
                previous = store.find_run(tournament.identity())
        except BaseException:
            store.close()
            raise
        # A continued run keeps the isolation and bot limits it was played with (a run stored
        # before they were kept has none: the file's or the defaults), unless this command says.
        kept = previous.settings if previous is not None else {}
        defaults = {"isolation": "shared", "bot_memory": 1024, "bot_cpu": None}
        chosen = {}
        for key, value in given.items():
            if value is not None:
                chosen[key] = value
            elif key in kept and _usable(key, kept[key]):
                chosen[key] = kept[key]
            else:
                chosen[key] = settings.get(key, defaults[key])
        return store, tournament, previous, chosen

    # With --isolation process no bot file runs here, where the results are kept, not even to be
    # loaded: the files are loaded in loading processes of their own whenever the run may be
    # process-isolated. When only an unfinished process-isolated run of the database says it may
    # (a continued run keeps its isolation), that is settled first, quietly; a run that is not
    # that one after all loads its files here and is settled again.
    isolated = _may_run_isolated(given["isolation"], settings.get("isolation"), db_path)
    maybe = isolated and given["isolation"] is None and settings.get("isolation") != "process"
    loading_memory = pick(bot_memory, "bot_memory", 1024)
    registry = _registry(bots_dir, quiet=maybe, isolated=isolated, memory_mib=loading_memory)
    try:
        store, tournament, previous, chosen = settle(registry, final=not maybe)
        if maybe and chosen["isolation"] == "shared":
            store.close()
            raise _TryAgain()
        if maybe:
            _warn(registry)
    except _TryAgain:
        registry = _registry(bots_dir)
        store, tournament, previous, chosen = settle(registry, final=True)
    mode = chosen["isolation"]
    if n_jobs is None:
        n_jobs = default_jobs(mode)
    tournament.isolation = mode
    tournament.bot_memory, tournament.bot_cpu = chosen["bot_memory"], chosen["bot_cpu"]
    for plan in tournament.plans:
        typer.echo(
            f"{plan.game}: {tournament.games} games, {plan.players} seats, bots: {', '.join(plan.bots)}",
            err=True,
        )
    how = mode
    if given["isolation"] is None and mode != settings.get("isolation", "shared"):
        how += f" (kept from run {previous.id}; --isolation to change it)"
    typer.echo(
        f"seed {tournament.seed}, {n_jobs} job(s), isolation {how}, results in {db_path}", err=True
    )
    progress = Progress(enabled=not quiet)
    try:
        with progress:
            summary = run_tournament(
                tournament, registry, store, jobs=n_jobs, resume=True, progress=progress.update
            )
    except (StoreError, TournamentError, WorkerError, IsolationError) as exc:
        store.close()
        raise fail(str(exc), code=1) from None
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
    if summary.interrupted:
        # A command that works as printed: the run's database and bot folders (isolation and
        # bot limits are stored with the run).
        again = ["arena", "run", "--resume"]
        if db_path != default_db():
            again += ["--db", str(db_path)]
        for folder in _folders(bots_dir):
            again += ["--bots-dir", str(folder)]
        typer.echo(
            f"interrupted: finished games are stored and rated; continue with: {shlex.join(again)}",
            err=True,
        )
        store.close()
        raise typer.Exit(code=130)
    _print_tables(store, [p.game for p in tournament.plans], fmt)
    store.close()


def _print_tables(store, games: list[str], fmt: str, head_to_head: bool = False) -> None:
    from arena.store.database import StoreError
    from arena.views.leaderboard import render

    try:
        typer.echo(render(store, games, fmt, head_to_head=head_to_head))
    except StoreError as exc:
        store.close()
        raise fail(str(exc)) from None


def _tournament_from_identity(config: dict):
    from arena.ratings.trueskill import Environment
    from arena.tournament.plan import GamePlan, Tournament

    plans = [
        GamePlan(
            game=p["game"],
            players=p["players"],
            bots=list(p["bots"]),
            variant=p.get("variant"),
            params=dict(p.get("params", {})),
            environment=Environment(**p["environment"]),
        )
        for p in config["plans"]
    ]
    return Tournament(
        plans=plans,
        games=config["games"],
        seed=config["seed"],
        move_time=config["move_time"],
        max_faults=config["max_faults"],
        records=config["records"],
        duplicate=config.get("duplicate", True),
    )


def _may_run_isolated(given: str | None, in_file: str | None, db_path: Path) -> bool:
    """Whether the run may be played with --isolation process: said so on the command line, or
    (unless the command line says otherwise) in the tournament file or by an unfinished run of
    the database, which a continued run follows."""
    if given is not None:
        return given == "process"
    if in_file == "process":
        return True
    if not db_path.exists():
        return False
    store = _open_store(db_path, create=False)
    try:
        return any(run.settings.get("isolation") == "process" for run in store.unfinished_runs())
    finally:
        store.close()


def _usable(key: str, value) -> bool:
    """A setting stored with a run that this arena can use."""
    from arena.tournament.plan import PlanError, check_setting

    if key == "bot_cpu" and value is None:
        return True
    try:
        check_setting(key, value)
    except PlanError:
        return False
    return True


def _missing_for(registry, tournament, bots_dir) -> str | None:
    """Why the run cannot be continued with these games and bots, if it cannot."""
    from arena.plugins.loading import default_bots_dirs

    for plan in tournament.plans:
        if plan.game not in registry.games:
            return f"cannot resume: game {plan.game!r} is no longer registered"
        for bot in plan.bots:
            if bot not in registry.bots:
                folders = ", ".join(map(str, _folders(bots_dir) or default_bots_dirs()))
                return (
                    f"cannot resume: bot {bot!r} is no longer loaded (bot folders: {folders}; "
                    "name the run's with --bots-dir)"
                )
    return None


@app.command()
def leaderboard(
    game: Annotated[
        list[str] | None, typer.Option("--game", "-g", help="Only this game (repeatable).")
    ] = None,
    fmt: Annotated[
        str, typer.Option("--format", "-f", help="table, markdown, json or csv.")
    ] = "table",
    head_to_head: Annotated[
        bool,
        typer.Option(
            "--head-to-head", help="Also show how often each bot finished ahead of each other."
        ),
    ] = False,
    reset: Annotated[
        bool, typer.Option("--reset", help="Delete every result and rating in the database.")
    ] = False,
    db: DbPath = None,
) -> None:
    """Print the leaderboard tables (one per game), sorted by the conservative score μ − 3σ."""
    from arena.tournament.run import default_db
    from arena.views.leaderboard import FORMATS

    if fmt not in FORMATS:
        raise fail(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    db_path = db or default_db()
    if reset:
        store = _open_store(db_path)
        from arena.store.database import StoreError

        try:
            store.reset()
        except StoreError as exc:
            raise fail(str(exc)) from None
        store.close()
        typer.echo(f"{db_path}: every result and rating deleted", err=True)
        return
    store = _open_store(db_path, create=False)
    from arena.store.database import StoreError

    try:
        known = store.rated_games()
    except StoreError as exc:
        store.close()
        raise fail(str(exc)) from None
    if game:
        from arena.plugins.loading import load_games

        aliases = load_games().aliases
        wanted = [aliases.get(g, g) for g in game]
        for g in wanted:
            if g not in known:
                raise fail(
                    f"no results for game {g!r} in {db_path} (have: {', '.join(known) or 'none'})"
                )
        known = wanted
    if not known:
        typer.echo(f"{db_path}: no games played yet; run `arena run --games 1000`", err=True)
    else:
        _print_tables(store, known, fmt, head_to_head)
    store.close()


@app.command()
def bots(
    bots_dir: BotsDir = None,
    isolation: Annotated[
        str,
        typer.Option(
            help="shared: import the bot files here; process: only in a sandboxed loading "
            "process, as `arena run --isolation process` does (for files you do not trust)."
        ),
    ] = "shared",
) -> None:
    """List the loaded bots with their games and source files, and every bot file that failed."""
    from tabulate import tabulate

    if isolation not in ("shared", "process"):
        raise fail(f"--isolation must be shared or process, not {isolation!r}")
    registry = _registry(bots_dir, quiet=True, isolated=isolation == "process")
    rows = []
    for spec in sorted(registry.bots.values(), key=lambda s: s.name):
        games = ", ".join(sorted(spec.games)) if spec.games is not None else "every game"
        settings = ", ".join(f"{k}={v!r}" for k, v in spec.settings)
        rows.append([spec.name, games, settings, spec.source])
    if rows:
        typer.echo(
            tabulate(rows, headers=["bot", "games", "settings", "source"], tablefmt="simple")
        )
    else:
        typer.echo("no bots loaded (put bot files in ./bots or use --bots-dir)")
    for error in registry.errors:
        typer.echo(f"failed: {error}")
    from arena.plugins.loading import default_bots_dirs

    for folder, unloaded in _unloaded_subfolders(_folders(bots_dir) or default_bots_dirs()):
        typer.echo(
            f"not loaded: {unloaded}/ holds bot files (only files directly in a bots folder "
            f"are loaded); add them with --bots-dir {folder} --bots-dir {unloaded}"
        )


def _unloaded_subfolders(folders: list) -> list[tuple[Path, Path]]:
    """(folder, sub-folder) for each sub-folder of a bots folder with ``*.py`` files in it that is
    not itself loaded: e.g. the bundled search bots in ``bots/search/``."""
    loaded = {Path(f).resolve() for f in folders}
    found = []
    for folder in map(Path, folders):
        try:
            subs = sorted(p for p in folder.iterdir() if p.is_dir())
        except OSError:
            continue
        for sub in subs:
            if sub.name[0] in "._" or sub.resolve() in loaded:
                continue
            if any(f.name[0] != "_" for f in sub.glob("*.py")):
                found.append((folder, sub))
    return found


@app.command()
def games(bots_dir: BotsDir = None) -> None:
    """List the registered games with their table sizes, parameters and variants."""
    from tabulate import tabulate

    registry = _registry(bots_dir, quiet=True)
    rows = []
    for spec in sorted(registry.games.values(), key=lambda s: s.name):
        cls = spec.cls
        size = (
            str(cls.min_players)
            if cls.min_players == cls.max_players
            else (f"{cls.min_players}-{cls.max_players} (default {cls.default_players})")
        )
        params = ", ".join(f"{k}={v}" for k, v in cls.parameters.items())
        rows.append(
            [cls.name, ", ".join(cls.aliases), size, params, ", ".join(cls.variants), spec.source]
        )
    typer.echo(
        tabulate(rows, headers=["game", "aliases", "players", "parameters", "variants", "source"])
    )
    for error in registry.errors:
        typer.echo(f"failed: {error}")


@app.command("new-bot")
def new_bot(
    name: Annotated[str, typer.Argument(help="The bot's name on the leaderboard, e.g. my-bot.")],
    game: Annotated[str, typer.Option("--game", "-g", help="The game it plays.")],
    bots_dir: Annotated[
        Path | None, typer.Option("--bots-dir", help="Where to write it [default: ./bots].")
    ] = None,
) -> None:
    """Write bots/NAME.py: a commented bot for GAME that loads and plays legally at once."""
    from arena.plugins.loading import default_bots_dirs, load_registry
    from arena.scaffold import ScaffoldError, write_bot_file

    folder = bots_dir or default_bots_dirs()[0]
    try:
        path = write_bot_file(name, game, folder, registry=load_registry(folder))
    except ScaffoldError as exc:
        raise fail(str(exc)) from None
    typer.echo(f"wrote {path}; try: arena run --bots {name},random --games 200")


@app.command()
def bench(
    games: Annotated[
        int, typer.Option("--games", "-n", help="Games per measurement.", min=1)
    ] = 300,
    repeats: Annotated[int, typer.Option(help="Repeats; the median is printed.", min=1)] = 5,
    harness: Annotated[
        bool,
        typer.Option(
            "--harness/--engine-only", help="Also measure full runs (referee, ratings, storage)."
        ),
    ] = True,
) -> None:
    """Measure decisions per second of the bare engines and of full runs with four random bots."""
    from arena.bench.harness import run_bench

    run_bench(games=games, repeats=repeats, harness=harness, echo=typer.echo)


def _register_more_commands() -> None:
    """Commands kept in modules of their own (game records, a human seat) join the same app."""
    from arena.cli import records as cli_records

    cli_records.register(app)


_register_more_commands()


def main(argv: list[str] | None = None) -> int:
    """The console script: like ``app()``, but every usage error is one line and no traceback."""
    try:
        code = app(args=argv, prog_name="arena", standalone_mode=False)
    except KeyboardInterrupt:
        typer.echo("arena: interrupted", err=True)
        return 130
    except Exception as exc:
        if hasattr(exc, "format_message") and hasattr(exc, "exit_code"):  # click's usage errors
            typer.echo(f"arena: error: {exc.format_message()}", err=True)
            return exc.exit_code
        if os.environ.get("ARENA_DEBUG"):
            raise
        typer.echo(
            f"arena: internal error: {type(exc).__name__}: {exc} "
            "(please report it; ARENA_DEBUG=1 shows the traceback)",
            err=True,
        )
        return 1
    return code if isinstance(code, int) else 0


def run_main() -> None:  # pragma: no cover - the console script
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    run_main()
