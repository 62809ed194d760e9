"""The referee: plays one game between bots, and nothing a bot does can stop it.

``play_game`` (one game in this process, as a bot author's unit test plays it) is importable from
here; the rules of refereeing live in ``table``."""

from arena.referee.inline import play_game

__all__ = ["play_game"]
