"""``arena bench``: the speed figures of the engines and of whole runs."""

from __future__ import annotations

from typing import Annotated

import typer


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
    peers: Annotated[
        bool,
        typer.Option(
            "--peers",
            help="Instead: arena's engines beside OpenSpiel's euchre, hearts and oh_hell "
            "(needs arena[rl]).",
        ),
    ] = False,
) -> None:
    """Measure decisions per second of the bare engines and of full runs with four random bots."""
    if peers:
        from arena.bench.peers import run_peers

        run_peers(games=games, repeats=repeats, echo=typer.echo)
        return
    from arena.bench.harness import run_bench

    run_bench(games=games, repeats=repeats, harness=harness, echo=typer.echo)
