"""arena: pit card-playing bots against each other under exact rules, rated with TrueSkill.

The public names a bot file uses are ``arena.Bot`` and ``arena.hookimpl`` (and, for a search with
a time budget, ``arena.Deadline``).
"""

from arena.bot import Bot
from arena.cards import CARDS, Card, Suit, parse_card, parse_cards, parse_suit
from arena.deadline import Deadline
from arena.hookspecs import hookimpl

__version__ = "0.1.0"

__all__ = [
    "CARDS",
    "Bot",
    "Card",
    "Deadline",
    "Suit",
    "__version__",
    "hookimpl",
    "parse_card",
    "parse_cards",
    "parse_suit",
]
