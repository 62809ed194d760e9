"""Seating a bot: create it for one seat of one game and call its ``start()``, in every mode.

``play_game`` seats its bots in this process, a bot's own process seats them on the game
worker's command (``execution.process.bot_host``); both use ``seat_up``, so that a bot is seated,
timed and faulted the same way wherever it runs.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from arena.referee.clock import timed_call
from arena.referee.faults import describe, in_start, not_created, with_traceback
from arena.referee.interrupt import Interrupt
from arena.referee.watchdog import Watchdog


class Seating(NamedTuple):
    """What seating one bot came to. ``kind`` is None, or the kind of its fault, described by
    ``message``; ``bot`` is None when it does not exist (the seat forfeits), else it plays on."""

    bot: Any
    act: Any
    kind: str | None
    message: str
    seconds: float


def seat_up(
    watchdog: Watchdog,
    limit: float,
    factory,
    seed: int,
    info,
    interrupt: Interrupt | None = None,
) -> Seating:
    """Create a bot with ``factory()``, give it its seed (``bot.rng`` is made from it, see
    ``arena.Bot``) and call its ``start(info)``, each call under the time limit."""
    kind, bot, seconds = timed_call(watchdog, limit, factory, interrupt=interrupt)
    if kind is not None:
        return Seating(None, None, kind, not_created(bot), seconds)
    try:
        bot._arena_seed = seed
        act = bot.act
    except BaseException as exc:  # a hostile __setattr__ or act property: it cannot play
        if interrupt is not None:
            interrupt.pass_on(exc)
        return Seating(None, None, "exception", with_traceback(exc, describe(exc)), seconds)
    # Looked up on the class: arena.Bot.__getattr__ makes a miss on the object costly.
    if getattr(type(bot), "start", None) is not None:
        kind, message, more = timed_call(watchdog, limit, bot.start, info, interrupt=interrupt)
        seconds += more
        if kind is not None:
            return Seating(bot, act, kind, in_start(message), seconds)
    return Seating(bot, act, None, "", seconds)
