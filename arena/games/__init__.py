"""The games: the interface every engine offers (``base``), records (``record``), the toolkit of
their text views (``narration``), and one folder per bundled game. The bundled games are plugins
like any other (``arena.plugins.builtin``): everything else finds games through the registry.

A plugin game imports what it builds on from here (``from arena.games import Game, State``)."""

from arena.games import base
from arena.games.base import *  # noqa: F403 (the interface of every game, as before)
from arena.games.how_low import HowLowCanYouGo
from arena.games.twenty_down import TwentyDown

__all__ = [*base.__all__, "HowLowCanYouGo", "TwentyDown"]
