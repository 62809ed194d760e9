"""``python -m arena`` runs the command line."""

from .cli import app

app(prog_name="arena")
