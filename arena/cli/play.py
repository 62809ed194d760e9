"""``arena play GAME``: a person at the table against bots, in the terminal."""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from arena.cli.common import (
    AsciiCards,
    BotsDir,
    DbPath,
    Params,
    Variant,
    db_path,
    fail,
    game_params,
    load_registry,
    names,
    open_store,
)

GameName = Annotated[
    str, typer.Argument(help="The game: twenty-down (td), how-low-can-you-go (hl).")
]
TableBots = Annotated[
    list[str] | None,
    typer.Option(
        "--bots",
        "-b",
        help="The bots at the table, comma-separated; they fill the other seats in turn. "
        "[default: every bot that plays the game]",
    ),
]
Players = Annotated[
    int | None,
    typer.Option(help="Table size, for games that allow several. [default: you + the bots]"),
]
Seat = Annotated[
    int | None,
    typer.Option("--seat", "-s", help="Your seat (0 is first). [default: from the seed]"),
]
Seed = Annotated[str | None, typer.Option(help="Seed of the cards. [default: a new one]")]
MoveTime = Annotated[
    float, typer.Option(help="Seconds each bot may take per decision (you: no limit).")
]
AskForced = Annotated[
    bool,
    typer.Option(
        "--ask-forced", help="Ask for a move that is your only one too (default: played for you)."
    ),
]
Rated = Annotated[
    bool, typer.Option("--rated", help="Store the game and rate it; you appear as `human`.")
]


def play(
    game: GameName,
    bots: TableBots = None,
    players: Players = None,
    seat: Seat = None,
    seed: Seed = None,
    move_time: MoveTime = 1.0,
    rated: Rated = False,
    variant: Variant = None,
    param: Params = None,
    ask_forced: AskForced = False,
    ascii_cards: AsciiCards = False,
    db: DbPath = None,
    bots_dir: BotsDir = None,
) -> None:
    """Play a game yourself against bots, in the terminal.

    Each time it is your turn you see the table and your hand and the legal moves, numbered; type
    the number or the move (QH, 7C 9D, stand, H). q, end of input or Ctrl-C leave the game.
    """
    from arena.views.human_game import HumanGameError, set_up_game
    from arena.views.human_seat import play as play_one
    from arena.views.human_seat import summary
    from arena.views.replay import output_style

    params = game_params(param)
    registry = load_registry(bots_dir)
    store = open_store(db_path(db)) if rated else None  # fail before the game, not after
    versions = _apply_versions(registry, store)
    try:
        setup = set_up_game(
            registry, game, names(bots), players, seat, seed, move_time, variant, params or {}
        )
    except HumanGameError as exc:
        if store is not None:
            store.close()
        raise fail(str(exc)) from None
    style = output_style(ascii_cards, colour=_colour_terminal())
    table, seat, seed = setup.table, setup.seat, setup.seed
    typer.echo(f"{table.title or table.name}, {table.players} players · you are seat {seat}")
    typer.echo(f"seed {seed} (`--seed {seed} --seat {seat}` deals the same cards again)")
    read = _reader(interactive=sys.stdin.isatty())
    result = play_one(
        table, registry, setup.bots, seat, seed, move_time, 3, read, typer.echo, style, ask_forced
    )
    if result.outcome is None:
        if store is not None:
            store.close()
        how = {"interrupted": "interrupted", "quit": "you left", "end of input": "end of input"}
        typer.echo(
            f"\n{how.get(result.left, result.left)}: game abandoned, nothing stored", err=True
        )
        raise typer.Exit(code=130 if result.left == "interrupted" else 0)
    for line in summary(result, table, style):
        typer.echo(line)
    _store_rated(store, table, result, seed, lambda: versions.record(store, setup.bots))


def _apply_versions(registry, store):
    """A rated game is stored under the bots' versions (``tournament.versions``)."""
    from arena.store.database import StoreError
    from arena.tournament.versions import apply_versions

    if store is None:
        return None
    try:
        return apply_versions(registry, store)
    except StoreError as exc:
        store.close()
        raise fail(str(exc)) from None


def _colour_terminal() -> bool:
    """Red suits in colour: on a terminal that shows colours, unless NO_COLOR is set."""
    term = os.environ.get("TERM", "")
    return sys.stdout.isatty() and term not in ("", "dumb") and "NO_COLOR" not in os.environ


def _reader(interactive: bool):
    """Reads the person's answers from stdin; a piped answer is shown, as a terminal would."""
    from arena.views.human_seat import stdin_reader

    def prompt(text: str) -> None:
        sys.stdout.write(text)
        sys.stdout.flush()

    reader = stdin_reader(prompt)

    def read(text: str) -> str:
        line = reader(text)
        if not interactive:
            typer.echo(line)
        return line

    return read


def _store_rated(store, table, result, seed: str, record_versions) -> None:
    from arena.store.database import StoreError
    from arena.views.human_seat import store_rated

    if store is None:
        typer.echo("not rated, not stored (--rated stores and rates a game)")
        return
    try:
        record_versions()
        game_id = store_rated(store, table, result, seed)
    except StoreError as exc:
        raise fail(str(exc), code=1) from None
    finally:
        store.close()
    typer.echo(
        f"rated and stored as game {game_id} (`arena replay {game_id}`, `arena leaderboard`)"
    )
