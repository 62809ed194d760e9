"""Turning what the user asked for (options or a tournament file) into a checked ``Tournament``.

Every mistake — an unknown game or bot, a bot asked for a game it does not play, a table size the
game does not allow, too few bots — becomes one ``PlanError`` line before any game is played.
"""

from __future__ import annotations

import random

from .games.base import InvalidParametersError
from .plugins import Registry, UnknownNameError
from .ratings import environment_for
from .tournament import GamePlan, Tournament
from .tournament_file import GameSection


class PlanError(Exception):
    """A tournament that cannot be played as asked; one line for the user."""


def new_seed() -> str:
    return str(random.SystemRandom().randrange(10**9))


def build_tournament(
    registry: Registry,
    games: int,
    game_names: list[str] | None = None,
    bots: list[str] | None = None,
    players: int | None = None,
    seed: str | None = None,
    move_time: float = 1.0,
    max_faults: int = 3,
    records: bool = True,
    sections: list[GameSection] | None = None,
    duplicate: bool = True,
) -> Tournament:
    if games < 1:
        raise PlanError(f"--games must be at least 1, not {games}")
    if move_time <= 0:
        raise PlanError(f"--move-time must be above 0 seconds, not {move_time:g}")
    if max_faults < 1:
        raise PlanError(f"--max-faults must be at least 1, not {max_faults}")
    for section in sections or ():
        env = section.environment
        for key in ("mu", "sigma", "beta", "tau"):
            if key in env and not env[key] > 0 and not (key == "tau" and env[key] == 0):
                raise PlanError(f"game.{section.name}.{key} must be above 0, not {env[key]:g}")
        if "draw_probability" in env and not 0 < env["draw_probability"] < 1:
            raise PlanError(
                f"game.{section.name}.draw_probability must be between 0 and 1 (exclusive), "
                f"not {env['draw_probability']:g}"
            )
    try:
        for name in bots or ():
            registry.bot(name)
        by_name: dict[str, GameSection] = {}
        for section in sections or ():
            canonical = registry.game(section.name).name
            if canonical in by_name:
                raise PlanError(
                    f"game {canonical!r} is described twice ([game.{by_name[canonical].name}] "
                    f"and [game.{section.name}])"
                )
            by_name[canonical] = section
        if game_names:
            chosen = [registry.game(n).name for n in game_names]
        elif by_name:
            chosen = list(by_name)
        else:
            chosen = sorted(registry.games)
    except UnknownNameError as exc:
        raise PlanError(str(exc)) from None
    chosen = list(dict.fromkeys(chosen))
    explicit_games = bool(game_names or by_name)

    plans = []
    skipped = []
    for name in chosen:
        section = by_name.get(name, GameSection(name))
        game_class = registry.games[name].cls
        wanted = section.bots or bots
        if wanted:
            for bot in wanted:
                try:
                    spec = registry.bot(bot)
                except UnknownNameError as exc:
                    raise PlanError(f"{exc} (in the bots of {name})") from None
                if not spec.plays(name) and (explicit_games or section.bots):
                    raise PlanError(
                        f"bot {bot!r} does not play {name} (it plays: "
                        f"{', '.join(sorted(spec.games or ()))})"
                    )
            table_bots = [b for b in dict.fromkeys(wanted) if registry.bots[b].plays(name)]
        else:
            table_bots = [b.name for b in registry.bots_for(name)]
        # --players sizes every game whose table size can vary; a fixed-size game only objects
        # when it was asked for by name.
        # The command line wins over the file; a fixed-size game objects only when named by --game.
        table_players = section.players
        variable = game_class.min_players != game_class.max_players
        if players is not None and (variable or bool(game_names)):
            table_players = players
        try:
            game = game_class(players=table_players, variant=section.variant, **section.params)
        except InvalidParametersError as exc:
            raise PlanError(str(exc)) from None
        if len(table_bots) < 2:
            if explicit_games:
                have = ", ".join(table_bots) or "none"
                raise PlanError(f"{name} needs at least 2 bots that play it (have: {have})")
            skipped.append(name)
            continue
        plans.append(
            GamePlan(
                game=name,
                players=game.players,
                bots=table_bots,
                variant=section.variant,
                params=dict(section.params),
                environment=environment_for(name, section.environment),
            )
        )
    if bots:
        used = {b for p in plans for b in p.bots}
        for bot in bots:
            if bot not in used:
                spec = registry.bots[bot]
                raise PlanError(
                    f"bot {bot!r} plays none of the games of this run (it plays: "
                    f"{', '.join(sorted(spec.games or ())) or 'every game'})"
                )
    if not plans:
        raise PlanError("no game has at least 2 bots to play it; add bot files to bots/")
    return Tournament(
        plans=plans,
        games=games,
        seed=str(seed) if seed is not None else new_seed(),
        move_time=move_time,
        max_faults=max_faults,
        records=records,
        duplicate=duplicate,
    )
