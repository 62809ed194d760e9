"""How Low Can You Go?: the rules (``rules``), the card values (``hands``), how a deal is told and
shown to a person (``view``), the bot ``arena new-bot`` writes (``bot_template``). Bots import
their names from here (``arena.games.how_low.VALUE``)."""

from arena.games.discards import MAX_DISCARD
from arena.games.how_low.hands import HAND_SIZE, REDRAW, ROUNDS, VALUE, hand_total
from arena.games.how_low.rules import (
    HowLowCanYouGo,
    HowLowObservation,
    HowLowState,
    Showdown,
    bank_prize,
)

__all__ = [
    "HAND_SIZE",
    "MAX_DISCARD",
    "REDRAW",
    "ROUNDS",
    "VALUE",
    "HowLowCanYouGo",
    "HowLowObservation",
    "HowLowState",
    "Showdown",
    "bank_prize",
    "hand_total",
]
