"""The referee: plays one game between bots, and nothing a bot does can stop it.

``play_game`` (one game in this process, as a bot author's unit test plays it) is importable from
here; the rules of refereeing live in ``table``. It is imported on first use, so that reading
``arena.referee.outcome`` (the store, ``arena export``) does not load the referee and the
execution layer behind it."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from arena.referee.inline import play_game

__all__ = ["play_game"]


def __getattr__(name: str):
    if name == "play_game":
        from arena.referee.inline import play_game

        return play_game
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
