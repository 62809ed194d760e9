"""``arena bots``, ``arena games`` and ``arena new-bot``: what is registered, and a new bot file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import BotsDir, SandboxMode, fail, folders, load_registry, sandbox_settings


def bots(
    bots_dir: BotsDir = None,
    isolation: Annotated[
        str,
        typer.Option(
            help="shared: import the bot files here; process: only in a sandboxed loading "
            "process, as `arena run --isolation process` does (for files you do not trust)."
        ),
    ] = "shared",
    sandbox: SandboxMode = None,
) -> None:
    """List the loaded bots with their games and source files, and every bot file that failed."""
    from tabulate import tabulate

    from arena.plugins.loading import default_bots_dirs
    from arena.views.registry import bot_rows, unloaded_subfolders

    if isolation not in ("shared", "process"):
        raise fail(f"--isolation must be shared or process, not {isolation!r}")
    isolated = isolation == "process"
    settings = sandbox_settings(sandbox) if isolated else None
    if isolated:  # a loading process of the same user may not write into this one's output
        from arena.execution.process.sandbox import no_memory_access

        no_memory_access()
    registry = load_registry(bots_dir, quiet=True, isolated=isolated, sandbox=settings)
    rows = bot_rows(registry)
    if rows:
        typer.echo(
            tabulate(rows, headers=["bot", "games", "settings", "source"], tablefmt="simple")
        )
    else:
        typer.echo("no bots loaded (put bot files in ./bots or use --bots-dir)")
    named_only = sorted(spec.name for spec in registry.bots.values() if not spec.by_default)
    if named_only:
        typer.echo(
            f"fielded only when named (--bots, a tournament file): {', '.join(named_only)}; "
            "a plain `arena run` leaves them out (slow)"
        )
    for error in registry.errors:
        typer.echo(f"failed: {error}")
    for folder, unloaded in unloaded_subfolders(folders(bots_dir) or default_bots_dirs()):
        typer.echo(
            f"not loaded: {unloaded}/ holds bot files (only files directly in a bots folder "
            f"are loaded); add them with --bots-dir {folder} --bots-dir {unloaded}"
        )


def games(bots_dir: BotsDir = None) -> None:
    """List the registered games with their table sizes, parameters and variants."""
    from tabulate import tabulate

    from arena.views.registry import game_rows

    registry = load_registry(bots_dir, quiet=True)
    typer.echo(
        tabulate(
            game_rows(registry),
            headers=["game", "aliases", "players", "parameters", "variants", "source"],
        )
    )
    for error in registry.errors:
        typer.echo(f"failed: {error}")


def new_bot(
    name: Annotated[str, typer.Argument(help="The bot's name on the leaderboard, e.g. my-bot.")],
    game: Annotated[str, typer.Option("--game", "-g", help="The game it plays.")],
    bots_dir: Annotated[
        Path | None, typer.Option("--bots-dir", help="Where to write it [default: ./bots].")
    ] = None,
    package: Annotated[
        bool,
        typer.Option(
            "--package", help="Write a bot package, bots/NAME/ with __init__.py and helpers.py."
        ),
    ] = False,
) -> None:
    """Write bots/NAME.py: a commented bot for GAME that loads and plays legally at once."""
    from arena.plugins.loading import default_bots_dirs
    from arena.plugins.loading import load_registry as load_here
    from arena.scaffold import ScaffoldError, write_bot_file

    folder = bots_dir or default_bots_dirs()[0]
    try:
        path = write_bot_file(name, game, folder, registry=load_here(folder), package=package)
    except ScaffoldError as exc:
        raise fail(str(exc)) from None
    typer.echo(f"wrote {path}; try: arena run --bots {name},random --games 200")
