"""Which game an environment plays: a ``Game``, a ``Game`` class, or a bundled game's name or
alias (a plugin game is passed as its class or an instance)."""

from __future__ import annotations

from arena.games import HowLowCanYouGo, TwentyDown
from arena.games.base import Game, InvalidParametersError

BUNDLED: tuple[type[Game], ...] = (TwentyDown, HowLowCanYouGo)


def make_game(game, **params) -> Game:
    if isinstance(game, Game):
        if params:
            raise InvalidParametersError("give parameters with a game's name or class, not a Game")
        return game
    if isinstance(game, type) and issubclass(game, Game):
        return game(**params)
    for cls in BUNDLED:
        if game == cls.name or game in cls.aliases:
            return cls(**params)
    names = ", ".join(cls.name for cls in BUNDLED)
    raise InvalidParametersError(f"unknown game {game!r} (bundled games: {names})")
