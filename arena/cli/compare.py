"""``arena compare A B``: two bots on the boards both played, and their Elo gap."""

from __future__ import annotations

from typing import Annotated

import typer

from arena.cli.common import DbPath, check_format, db_path, fail, open_store, unknown


def compare(
    a: Annotated[str, typer.Argument(metavar="A", help="A bot, as the leaderboard names it.")],
    b: Annotated[str, typer.Argument(metavar="B", help="Another bot.")],
    game: Annotated[
        str | None, typer.Option("--game", "-g", help="Only this game. [default: every game]")
    ] = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="table or json.")] = "table",
    db: DbPath = None,
) -> None:
    """Compare two bots on the duplicate boards both played: paired differences of score and
    place with 95 % intervals (and how much narrower pairing makes them), the Elo difference
    with its interval, and P(A better than B)."""
    from arena.plugins.loading import load_games
    from arena.store.database import StoreError
    from arena.views.compare import CompareError, render_json, render_text
    from arena.views.compare import compare as compare_bots

    check_format(fmt, ("table", "json"))
    path = db_path(db)
    store = open_store(path, create=False)
    try:
        registry = load_games()
        known = store.rated_games()
        games = known
        if game is not None:
            name = registry.aliases.get(game, game)
            if name not in known and name not in registry.games:  # a name no game has: a slip
                raise unknown("game", game, sorted({*registry.games, *registry.aliases, *known}))
            if name not in known:
                raise fail(f"no results for game {game!r} in {path} (have: "
                           f"{', '.join(known) or 'none'})")  # fmt: skip
            games = [name]
        comparisons = compare_bots(store, games, a, b)
    except (StoreError, CompareError) as exc:
        raise fail(str(exc)) from None
    finally:
        store.close()
    if fmt == "json":
        typer.echo(render_json(comparisons))
        return
    names = {name: cls.score_name for name, cls in registry.game_classes().items()}
    typer.echo(render_text(comparisons, names))
