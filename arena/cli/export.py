"""``arena export``: stream every stored game record as JSON lines (``arena.views.export``)."""

from __future__ import annotations

import sys
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


def export(
    game: Annotated[str | None, typer.Option("--game", "-g", help="Only this game.")] = None,
    run: Annotated[
        int | None, typer.Option("--run", help="Only games of this run (its id).")
    ] = None,
    bot: Annotated[
        str | None, typer.Option("--bot", "-b", help="Only games this bot played.")
    ] = None,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs",
            "-j",
            help="Processes expanding the records [default: one a core].",
            min=1,
            show_default=False,
        ),
    ] = None,
    keep: Annotated[
        bool,
        typer.Option(
            "--keep",
            help="Keep each record's JSON in the database (about 1.3 kB a game) so that later "
            "exports stream it instead of replaying the game.",
        ),
    ] = False,
    db: DbPath = None,
) -> None:
    """Write every stored game as one JSON line (the record `arena replay ID --format json`
    prints), oldest first, for offline analysis and learning from logged games."""
    from arena.store.database import StoreError
    from arena.views.export import (
        ExportCounts,
        ExportProcessError,
        Selection,
        usable_cores,
        write_export,
    )

    path = db_path(db)
    store = open_store(path, create=False)
    try:  # the game is checked below, without loading every bot
        check_stored_names(store, bot, run, None)
    except typer.Exit:
        store.close()
        raise
    classes = _GameClasses()
    if game is not None:
        game = classes.canonical(game)
        if game not in classes:
            store.close()
            raise unknown("game", game, sorted({*classes, *classes.aliases}))
    counts = ExportCounts()
    jobs = jobs or usable_cores()
    select = Selection(game, run, bot)
    out = sys.stdout.buffer
    try:
        write_export(store, classes, counts, out, select, jobs, keep)
        out.flush()
    except (StoreError, ExportProcessError) as exc:
        raise fail(str(exc)) from None
    except BrokenPipeError:  # `arena export | head`: the reader has all it wants
        sys.stderr.close()
        return
    finally:
        store.close()
    if counts.without_record:
        typer.echo(
            f"{counts.without_record} game(s) played with --no-records have no moves to export",
            err=True,
        )
    if counts.damaged:
        typer.echo(
            f"{counts.damaged} damaged record(s) skipped; first: {counts.first_damage}", err=True
        )
        raise typer.Exit(1)


class _GameClasses(dict):
    """Game classes by name: the bundled games at once, the plugins' (found by loading every
    bot, a good part of a second) only when a record or ``--game`` names another."""

    def __init__(self) -> None:
        from arena.games import HowLowCanYouGo, TwentyDown

        bundled = (TwentyDown, HowLowCanYouGo)
        super().__init__((cls.name, cls) for cls in bundled)
        self.aliases = {alias: cls.name for cls in bundled for alias in cls.aliases}
        self._loaded = False

    def _load(self) -> None:
        if not self._loaded:
            self._loaded = True
            classes, aliases = game_classes()
            self.update(classes)
            self.aliases.update(aliases)

    def canonical(self, name: str) -> str:
        if name not in self and name not in self.aliases:
            self._load()
        return self.aliases.get(name, name)

    def __missing__(self, name: str):
        self._load()
        if name in self.keys():
            return dict.__getitem__(self, name)
        raise KeyError(name)
