"""Twenty Down (Zwanzig ab): the rules (``rules``), how a deal is told and shown to a person
(``view``), the bot ``arena new-bot`` writes (``bot_template``). Bots import their names from
here."""

from arena.games.twenty_down.phases import (
    DECIDE,
    DROP,
    EXCHANGE,
    OVER,
    PHASE_NAMES,
    PLAY,
    STAY,
    TRUMP,
)
from arena.games.twenty_down.rules import (
    PACK,
    Trick,
    TwentyDown,
    TwentyDownObservation,
    TwentyDownState,
)

__all__ = [
    "DECIDE",
    "DROP",
    "EXCHANGE",
    "OVER",
    "PACK",
    "PHASE_NAMES",
    "PLAY",
    "STAY",
    "TRUMP",
    "Trick",
    "TwentyDown",
    "TwentyDownObservation",
    "TwentyDownState",
]
