"""The bundled games, registered through the same hook as any outside plugin."""

from arena.games.base import Game
from arena.games.how_low import HowLowCanYouGo
from arena.games.twenty_down import TwentyDown
from arena.hookspecs import hookimpl

BUILTIN_GAMES: tuple[type[Game], ...] = (HowLowCanYouGo, TwentyDown)


@hookimpl
def arena_register_games(register):
    for game in BUILTIN_GAMES:
        register(game)
