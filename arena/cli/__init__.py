"""The ``arena`` command: thin typer commands that parse, call one function and print."""

from arena.cli.main import run_main

__all__ = ["run_main"]
