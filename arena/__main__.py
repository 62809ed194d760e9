"""``python -m arena`` runs the command line."""

from .cli import run_main

run_main()
