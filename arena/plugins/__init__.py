"""Finding bots and games: bot files in ``bots/``, installed entry points, the bundled games.

``load_registry`` (what a bot author's unit test calls) is importable from here."""

from arena.plugins.loading import load_registry

__all__ = ["load_registry"]
