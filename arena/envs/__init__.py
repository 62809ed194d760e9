"""Both games as environments of the standard research libraries (the optional extra
``arena[rl]``): ``pettingzoo_env(game, **params)`` (PettingZoo's AEC API) and
``register_openspiel_games()`` (OpenSpiel Python games ``python_arena_twenty_down`` and
``python_arena_how_low``). The libraries are imported only when these are called."""

from __future__ import annotations


def pettingzoo_env(game, **params):
    """A PettingZoo AEC environment of ``game`` (a name or alias, or a ``Game``); ``params`` are
    the game's (``players``, ``variant``, its parameters) and ``render_mode``."""
    from arena.envs.pettingzoo import ArenaAECEnv

    return ArenaAECEnv(game, **params)


def register_openspiel_games() -> tuple[str, ...]:
    """Register both games with OpenSpiel (once); returns their short names for
    ``pyspiel.load_game``."""
    from arena.envs.openspiel import register

    return register()


__all__ = ["pettingzoo_env", "register_openspiel_games"]
