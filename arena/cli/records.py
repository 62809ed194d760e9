"""Commands about stored games: listing, replaying, verifying; and a human seat at the table.

``arena history`` lists stored games, ``arena replay ID`` tells one (text, one seat's view, the
JSON record, or ``--verify``), ``arena play GAME`` seats a person against bots. The work is done in
``arena.views.replay``, ``arena.games.record`` and ``arena.views.human_seat``; these functions only parse options
and report.
"""

from __future__ import annotations

import json
import secrets
import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from arena.cli.main import BotsDir, DbPath, _open_store, _registry, _split, fail


def _game_classes(bots_dir: Path | None = None) -> tuple[dict, dict]:
    """Game classes by name (bundled and plugin games) and every alias."""
    registry = _registry(bots_dir, quiet=True)
    classes = registry.game_classes()
    aliases = dict(registry.aliases)
    for name in classes:
        aliases.setdefault(name, name)
    return classes, aliases


def _when(seconds: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(seconds))


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
    from tabulate import tabulate

    from arena.store.database import StoreError
    from arena.tournament.run import default_db

    if fmt not in ("table", "json"):
        raise fail(f"--format must be table or json, not {fmt!r}")
    db_path = db or default_db()
    store = _open_store(db_path, create=False)
    if game is not None:
        _, aliases = _game_classes()
        game = aliases.get(game, game)
    try:
        games = store.recent_games(bot=bot, game=game, run_id=run, limit=limit)
    except StoreError as exc:
        raise fail(str(exc)) from None
    finally:
        store.close()
    if fmt == "json":
        rows = [
            {
                "id": g["id"],
                "run": g["run_id"],
                "game": g["game"],
                "finished": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(g["finished"])),
                "seed": g["seed"],
                "decisions": g["decisions"],
                "record": g["record"] is not None,
                "seats": g["seats"],
                "faults": g["fault_log"],
            }
            for g in games
        ]
        typer.echo(json.dumps(rows, indent=2))
        return
    if not games:
        wanted = ", ".join(
            f"{k} {v}" for k, v in (("bot", bot), ("game", game), ("run", run)) if v is not None
        )
        typer.echo(f"{db_path}: no stored games" + (f" with {wanted}" if wanted else ""), err=True)
        return
    table = []
    for g in games:
        seats = "  ".join(
            f"{s['bot']} {s['score']} ({s['rank']}{'F' if s['forfeit'] else ''})"
            for s in g["seats"]
        )
        faults = sum(s["faults"] for s in g["seats"])
        table.append(
            [
                g["id"],
                g["run_id"],
                g["game"],
                _when(g["finished"]),
                seats,
                faults or "",
                "" if g["record"] is not None else "no",
            ]
        )
    typer.echo(
        tabulate(
            table,
            headers=[
                "id",
                "run",
                "game",
                "finished",
                "seats from 0: bot score (rank, F: forfeited)",
                "faults",
                "record",
            ],
            tablefmt="simple",
        )
    )


def _load_record(db: Path | None, game_id: int):
    from arena.games.base import RecordError
    from arena.games.record import expand
    from arena.tournament.run import default_db

    db_path = db or default_db()
    store = _open_store(db_path, create=False)
    try:
        info = store.stored_game(game_id)
    finally:
        store.close()
    if info is None:
        raise fail(f"no game {game_id} in {db_path} (`arena history` lists the stored games)")
    if info["record"] is None:
        raise fail(
            f"game {game_id} was played with --no-records: its result is stored but not its moves, "
            "so there is nothing to replay"
        )
    games, _ = _game_classes()
    try:
        record = expand(info["record"], games)
    except RecordError as exc:
        raise fail(f"game {game_id}: {exc}", code=1) from None
    return info, record, games


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
    ascii_cards: Annotated[
        bool, typer.Option("--ascii", help="Write cards as QH, not Q♥.")
    ] = False,
    db: DbPath = None,
) -> None:
    """Show a stored game deal by deal and move by move (everything is public after the game)."""
    from arena.games.base import RecordError
    from arena.views.replay import output_style, render_game, seat_decisions, verify_game

    if fmt not in ("text", "json"):
        raise fail(f"--format must be text or json, not {fmt!r}")
    info, record, games = _load_record(db, game_id)
    if seat is not None and not 0 <= seat < record["players"]:
        raise fail(f"--seat {seat}: game {game_id} has seats 0 to {record['players'] - 1}")
    if verify:
        try:
            lines = verify_game(info, record, games)
        except RecordError as exc:
            raise fail(f"game {game_id} does not verify: {exc}", code=1) from None
        typer.echo("\n".join(lines))
        return
    if fmt == "json":
        if seat is not None:
            out = seat_decisions(record, games, seat, bool(info["seats"][seat]["forfeit"]))
        else:
            out = {**record, "arena": _stored_facts(info)}
        typer.echo(json.dumps(out, ensure_ascii=False))
        return
    style = output_style(ascii_cards)
    try:
        typer.echo(render_game(info, record, games, seat=seat, style=style))
    except RecordError as exc:
        raise fail(f"game {game_id}: {exc}", code=1) from None


def _stored_facts(info: dict) -> dict:
    """What the database adds to the record: the id, the run, the scores and final ranks the
    tournament stored (ranks after forfeits)."""
    return {
        "id": info["id"],
        "run": info["run_id"],
        "finished": info["finished"],
        "scores": [s["score"] for s in info["seats"]],
        "ranks": [s["rank"] for s in info["seats"]],
        "forfeits": [bool(s["forfeit"]) for s in info["seats"]],
    }


def play(
    game: Annotated[
        str, typer.Argument(help="The game: twenty-down (td), how-low-can-you-go (hl).")
    ],
    bots: Annotated[
        list[str] | None,
        typer.Option(
            "--bots",
            "-b",
            help="The bots at the table, comma-separated; they fill the other seats in turn. "
            "[default: every bot that plays the game]",
        ),
    ] = None,
    players: Annotated[
        int | None,
        typer.Option(help="Table size, for games that allow several. [default: you + the bots]"),
    ] = None,
    seat: Annotated[
        int | None,
        typer.Option("--seat", "-s", help="Your seat (0 is first). [default: from the seed]"),
    ] = None,
    seed: Annotated[
        str | None, typer.Option(help="Seed of the cards. [default: a new one]")
    ] = None,
    move_time: Annotated[
        float, typer.Option(help="Seconds each bot may take per decision (you: no limit).")
    ] = 1.0,
    rated: Annotated[
        bool, typer.Option("--rated", help="Store the game and rate it; you appear as `human`.")
    ] = False,
    ascii_cards: Annotated[
        bool, typer.Option("--ascii", help="Write cards as QH, not Q♥.")
    ] = False,
    db: DbPath = None,
    bots_dir: BotsDir = None,
) -> None:
    """Play a game yourself against bots, in the terminal.

    Each time it is your turn you see the table and your hand and the legal moves, numbered; type
    the number or the move (QH, 7C 9D, stand, H). q, end of input or Ctrl-C leave the game.
    """
    from arena.games.base import InvalidParametersError
    from arena.plugins.loading import UnknownNameError
    from arena.store.database import StoreError
    from arena.tournament.plan import PlanError, check_setting
    from arena.tournament.run import default_db
    from arena.views.human_seat import HUMAN, choose_seat, stdin_reader, store_rated, summary
    from arena.views.human_seat import play as play_one
    from arena.views.replay import output_style

    registry = _registry(bots_dir)
    try:
        spec = registry.game(game)
    except UnknownNameError as exc:
        raise fail(str(exc)) from None
    cls = spec.cls
    names = _split(bots) or sorted(b.name for b in registry.bots_for(spec.name))
    for name in names:
        if name == HUMAN:
            raise fail(f"`{HUMAN}` is you; --bots names the bots at the table")
        try:
            bot = registry.bot(name)
        except UnknownNameError as exc:
            raise fail(str(exc)) from None
        if not bot.plays(spec.name):
            raise fail(f"bot {name!r} does not play {spec.name}")
    if not names:
        raise fail(f"no bot plays {spec.name} (put bot files in ./bots or use --bots-dir)")
    if players is None:
        players = len(names) + 1
        if not cls.min_players <= players <= cls.max_players:
            players = cls.default_players
    if len(names) > players - 1:
        raise fail(
            f"{spec.name} at {players} seats has room for you and {players - 1} bot"
            f"{'s' if players != 2 else ''}, not {len(names)}"
            + (" (use --players)" if cls.min_players != cls.max_players else "")
        )
    try:
        table = cls(players=players)
    except InvalidParametersError as exc:
        raise fail(str(exc)) from None
    try:
        check_setting("move_time", move_time)
    except PlanError as exc:
        raise fail(str(exc)) from None
    seed = seed or secrets.token_hex(4)
    if seat is None:
        seat = choose_seat(seed, players)
    elif not 0 <= seat < players:
        raise fail(f"--seat must be 0 to {players - 1}, not {seat}")
    store = _open_store(db or default_db()) if rated else None  # fail before the game, not after
    style = output_style(ascii_cards)
    interactive = sys.stdin.isatty()

    def prompt(text: str) -> None:
        sys.stdout.write(text)
        sys.stdout.flush()

    reader = stdin_reader(prompt)

    def read(text: str) -> str:
        line = reader(text)
        if not interactive:
            typer.echo(line)  # a piped answer is not echoed by a terminal: show it
        return line

    typer.echo(
        f"{table.title or table.name}, {players} players · you are seat {seat} · seed {seed} "
        f"(`--seed {seed} --seat {seat}` deals the same cards again)"
    )
    result = play_one(table, registry, names, seat, seed, move_time, 3, read, typer.echo, style)
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
    if store is not None:
        try:
            game_id = store_rated(store, table, result, seed)
        except StoreError as exc:
            raise fail(str(exc), code=1) from None
        finally:
            store.close()
        typer.echo(
            f"rated and stored as game {game_id} (`arena replay {game_id}`, `arena leaderboard`)"
        )
    else:
        typer.echo("not rated, not stored (--rated stores and rates a game)")


def register(app: typer.Typer) -> None:
    """Add this module's commands to the ``arena`` app."""
    app.command("history")(history)
    app.command("replay")(replay)
    app.command("play")(play)
