"""Twenty Down (Zwanzig ab): the rules (``rules``), its phases (``phases``), how a deal is told and
shown to a person (``view``), the bot ``arena new-bot`` writes (``bot_template``). Bots import
their names from here."""

from arena.games.twenty_down import phases
from arena.games.twenty_down.phases import *  # noqa: F403 (every phase and word, as before)
from arena.games.twenty_down.rules import (
    PACK,
    Trick,
    TwentyDown,
    TwentyDownObservation,
    TwentyDownState,
)

__all__ = [
    *phases.__all__,
    "PACK",
    "Trick",
    "TwentyDown",
    "TwentyDownObservation",
    "TwentyDownState",
]
