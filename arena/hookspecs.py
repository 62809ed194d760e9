"""The plugin hooks. A bot file or an installed package implements them with ``@arena.hookimpl``.

Hooks only register things; the referee calls bots directly, never through pluggy.
"""

import pluggy

hookspec = pluggy.HookspecMarker("arena")
hookimpl = pluggy.HookimplMarker("arena")


@hookspec
def arena_register_bots(register):
    """Register bots: ``register(BotClass)`` or ``register(BotClass, name="x", **settings)``."""


@hookspec
def arena_register_games(register):
    """Register games: ``register(GameClass)``."""
