"""``python -m arena`` runs the command line."""

from arena.cli import run_main

run_main()
