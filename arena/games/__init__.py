"""The games: the interface every engine offers (``base``), records (``record``), the toolkit of
their text views (``narration``), and one folder per bundled game. The bundled games are plugins
like any other (``arena.plugins.builtin``): everything else finds games through the registry.

A plugin game imports what it builds on from here (``from arena.games import Game, State``).
The bundled games' classes are imported when first asked for (``from arena.games import
TwentyDown``): a bot's own process (``--isolation process``) imports the interface and the one
game it plays, not every game (each costs a bot process tens of milliseconds to start)."""

from importlib import import_module

from arena.games import base
from arena.games.base import *  # noqa: F403 (the interface of every game, as before)

_BUNDLED = {"HowLowCanYouGo": "arena.games.how_low", "TwentyDown": "arena.games.twenty_down"}

__all__ = [*base.__all__, *_BUNDLED]


def __getattr__(name: str):
    module = _BUNDLED.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = globals()[name] = getattr(import_module(module), name)
    return value
