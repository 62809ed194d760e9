"""``arena report``: the HTML report of a results database. The work is done in ``arena.report``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import (
    DbPath,
    check_stored_names,
    db_path,
    fail,
    game_classes,
    open_store,
    unknown,
)

Output = Annotated[Path, typer.Option("--output", "-o", help="The HTML file to write.")]


def report(
    output: Output = Path("report.html"),
    game: Annotated[str | None, typer.Option("--game", "-g", help="Only this game.")] = None,
    run: Annotated[
        int | None, typer.Option("--run", help="Only the games of this run in the game list.")
    ] = None,
    db: DbPath = None,
) -> None:
    """Write one self-contained HTML file (works offline): leaderboards, ratings over time, head
    to head, faults, and a replay viewer of the latest games and of every game with a fault."""
    path = db_path(db)
    store = open_store(path, create=False)
    classes, aliases = game_classes()
    if game is not None:
        if game not in aliases:
            store.close()
            raise unknown("game", game, sorted(aliases))
        game = aliases[game]
    try:
        check_stored_names(store, None, run, None)
        count = write(store, classes, output, game=game, run_id=run)
    finally:
        store.close()
    typer.echo(f"{output}: report of {path} written ({count} games to replay)", err=True)


def write(store, classes, output: Path, game: str | None = None, run_id: int | None = None) -> int:
    """Write the report of ``store``; the number of games it can replay (not those embedded
    with a note instead: played with --no-records, or not replayable), or a one-line error."""
    from arena.report.gather import Selection, gather
    from arena.report.render import ReportError, render_html, write_report
    from arena.store.database import StoreError

    try:
        data = gather(store, classes, Selection(game=game, run_id=run_id))
        write_report(render_html(data), output)
    except (ReportError, StoreError) as exc:
        raise fail(str(exc), code=1) from None
    return sum(1 for replay in data["replays"] if replay["frames"] is not None)
