"""Commands about stored games: listing, replaying, verifying; and a human seat at the table."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add this module's commands to the ``arena`` app."""
