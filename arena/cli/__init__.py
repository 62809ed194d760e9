"""The ``arena`` command: thin typer commands that parse options, call one function and print.

One module per family of commands; each command is a plain function added to ``app`` here, so no
command module imports another. The console script is ``run_main``.
"""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from arena import __version__
from arena.cli.bench import bench
from arena.cli.bots import bots, games, new_bot
from arena.cli.check_bot import check_bot
from arena.cli.compare import compare
from arena.cli.export import export
from arena.cli.leaderboard import leaderboard
from arena.cli.match import match
from arena.cli.play import play
from arena.cli.records import faults, history, replay
from arena.cli.report import report
from arena.cli.run import run

app = typer.Typer(
    help="Pit card-playing bots against each other under exact rules; rate them with TrueSkill.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


@app.callback(invoke_without_command=True)
def _root(
    version: Annotated[bool, typer.Option("--version", help="Print the version and exit.")] = False,
) -> None:
    if version:
        typer.echo(f"arena {__version__}")
        raise typer.Exit()


for name, command in (
    ("run", run),
    ("leaderboard", leaderboard),
    ("match", match),
    ("compare", compare),
    ("bots", bots),
    ("games", games),
    ("new-bot", new_bot),
    ("bench", bench),
    ("history", history),
    ("replay", replay),
    ("faults", faults),
    ("export", export),
    ("play", play),
    ("report", report),
    ("check-bot", check_bot),
):
    app.command(name)(command)


def main(argv: list[str] | None = None) -> int:
    """The console script: like ``app()``, but every usage error is one line and no traceback.
    A bare ``arena`` prints the help."""
    if not (sys.argv[1:] if argv is None else argv):
        argv = ["--help"]
    try:
        code = app(args=argv, prog_name="arena", standalone_mode=False)
        sys.stdout.flush()  # here, so that a failed write is reported like any other error
    except KeyboardInterrupt:
        typer.echo("arena: interrupted", err=True)
        return 130
    except BrokenPipeError:  # `arena bots | head -1`: the reader has all it wants
        _drop_stdout()
        return 0
    except SystemExit:
        # click's own answer to a closed pipe: exit 1 with its stdout wrapped to stay quiet
        if type(sys.stdout).__name__ != "PacifyFlushWrapper":
            raise
        _drop_stdout()
        return 0
    except OSError as exc:
        if exc.errno is None or os.environ.get("ARENA_DEBUG"):
            raise
        # The system's word (a full disk, a missing permission): not arena's defect.
        where = f": {exc.filename}" if exc.filename else ""
        typer.echo(f"arena: error: {exc.strerror}{where}", err=True)
        _drop_stdout()
        return 1
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


def _drop_stdout() -> None:
    """Point standard output at /dev/null: what is left in its buffer is not written again (and
    fails again) as the interpreter exits."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # (no file descriptor: a captured stdout in tests)
        pass


def run_main() -> None:  # pragma: no cover - the console script
    sys.exit(main())


__all__ = ["app", "main", "run_main"]
