"""``arena match A B [--sprt]``: two bots on duplicate boards until a sequential test decides."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import (
    BotsDir,
    DbPath,
    announce_sandbox,
    check_format,
    fail,
    load_registry,
    open_store,
    sandbox_settings,
    unfinished_runs,
    warn,
)

Bot = Annotated[str, typer.Argument(help="A bot (its current version, or name@N).")]
Float = float
SPRT_DEFAULTS = {"elo0": 0.0, "elo1": 10.0, "alpha": 0.05, "beta": 0.05, "model": "logistic"}


def match(
    a: Bot,
    b: Bot,
    game: Annotated[
        str | None, typer.Option("--game", "-g", help="The game. [default: the one both play]")
    ] = None,
    sprt: Annotated[
        bool, typer.Option("--sprt", help="Stop as soon as the SPRT decides between H0 and H1.")
    ] = False,
    elo0: Annotated[
        Float, typer.Option(help="H0: A is at most elo0 Elo stronger than B.")
    ] = SPRT_DEFAULTS["elo0"],
    elo1: Annotated[
        Float, typer.Option(help="H1: A is at least elo1 Elo stronger.")
    ] = SPRT_DEFAULTS["elo1"],
    alpha: Annotated[
        Float, typer.Option(help="The chance of accepting H1 when H0 holds.")
    ] = SPRT_DEFAULTS["alpha"],
    beta: Annotated[
        Float, typer.Option(help="The chance of accepting H0 when H1 holds.")
    ] = SPRT_DEFAULTS["beta"],
    model: Annotated[
        str, typer.Option(help="logistic (Elo) or normalized (nElo, as fishtest).")
    ] = SPRT_DEFAULTS["model"],
    games: Annotated[
        int, typer.Option("--games", "-n", help="The most games to play (two a board).")
    ] = 2000,
    players: Annotated[
        int | None, typer.Option(help="Table size, if the game allows several.")
    ] = None,
    seed: Annotated[
        str | None, typer.Option(help="Seed of the match. [default: a new one]")
    ] = None,
    jobs: Annotated[int | None, typer.Option("--jobs", "-j", help="Game worker processes.")] = None,
    move_time: Annotated[float | None, typer.Option(help="Seconds per decision.")] = None,
    time_bank: Annotated[
        float | None, typer.Option(help="Seconds per game past the move time, per bot.")
    ] = None,
    max_faults: Annotated[int | None, typer.Option(help="Faults before a forfeit.")] = None,
    isolation: Annotated[str | None, typer.Option(help="shared or process.")] = None,
    bot_memory: Annotated[int | None, typer.Option(help="MiB per bot process.")] = None,
    bot_cpu: Annotated[int | None, typer.Option(help="CPU seconds per bot process.")] = None,
    db: DbPath = None,
    bots_dirs: BotsDir = None,
    again: Annotated[
        bool, typer.Option("--again", help="Play a finished match's very games once more.")
    ] = False,
    fmt: Annotated[str, typer.Option("--format", help="table or json.")] = "table",
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress display.")] = False,
) -> None:
    """Play A against B on duplicate boards (each deal with both seatings) and report the
    pentanomial outcomes, A's score and Elo; with --sprt, stop once the test decides.

    The games are stored and rated like any run's; running the same command again continues an
    interrupted match.
    """
    from arena.ratings.sprt import Sprt, SprtError
    from arena.tournament.run_plan import RunOptions

    check_format(fmt, ("table", "json"))
    if a == b:
        raise fail(f"a match needs two different bots, not {a!r} twice")
    test = None
    settings = {"elo0": elo0, "elo1": elo1, "alpha": alpha, "beta": beta, "model": model}
    given = [name for name, value in settings.items() if value != SPRT_DEFAULTS[name]]
    if given and not sprt:
        raise fail(f"--{given[0]} sets the SPRT, which this match does not run: add --sprt")
    if sprt:
        try:
            Sprt(elo0, elo1, alpha, beta, model)
        except SprtError as exc:
            raise fail(str(exc)) from None
        test = settings
    options = RunOptions(
        games_per_game=games, game_names=[game] if game else None, bots=[a, b], players=players,
        seed=seed, jobs=jobs, move_time=move_time, time_bank=time_bank, max_faults=max_faults,
        isolation=isolation,
        bot_memory=bot_memory, bot_cpu=bot_cpu, db=db, bots_dirs=bots_dirs, duplicate=True,
        again=again, match={"sprt": test},
    )  # fmt: skip
    plan, registry, store, settled, sandbox = _settle(options)
    try:
        result = _play(plan, registry, store, settled, quiet, sandbox)
    finally:
        store.close()
    typer.echo(json.dumps(result, indent=2) if fmt == "json" else describe(result))


def _settle(options):
    from arena.limits import PlanError
    from arena.tournament.run import default_db
    from arena.tournament.run_plan import plan_run
    from arena.tournament.settle import settle

    try:
        plan = plan_run(options, None, unfinished_runs, default_db())
        # Bots must not see the database, whatever folder the sandbox shows them.
        sandbox = sandbox_settings(None, hidden=[Path(plan.db).parent])
        load = partial(load_registry, sandbox=sandbox)
        registry, store, settled = settle(plan, load, open_store, warn)
    except PlanError as exc:
        raise fail(str(exc)) from None
    plans = settled.tournament.plans
    if len(plans) != 1:
        store.close()
        games = ", ".join(p.game for p in plans)
        raise fail(f"{options.bots[0]} and {options.bots[1]} both play {games}: choose with --game")
    return plan, registry, store, settled, sandbox


def _play(plan, registry, store, settled, quiet: bool, sandbox) -> dict:
    from arena.execution.process.bot_process import IsolationError
    from arena.execution.workers import WorkerError
    from arena.store.database import StoreError
    from arena.tournament.match import MatchStopper
    from arena.tournament.run import TournamentError, run_tournament
    from arena.views.progress import Progress

    tournament = settled.tournament
    stopper = MatchStopper.of(tournament)
    game = tournament.plans[0]
    typer.echo(
        f"{game.game}: {stopper.a} against {stopper.b}, {game.players} seats, at most "
        f"{tournament.games_per_game} games; seed {tournament.seed}, results in {plan.db}",
        err=True,
    )
    if settled.isolation == "process":
        announce_sandbox(sandbox, tournament.bot_memory)
    progress = Progress(enabled=not quiet)
    try:
        with progress:
            summary = run_tournament(
                tournament, registry, store, jobs=settled.jobs, resume=True, stopper=stopper,
                sandbox=sandbox,
                progress=lambda g, done, total: progress.update(g, done, total, stopper.status()),
            )  # fmt: skip
    except (StoreError, TournamentError, WorkerError, IsolationError) as exc:
        raise fail(str(exc), code=1) from None
    if summary.interrupted:
        typer.echo(
            "interrupted: finished games are stored; the same command continues the match",
            err=True,
        )
        raise typer.Exit(code=130)
    return {"run": summary.run_id, "game": game.game, **stopper.result()}


def describe(result: dict) -> str:
    """The match's result in a few lines."""
    counts = ", ".join(f"{k} {v}" for k, v in result["pentanomial"].items())
    elo = result["elo"]
    elo_text = f"{elo:+.1f}" if elo is not None else ("+∞" if result["score"] > 0.5 else "−∞")
    lines = [
        f"{result['a']} against {result['b']} at {result['game']} (run {result['run']}): "
        f"{result['boards']} boards, {result['games']} games",
        f"boards: {counts}",
        f"score of {result['a']}: {result['score']:.3f} (Elo {elo_text})",
    ]
    test = result.get("sprt")
    if test:
        verdict = {
            "H1": f"H1 accepted: {result['a']} is stronger by at least {test['elo1']:g} Elo",
            "H0": f"H0 accepted: {result['a']} is not stronger by more than {test['elo0']:g} Elo",
        }.get(test["decision"], f"no decision: {test['decision']}")
        lines.append(
            f"SPRT [{test['elo0']:g}, {test['elo1']:g}] ({test['model']}, α {test['alpha']:g}, "
            f"β {test['beta']:g}): LLR {test['llr']:+.2f} in ({test['lower']:+.2f}, "
            f"{test['upper']:+.2f}); {verdict}"
        )
    return "\n".join(lines)
