"""``arena history`` lists stored games; ``arena replay ID`` tells one (text, one seat's view, the
JSON record, or ``--verify``). The work is done in ``arena.views.history``, ``arena.views.replay``
and ``arena.games.record``; these functions only parse options and report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import (
    AsciiCards,
    DbPath,
    check_format,
    check_stored_names,
    db_path,
    fail,
    game_classes,
    open_store,
)


def history(
    bot: Annotated[
        str | None, typer.Option("--bot", "-b", help="Only games this bot played.")
    ] = None,
    game: Annotated[str | None, typer.Option("--game", "-g", help="Only this game.")] = None,
    run: Annotated[
        int | None, typer.Option("--run", help="Only games of this run (its id).")
    ] = None,
    limit: Annotated[
        int, typer.Option("--limit", "-n", help="How many games, newest first.", min=1)
    ] = 20,
    fmt: Annotated[str, typer.Option("--format", "-f", help="table or json.")] = "table",
    db: DbPath = None,
) -> None:
    """List the latest stored games with their ids (for `arena replay ID`), newest first."""
    from arena.store.database import StoreError
    from arena.views.history import history_json, history_table

    check_format(fmt, ("table", "json"))
    path = db_path(db)
    store = open_store(path, create=False)
    try:
        game = check_stored_names(store, bot, run, game)
        stored_games = store.recent_games(bot=bot, game=game, run_id=run, limit=limit)
    except StoreError as exc:
        raise fail(str(exc)) from None
    finally:
        store.close()
    if fmt == "json":
        typer.echo(history_json(stored_games))
    elif stored_games:
        typer.echo(history_table(stored_games))
    else:
        _none_found(path, "stored games", bot=bot, game=game, run=run)


def replay(
    game_id: Annotated[
        int, typer.Argument(metavar="ID", help="The game's id (see `arena history`).")
    ],
    seat: Annotated[
        int | None, typer.Option("--seat", "-s", help="Show only what this seat could see.")
    ] = None,
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            "-f",
            help="text, or json: the self-contained record (docs/records.md); with --seat, that "
            "seat's observations and answers.",
        ),
    ] = "text",
    verify: Annotated[
        bool,
        typer.Option(
            "--verify", help="Re-run the record through the engine; confirm the stored result."
        ),
    ] = False,
    ascii_cards: AsciiCards = False,
    db: DbPath = None,
) -> None:
    """Show a stored game deal by deal and move by move (everything is public after the game)."""
    from arena.games.base import RecordError
    from arena.views.replay import (
        output_style,
        render_game,
        seat_decisions,
        stored_facts,
        verify_game,
    )

    check_format(fmt, ("text", "json"))
    info, record, classes = _load_record(db, game_id)
    if seat is not None and not 0 <= seat < record["players"]:
        raise fail(f"--seat {seat}: game {game_id} has seats 0 to {record['players'] - 1}")
    if verify:
        try:
            lines = verify_game(info, record, classes)
        except RecordError as exc:
            raise fail(f"game {game_id} does not verify: {exc}", code=1) from None
        typer.echo("\n".join(lines))
        return
    if fmt == "json":
        if seat is not None:
            out = seat_decisions(record, classes, seat, bool(info["seats"][seat]["forfeit"]))
        else:
            out = {**record, "arena": stored_facts(info)}
        typer.echo(json.dumps(out, ensure_ascii=False))
        return
    style = output_style(ascii_cards)
    try:
        typer.echo(render_game(info, record, classes, seat=seat, style=style))
    except RecordError as exc:
        raise fail(f"game {game_id}: {exc}", code=1) from None


def faults(
    bot: Annotated[str | None, typer.Option("--bot", "-b", help="Only this bot's faults.")] = None,
    run: Annotated[
        int | None, typer.Option("--run", help="Only faults of this run (its id).")
    ] = None,
    game: Annotated[str | None, typer.Option("--game", "-g", help="Only this game.")] = None,
    limit: Annotated[
        int, typer.Option("--limit", "-n", help="How many faults, newest first.", min=1)
    ] = 10,
    db: DbPath = None,
) -> None:
    """List the latest faults, newest first, each with its traceback (for an exception)."""
    from arena.store.database import StoreError
    from arena.views.faults import fault_report

    path = db_path(db)
    store = open_store(path, create=False)
    try:
        game = check_stored_names(store, bot, run, game)
        found = store.fault_list(bot=bot, run_id=run, game=game, limit=limit)
    except StoreError as exc:
        raise fail(str(exc)) from None
    finally:
        store.close()
    if found:
        typer.echo(fault_report(found))
    else:
        _none_found(path, "faults", bot=bot, run=run, game=game)


def _none_found(path: Path, what: str, **filters) -> None:
    """One line on stderr: nothing ``what`` in the database, with the filters that were given."""
    wanted = ", ".join(f"{k} {v}" for k, v in filters.items() if v is not None)
    typer.echo(f"{path}: no {what}" + (f" with {wanted}" if wanted else ""), err=True)


def _load_record(db: Path | None, game_id: int):
    """(the stored game, its expanded record, the game classes) or a one-line error."""
    from arena.games.base import RecordError
    from arena.games.record import expand

    path = db_path(db)
    store = open_store(path, create=False)
    try:
        info = store.stored_game(game_id)
    finally:
        store.close()
    if info is None:
        raise fail(f"no game {game_id} in {path} (`arena history` lists the stored games)")
    if info["record"] is None:
        raise fail(
            f"game {game_id} was played with --no-records: its result is stored but not its moves, "
            "so there is nothing to replay"
        )
    classes, _ = game_classes()
    try:
        record = expand(info["record"], classes)
    except RecordError as exc:
        raise fail(f"game {game_id}: {exc}", code=1) from None
    return info, record, classes
