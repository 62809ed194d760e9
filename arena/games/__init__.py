"""The games: the interface every engine offers (``base``), records (``record``), the toolkit of
their text views (``narration``), and one folder per bundled game. The bundled games are plugins
like any other (``arena.plugins.builtin``): everything else finds games through the registry."""

from arena.games.base import (
    TERMINAL,
    Game,
    GameError,
    GameOverError,
    GameResult,
    IllegalActionError,
    InvalidParametersError,
    NotYourTurnError,
    Observation,
    RecordError,
    State,
    replay,
)
from arena.games.how_low import HowLowCanYouGo
from arena.games.twenty_down import TwentyDown

__all__ = [
    "TERMINAL",
    "Game",
    "GameError",
    "GameOverError",
    "GameResult",
    "HowLowCanYouGo",
    "IllegalActionError",
    "InvalidParametersError",
    "NotYourTurnError",
    "Observation",
    "RecordError",
    "State",
    "TwentyDown",
    "replay",
]
