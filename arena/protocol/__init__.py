"""The JSON-lines protocol of bots in any language (``docs/protocol.md``), and a tiny client that
runs a Python bot as such a program::

    python -m arena.protocol path/to/bot.py:ClassName

or, at the end of a bot file run as a program, ``arena.protocol.serve(MyBot)``.
"""

from arena.protocol.client import serve

__all__ = ["serve"]
