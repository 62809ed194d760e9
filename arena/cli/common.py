"""What the ``arena`` commands share: option types, the one-line error, the store, the registry.

Every error the user can cause ends as one line on stderr and exit code 2 (1 for a failed run).
"""

from __future__ import annotations

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
    if isolated:
        registry = load_registry_isolated(given or None, memory_mib=memory_mib, sandbox=sandbox)
    else:
        registry = load_here(given or None)
    if not quiet:
        warn(registry)
    return registry


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


def open_store(db: Path, create: bool = True):
    from arena.store.database import Store, StoreError

    try:
        return Store(db, create=create)
    except StoreError as exc:
        raise fail(str(exc)) from None


def db_path(db: Path | None) -> Path:
    """The database given, else the default one."""
    from arena.tournament.run import default_db

    return db or default_db()


def print_tables(
    store, game_names: list[str], fmt: str, head_to_head: bool = False, registry=None
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
        typer.echo(render(store, game_names, fmt, head_to_head, score_names))
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

    mode = (mode or bubblewrap.default_mode()).strip().lower()
    if mode not in bubblewrap.MODES:
        raise fail(f"--sandbox must be one of {', '.join(bubblewrap.MODES)}, not {mode!r}")
    settings = bubblewrap.SandboxSettings(mode, tuple(str(Path(h).absolute()) for h in hidden))
    if mode == "bwrap":  # (``auto`` tries bubblewrap only once a bot process is to start)
        try:
            bubblewrap.active(settings)
        except bubblewrap.SandboxError as exc:
            raise fail(str(exc)) from None
    return settings
