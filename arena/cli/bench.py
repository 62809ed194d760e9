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
    playouts: Annotated[
        bool,
        typer.Option(
            "--playouts",
            help="Only search playouts a second (determinize + clone + random play to the end of "
            "the deal) from fixed mid-game positions, each game; --games playouts per position.",
        ),
    ] = False,
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
    if playouts:
        from arena.bench.playouts import playout_lines

        for line in playout_lines(playouts=games, repeats=repeats):
            typer.echo(line)
        return
    if peers:
        from arena.bench.peers import run_peers

        run_peers(games=games, repeats=repeats, echo=typer.echo)
        return
    from arena.bench.harness import run_bench

    run_bench(games=games, repeats=repeats, harness=harness, echo=typer.echo)
