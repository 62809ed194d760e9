"""``arena check-bot``: the protocol conformance test of a bot program."""

from __future__ import annotations

from typing import Annotated

import typer

from arena.cli.common import SandboxMode, fail, sandbox_settings


def check_bot(
    target: Annotated[
        list[str],
        typer.Argument(
            help="A manifest (bots/NAME.toml), or a program and its arguments "
            "(put them after --: arena check-bot -- node bot.js)."
        ),
    ],
    games: Annotated[int, typer.Option(help="Games of each game it declares.")] = 3,
    move_time: Annotated[float, typer.Option(help="Seconds per move.")] = 1.0,
    show_stderr: Annotated[
        bool, typer.Option("--stderr", help="Let the program's stderr through (debugging).")
    ] = False,
    sandbox: SandboxMode = None,
) -> None:
    """Play a few games with a bot program and report every message that breaks the protocol
    (docs/protocol.md), one line each; exit status 1 if there is any."""
    from arena.plugins.loading import load_registry
    from arena.protocol.conformance import ManifestError, check, load

    if games < 1 or move_time <= 0:
        raise fail("--games must be at least 1 and --move-time positive")
    if len(target) == 1 and target[0].endswith(".py"):
        raise fail(
            f"{target[0]} is a Python bot file; check-bot checks programs (a manifest, which "
            "can run a Python bot: docs/protocol.md, 'A Python bot as a program'); try a Python "
            "bot with `arena run --fail-fast --bots NAME,random`"
        )
    try:
        manifest = load(target)
    except ManifestError as exc:
        raise fail(f"{' '.join(target)}: cannot start: {exc}") from None
    registry = load_registry(bots_dir=[], entry_points=False)
    report = check(
        manifest,
        registry,
        games,
        move_time,
        sandbox=sandbox_settings(sandbox),
        stderr=show_stderr,
        echo=typer.echo,
    )
    for problem in report.problems:
        typer.echo(f"problem: {problem}")
    if report.problems:
        typer.echo(f"{report.name}: {len(report.problems)} problem(s) found")
        if report.ended and not show_stderr:
            typer.echo("(its stderr was hidden: --stderr shows what the program printed)")
        raise typer.Exit(1)
    typer.echo(
        f"{report.name}: speaks protocol {messages_version()}: {report.games} games, "
        f"{report.asked} requests answered, no problem found"
    )


def messages_version() -> int:
    from arena.protocol.messages import PROTOCOL_VERSION

    return PROTOCOL_VERSION
