"""The bundled games and bots, registered through the same hooks as any outside plugin."""

from arena.games.base import Game
from arena.games.how_low import HowLowCanYouGo
from arena.games.twenty_down import TwentyDown
from arena.hookspecs import hookimpl
from arena.plugins.baseline import (
    hl_heuristic,
    hl_search,
    openspiel_ismcts,
    random_bot,
    td_heuristic,
    td_search,
)

BUILTIN_GAMES: tuple[type[Game], ...] = (HowLowCanYouGo, TwentyDown)
BUILTIN_BOTS = (random_bot, td_heuristic, hl_heuristic, td_search, hl_search, openspiel_ismcts)
# How a fresh process (a bot's own, ``--isolation process``) loads a bundled bot alone.
ORIGIN = ("module", __name__)
SOURCE = "arena (bundled)"


@hookimpl
def arena_register_games(register):
    for game in BUILTIN_GAMES:
        register(game)


@hookimpl
def arena_register_bots(register):
    for module in BUILTIN_BOTS:
        module.arena_register_bots(register)
