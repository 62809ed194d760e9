"""What the ``arena`` commands share: option types, the one-line error, the store, the registry.

Every error the user can cause ends as one line on stderr and exit code 2 (1 for a failed run).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

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
AsciiCards = Annotated[bool, typer.Option("--ascii", help="Write cards as QH, not Q♥.")]
Variant = Annotated[
    str | None, typer.Option("--variant", help="The game's variant (`arena games` lists them).")
]
Params = Annotated[
    list[str] | None,
    typer.Option(
        "--param",
        help="A game parameter, KEY=VALUE with a whole number (repeatable), e.g. max_deals=30.",
    ),
]


def game_params(values: list[str] | None) -> dict[str, int] | None:
    """The --param KEY=VALUE options as a dict (None if none was given); a bad one is an error."""
    from arena.tournament.file import MAX_PARAM

    if not values:
        return None
    params: dict[str, int] = {}
    for value in values:
        key, sign, number = value.partition("=")
        try:
            params[key.strip()] = parsed = int(number.strip())
        except ValueError:
            parsed = None
        if not sign or not key.strip() or parsed is None or abs(parsed) > MAX_PARAM:
            raise fail(
                f"--param {value}: write KEY=VALUE with a whole number between {-MAX_PARAM} and "
                f"{MAX_PARAM}, e.g. --param max_deals=30"
            )
    return params


def fail(message: str, code: int = 2) -> typer.Exit:
    typer.echo(f"arena: error: {message}", err=True)
    return typer.Exit(code=code)


def check_format(fmt: str, formats: tuple[str, ...] | list[str]) -> None:
    if fmt not in formats:
        if len(formats) == 2:
            raise fail(f"--format must be {formats[0]} or {formats[1]}, not {fmt!r}")
        raise fail(f"--format must be one of {', '.join(formats)}, not {fmt!r}")


def folders(bots_dir: Path | list[Path] | None) -> list:
    """The --bots-dir folders given (none: the default ones)."""
    return [bots_dir] if isinstance(bots_dir, Path | str) else list(bots_dir or [])


def names(values: list[str] | None) -> list[str] | None:
    """The names of a comma-separated option (``--bots a,b --bots c``), None if it was not
    given; empty if it was given with no name in it."""
    if values is None:
        return None
    return [n.strip() for v in values for n in v.split(",") if n.strip()]


def load_registry(
    bots_dir: Path | list[Path] | None,
    quiet: bool = False,
    isolated: bool = False,
    memory_mib: int = 1024,
    sandbox=None,
):
    """The registry; ``isolated``: bot files imported only by a sandboxed loading process
    (bubblewrap as ``sandbox``, a ``SandboxSettings``, says). Unless ``quiet``, each bot file
    that failed to load is a warning on stderr."""
    from arena.execution.process.sandboxed_loading import load_registry_isolated
    from arena.plugins.loading import load_registry as load_here

    given = folders(bots_dir)
    for folder in given:
        if not Path(folder).is_dir():
            raise fail(f"--bots-dir {folder}: no such folder")
    if not given:
        _check_bots_dir_variable()
    if isolated:
        registry = load_registry_isolated(given or None, memory_mib=memory_mib, sandbox=sandbox)
    else:
        registry = load_here(given or None)
    if not quiet:
        warn(registry)
    return registry


def _check_bots_dir_variable() -> None:
    """Each folder of $ARENA_BOTS_DIR exists (a missing ./bots, the default, is no error)."""
    from arena.plugins.loading import BOTS_DIR_ENV, default_bots_dirs

    if os.environ.get(BOTS_DIR_ENV):
        for folder in default_bots_dirs():
            if not folder.is_dir():
                raise fail(f"${BOTS_DIR_ENV}: {folder}: no such folder")


def warn(registry) -> None:
    for error in registry.errors:
        typer.echo(f"arena: warning: {error}", err=True)


def game_classes(bots_dir: Path | None = None) -> tuple[dict, dict]:
    """Game classes by name (bundled and plugin games) and every alias."""
    registry = load_registry(bots_dir, quiet=True)
    classes = registry.game_classes()
    aliases = dict(registry.aliases)
    for name in classes:
        aliases.setdefault(name, name)
    return classes, aliases


def unknown(kind: str, name: str, known: list[str]) -> typer.Exit:
    """The one-line error of every command for a name it does not know: exit 2, the closest
    known name suggested."""
    from arena.plugins.loading import unknown_name

    return fail(unknown_name(kind, name, known))


def check_stored_names(store, bot: str | None, run: int | None, game: str | None) -> str | None:
    """--bot, --run and --game of a command that reads stored games, checked against the
    database (and the registered games); the game's canonical name."""
    if bot is not None and not _stored_as(bot, stored := store.stored_bots()):
        raise unknown("bot", bot, stored)
    if run is not None and run not in (runs := store.run_ids()):
        listing = f"{runs[0]} to {runs[-1]}" if runs else "none yet"
        raise fail(f"no run {run} in {store.path} (runs: {listing})")
    if game is None:
        return None
    _, aliases = game_classes()
    if game not in aliases:
        raise unknown("game", game, list(aliases))
    return aliases[game]


def _stored_as(bot: str, stored: list[str]) -> bool:
    """Whether the database holds games of ``bot``: ``name@N`` that version, ``name`` any of its
    versions (as the commands select them), though only ``name@2`` and later may be stored."""
    if "@" in bot:
        return bot in stored
    return any(name == bot or name.startswith(bot + "@") for name in stored)


def open_store(db: Path, create: bool = True):
    from arena.store.database import Store, StoreError

    try:
        return Store(db, create=create)
    except StoreError as exc:
        raise fail(str(exc)) from None


def db_path(db: Path | None) -> Path:
    """The database given, else the default one."""
    from arena.store.database import default_db

    return db or default_db()


SortBy = Annotated[
    str,
    typer.Option(
        "--sort",
        help="Order of the rows: conservative (TrueSkill μ−3σ), mu (TrueSkill μ) or elo (the "
        "batch Plackett–Luce rating).",
    ),
]


def check_sort(sort: str) -> None:
    from arena.views.leaderboard import SORTS

    if sort not in SORTS:
        raise fail(f"--sort must be one of {', '.join(SORTS)}, not {sort!r}")


def print_tables(
    store,
    game_names: list[str],
    fmt: str,
    head_to_head: bool = False,
    registry=None,
    all_versions: bool = False,
    sort: str = "conservative",
    los: bool = False,
) -> None:
    """The leaderboard tables of the games named on stdout; the store is closed on an error.
    Games are described by ``registry`` (a run's), else by the bundled and installed games."""
    from arena.plugins.loading import load_games
    from arena.store.database import StoreError
    from arena.views.leaderboard import render

    score_names = {}
    if fmt in ("table", "markdown"):  # only their column heads name the score
        classes = (registry or load_games()).game_classes()
        score_names = {name: game_class.score_name for name, game_class in classes.items()}
    try:
        typer.echo(
            render(store, game_names, fmt, head_to_head, score_names, sort, los, all_versions)
        )
    except StoreError as exc:
        store.close()
        raise fail(str(exc)) from None


SandboxMode = Annotated[
    str | None,
    typer.Option(
        "--sandbox",
        help="Around bot processes (--isolation process): bwrap (bubblewrap: no network, no "
        "view of your files, a private /proc, uid 65534), none, or auto: bwrap if it works here. "
        "[default: $ARENA_SANDBOX or auto]",
        show_default=False,
    ),
]


def sandbox_settings(mode: str | None, hidden: list[Path] = ()):
    """The checked ``--sandbox``, hiding ``hidden`` folders from bots; a one-line error if
    bubblewrap is required and does not work."""
    from arena.execution.process import bubblewrap

    named = "--sandbox"
    if not (mode or "").strip():  # (bubblewrap.default_mode() reads a mistyped variable as auto)
        mode, named = os.environ.get(bubblewrap.ENV, "").strip() or "auto", f"${bubblewrap.ENV}"
    mode = mode.strip().lower()
    if mode not in bubblewrap.MODES:
        raise fail(f"{named} must be one of {', '.join(bubblewrap.MODES)}, not {mode!r}")
    settings = bubblewrap.SandboxSettings(mode, tuple(str(Path(h).absolute()) for h in hidden))
    if mode == "bwrap":  # (``auto`` tries bubblewrap only once a bot process is to start)
        try:
            bubblewrap.active(settings)
        except bubblewrap.SandboxError as exc:
            raise fail(str(exc)) from None
    return settings


def announce_sandbox(settings, bot_memory_mib: int) -> None:
    """Before bot processes start: this process out of their reach (non-dumpable: a bot process of
    the same user can neither write into its output through ``/proc/PID/fd/1`` nor read its
    memory), and one line saying how they are sandboxed."""
    from arena.execution.process.bubblewrap import describe
    from arena.execution.process.sandbox import no_memory_access

    no_memory_access()
    typer.echo(describe(settings, bot_memory_mib), err=True)


def unfinished_runs(db: Path) -> list:
    """The database's unfinished runs, newest first (none if there is no database yet, or only
    an empty file)."""
    if not db.exists() or not db.stat().st_size:
        return []
    store = open_store(db, create=False)
    try:
        return store.unfinished_runs()
    finally:
        store.close()
