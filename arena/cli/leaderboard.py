"""``arena leaderboard``: print the stored tables again, or wipe the database."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import (
    DbPath,
    SortBy,
    check_format,
    check_sort,
    db_path,
    fail,
    open_store,
    print_tables,
    unknown,
)


def leaderboard(
    game: Annotated[
        list[str] | None, typer.Option("--game", "-g", help="Only this game (repeatable).")
    ] = None,
    fmt: Annotated[
        str, typer.Option("--format", "-f", help="table, markdown, json or csv.")
    ] = "table",
    head_to_head: Annotated[
        bool,
        typer.Option(
            "--head-to-head", help="Also show how often each bot finished ahead of each other."
        ),
    ] = False,
    all_versions: Annotated[
        bool,
        typer.Option(
            "--all-versions", help="Every version of each bot (default: the latest of each)."
        ),
    ] = False,
    los: Annotated[
        bool,
        typer.Option(
            "--los", help="Also show the likelihood of superiority: P(row better than column)."
        ),
    ] = False,
    sort: SortBy = "conservative",
    reset: Annotated[
        bool, typer.Option("--reset", help="Delete every result and rating in the database.")
    ] = False,
    db: DbPath = None,
) -> None:
    """Print the leaderboard tables (one per game), sorted by the conservative score μ − 3σ
    (--sort elo: by the batch rating, whose ± is its 95 % interval)."""
    from arena.store.database import StoreError
    from arena.views.leaderboard import FORMATS

    check_format(fmt, FORMATS)
    check_sort(sort)
    path = db_path(db)
    if reset:
        _reset(path)
        return
    store = open_store(path, create=False)
    try:
        try:
            known = store.rated_games()
        except StoreError as exc:
            raise fail(str(exc)) from None
        if game:
            known = _wanted(game, known, path)
        if not known:
            typer.echo(f"{path}: no games played yet; run `arena run --games 1000`", err=True)
        else:
            print_tables(
                store, known, fmt, head_to_head, all_versions=all_versions, sort=sort, los=los
            )
    finally:
        store.close()


def _reset(path: Path) -> None:
    from arena.store.database import StoreError

    store = open_store(path, create=False)  # a mistyped --db is not a fresh database
    try:
        store.reset()
    except StoreError as exc:
        raise fail(str(exc)) from None
    finally:
        store.close()
    typer.echo(f"{path}: every result and rating deleted", err=True)


def _wanted(game: list[str], known: list[str], path: Path) -> list[str]:
    """The games asked for by name or alias (of the bundled and installed games: no bot file is
    imported just to print stored tables), each with results."""
    from arena.plugins.loading import load_games

    registry = load_games()
    aliases = registry.aliases
    wanted = [aliases.get(g, g) for g in game]
    for g in wanted:
        if g not in known and g not in registry.games:  # a name no game has: a slip
            raise unknown("game", g, sorted({*registry.games, *aliases, *known}))
        if g not in known:
            raise fail(f"no results for game {g!r} in {path} (have: {', '.join(known) or 'none'})")
    return wanted
