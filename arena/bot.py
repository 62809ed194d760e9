"""The base class of every bot, the one thing a bot file needs besides ``arena.hookimpl``."""

from __future__ import annotations

import hashlib
import random
from typing import Any, ClassVar


def seat_seed(game_seed: str, seat: int) -> str:
    """The seed of a seat's ``Bot.rng``: a one-way digest of the game's seed and the seat.

    A bot can read its generator's state, and a Mersenne Twister's state gives back the string
    it was seeded with; from the game's seed it could deal every hand. A digest gives back only
    the digest.
    """
    return hashlib.sha256(f"{game_seed}/seat-{seat}".encode()).hexdigest()


class Bot:
    """A player for one seat of one game, from the game's start to its end.

    Subclasses set ``name`` (unique on the leaderboard) and optionally ``games`` (the game names it
    plays; leave it out to play every game), optionally ``by_default = False`` (fielded only when
    named), and define ``act(observation)``, which returns one
    element of ``observation.legal_actions``. Optional: ``start(info)`` before the first decision
    and ``end(result)`` after the last.

    ``self.rng`` is the bot's own ``random.Random``, seeded by the referee from the game's seed
    and the seat (``seat_seed``): use it for every random choice and a tournament replays exactly.
    Settings given at registration (``register(MyBot, name="my-bot-fast", depth=2)``) become
    attributes of the bot object. ``self.time_left()`` tells how long ``act`` may still take.
    """

    name: ClassVar[str] = ""
    games: ClassVar[set[str] | frozenset[str] | None] = None
    # False: a run fields the bot only when it is named (``--bots``, a tournament file), e.g. a
    # bot too slow for a plain ``arena run``.
    by_default: ClassVar[bool] = True
    rng: random.Random

    def __init__(self, **settings: Any) -> None:
        for key, value in settings.items():
            setattr(self, key, value)

    def __getattr__(self, name: str) -> Any:
        # ``rng`` is made on first use: seeding a generator costs as much as a dozen decisions,
        # and many bots never draw a random number.
        if name == "rng":
            rng = self.__dict__["rng"] = random.Random(self.__dict__.get("_arena_seed", 0))
            return rng
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def time_left(self) -> float:
        """Seconds before the decision in progress is a ``timeout``, by the referee's clock: what
        is left of the move time and of this seat's time bank (``--time-bank``), as the referee
        counts it when ``act`` (or ``start``, ``end``) is called; ``math.inf`` outside them."""
        from arena.referee.watchdog import time_left  # (arena.referee imports this module)

        return time_left()

    def act(self, observation: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} defines no act(observation)")
