"""The bundled games, registered through the same hook as any outside plugin."""

from arena.games import BUILTIN_GAMES
from arena.hookspecs import hookimpl


@hookimpl
def arena_register_games(register):
    for game in BUILTIN_GAMES:
        register(game)
