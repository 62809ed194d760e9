"""A small results database for the report tests: both games and their variants, a bot that
faults, two runs; and the report written from it."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.conftest import STANDARD_BOTS, bot_file, write_bots

# Faults now and then: an exception at every 7th decision of the game.
FAULTY_BOT = bot_file(
    "faulty",
    """
    self.calls = getattr(self, "calls", 0) + 1
    if self.calls % 7 == 0:
        raise RuntimeError("boom")
    return observation.legal_actions[0]
    """,
)

VARIANTS = textwrap.dedent(
    """
    games = 4
    seed = "variants"
    [game.twenty-down]
    bots = ["random", "faulty"]
    variant = "brostedt"
    [game.how-low-can-you-go]
    players = 3
    bots = ["random", "first"]
    variant = "whalen"
    """
)


def make_database(cli, folder: Path) -> Path:
    """Run 1: both games, 6 games each, with the faulty bot; run 2: the variants."""
    bots = write_bots(folder / "bots", {**STANDARD_BOTS, "faulty.py": FAULTY_BOT})
    db = folder / "arena.db"
    first = cli(
        "run", "--games", 6, "--seed", 5, "--bots", "random,first,faulty", "--db", db,
        "--bots-dir", bots, "--jobs", 1, "-q",
    )  # fmt: skip
    assert first.exit_code == 0, first.output
    toml = folder / "variants.toml"
    toml.write_text(VARIANTS)
    second = cli("run", toml, "--db", db, "--bots-dir", bots, "--jobs", 1, "-q")
    assert second.exit_code == 0, second.output
    return db
