"""Setting up a game for ``arena play``: the table, the bots in the other seats, the person's seat.

Every mistake — an unknown game or bot, a bot that does not play the game, more bots than seats,
a table size or move time the game does not allow — becomes one ``HumanGameError`` line before the
game starts. Playing it is ``arena.views.human_seat.play``.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from arena.games.base import Game, InvalidParametersError
from arena.limits import PlanError, check_setting
from arena.plugins.loading import BUNDLED, Registry, UnknownNameError
from arena.views.human_seat import HUMAN, choose_seat


class HumanGameError(Exception):
    """A game that cannot be set up as asked; one line for the user."""


@dataclass(frozen=True)
class HumanGame:
    table: Game
    bots: list[str]  # they fill the seats other than the person's, in turn
    seat: int  # the person's
    seed: str


def set_up_game(
    registry: Registry,
    game: str,
    bots: list[str] | None,
    players: int | None,
    seat: int | None,
    seed: str | None,
    move_time: float,
    variant: str | None = None,
    params: dict[str, int] | None = None,
) -> HumanGame:
    """The game ``arena play`` starts. ``bots`` None: every bot that plays it; ``players`` None:
    the person and the bots, if the game allows that many; ``seat`` and ``seed`` None: chosen.
    ``bots`` empty (``--bots ''``) is an error, not "every bot"."""
    try:
        spec = registry.game(game)
    except UnknownNameError as exc:
        raise HumanGameError(str(exc)) from None
    if bots == []:
        raise HumanGameError("--bots names no bot; leave it out to play every bot")
    names = bots if bots is not None else _default_bots(registry, spec.name)
    _check_bots(registry, spec.name, names)
    names = [registry.bot(name).name for name in names]  # (name@N: the version's stored name)
    cls = spec.cls
    if players is None:
        players = len(names) + 1
        if not cls.min_players <= players <= cls.max_players:
            players = cls.default_players
    if bots is None:
        names = names[: players - 1]  # more than the table holds: your own bots first
    if len(names) > players - 1:
        raise HumanGameError(
            f"{spec.name} at {players} seats has room for you and {players - 1} bot"
            f"{'s' if players != 2 else ''}, not {len(names)}"
            + (" (use --players)" if cls.min_players != cls.max_players else "")
        )
    try:
        table = cls(players=players, variant=variant, **(params or {}))
        check_setting("move_time", move_time)
    except (InvalidParametersError, PlanError) as exc:
        raise HumanGameError(str(exc)) from None
    seed = seed or secrets.token_hex(4)
    if seat is None:
        seat = choose_seat(seed, players)
    elif not 0 <= seat < players:
        raise HumanGameError(f"--seat must be 0 to {players - 1}, not {seat}")
    return HumanGame(table, names, seat, seed)


def _default_bots(registry: Registry, game: str) -> list[str]:
    """The bots a game is played against when none are named: those a run fields by default,
    the plugins' (your own) before the bundled ones, each by name."""
    specs = registry.default_bots_for(game)
    return sorted(s.name for s in specs if s.source != BUNDLED) + sorted(
        s.name for s in specs if s.source == BUNDLED
    )


def _check_bots(registry: Registry, game: str, names: list[str]) -> None:
    for name in names:
        if name == HUMAN:
            raise HumanGameError(f"`{HUMAN}` is you; --bots names the bots at the table")
        try:
            bot = registry.bot(name)
        except UnknownNameError as exc:
            raise HumanGameError(str(exc)) from None
        if not bot.plays(game):
            raise HumanGameError(f"bot {name!r} does not play {game}")
    if not names:
        raise HumanGameError(f"no bot plays {game} (put bot files in ./bots or use --bots-dir)")
