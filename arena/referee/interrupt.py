"""Telling a real Ctrl-C from a ``KeyboardInterrupt`` that bot code raised.

Whoever owns the terminal (a tournament run, a person's game, the plugin loader) makes one
``Interrupt``, sets it from its SIGINT handler, and hands it to the code that runs bot code: a
``KeyboardInterrupt`` caught there is passed on only when the flag says it was the person's.
"""

from __future__ import annotations


class UserInterrupt(KeyboardInterrupt):
    """A real Ctrl-C from the person running arena (a bot raising KeyboardInterrupt is a fault)."""


class Interrupt:
    """Whether the person running arena asked to stop."""

    __slots__ = ("requested",)

    def __init__(self, requested: bool = False):
        self.requested = requested

    def pass_on(self, exc: BaseException) -> None:
        """Raise ``UserInterrupt`` if ``exc``, caught around bot code, was the person's Ctrl-C."""
        if self.requested and isinstance(exc, KeyboardInterrupt):
            raise UserInterrupt() from None
