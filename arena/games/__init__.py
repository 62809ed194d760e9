"""The bundled games. Each is also registered as a plugin (``arena.plugins.builtin``)."""

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

BUILTIN_GAMES: tuple[type[Game], ...] = (HowLowCanYouGo, TwentyDown)

__all__ = [
    "BUILTIN_GAMES",
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
