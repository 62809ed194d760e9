"""Issue 13's smaller items: a default seed no bot can search through, a leaderboard read in a
folder arena may not write to, and a bot process that cannot be started told in one line."""

from __future__ import annotations

import gc
import json
import os
import shutil
import sqlite3
import subprocess
import sys

import pytest
from conftest import write_bots
from test_hostile_bots import HONEST, TD, Ran

from arena.bot import seat_seed
from arena.execution.process import bot_process
from arena.tournament.plan import new_seed

pytestmark = pytest.mark.usefixtures("isolated")


# --- secrets: the run's seed ----------------------------------------------------------------------


def test_default_seed_has_128_random_bits():
    seeds = [new_seed() for _ in range(200)]
    assert len(set(seeds)) == 200
    assert all(len(seed) == 32 and int(seed, 16) < 2**128 for seed in seeds)
    assert max(int(seed, 16) for seed in seeds) >= 2**120  # not a small number written long


def test_run_without_a_seed_stores_a_128_bit_one_and_seat_seeds_do_not_show_it(cli, tmp_path):
    folder = write_bots(tmp_path / "bots", HONEST)
    db = tmp_path / "seeded.db"
    result = cli("run", "--games", 2, "--db", db, "--bots-dir", folder, "-q", "--game", TD)
    assert result.exit_code == 0, result.output
    ((seed,),) = Ran(None, db, TD, 2).query("SELECT seed FROM runs")
    assert len(seed) == 32 and int(seed, 16) >= 0
    games = Ran(None, db, TD, 2).query("SELECT seed FROM games")
    for (game_seed,) in games:
        seat_seeds = {seat_seed(game_seed, seat) for seat in range(4)}
        assert len(seat_seeds) == 4
        assert not any(seed in s or game_seed in s for s in seat_seeds)


# --- smaller items --------------------------------------------------------------------------------


def _without_file_permissions() -> list[str]:
    """A command prefix under which file permissions hold even for root (CI runs as root, where
    chmod stops nothing): no CAP_DAC_OVERRIDE, no CAP_DAC_READ_SEARCH."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        if os.environ.get("CI"):
            pytest.fail("setpriv (util-linux) is needed to test file permissions as root")
        pytest.skip("running as root without setpriv: chmod would stop nothing")
    return [setpriv, "--bounding-set", "-dac_override,-dac_read_search"]


def test_leaderboard_reads_a_database_in_a_read_only_folder_and_writes_nothing(cli, tmp_path):
    folder = write_bots(tmp_path / "bots", HONEST)
    shelf = tmp_path / "shelf"
    shelf.mkdir()
    db = shelf / "arena.db"
    result = cli("run", "--games", 2, "--seed", 1, "--db", db, "--bots-dir", folder, "-q")
    assert result.exit_code == 0, result.output
    gc.collect()  # (the command leaves its connection to the collector)
    assert sorted(p.name for p in shelf.iterdir()) == ["arena.db"]
    with sqlite3.connect(db) as con:  # a database in WAL mode, as every run leaves it
        assert con.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    con.close()
    before = (db.read_bytes(), db.stat().st_mtime_ns)
    db.chmod(0o444)
    shelf.chmod(0o555)
    try:
        command = [*_without_file_permissions(), sys.executable, "-m", "arena"]
        proc = subprocess.run(
            [*command, "leaderboard", "--db", str(db), "--format", "json"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        shelf.chmod(0o755)
        db.chmod(0o644)
    assert proc.returncode == 0, proc.stderr
    assert set(json.loads(proc.stdout)) == {"how-low-can-you-go", TD}
    assert sorted(p.name for p in shelf.iterdir()) == ["arena.db"]  # no -wal, -shm, -journal
    assert (db.read_bytes(), db.stat().st_mtime_ns) == before


def test_bot_process_that_cannot_be_started_is_one_clear_fault_not_an_internal_error(
    cli, tmp_path, monkeypatch
):
    real = subprocess.Popen

    def popen(args, *rest, **kwargs):
        if "arena.execution.process.bot_host" in args:
            raise PermissionError(13, "Permission denied", args[0])
        return real(args, *rest, **kwargs)

    monkeypatch.setattr(bot_process.subprocess, "Popen", popen)
    folder = write_bots(tmp_path / "bots", HONEST)
    db = tmp_path / "denied.db"
    options = ["--game", TD, "--isolation", "process", "-j", 1, "--format", "json"]
    result = cli("run", "--games", 2, "--seed", 1, "--db", db, "--bots-dir", folder, *options)
    assert result.exit_code == 0, result.output
    assert "internal error" not in result.output
    faults = Ran(None, db, TD, 2).faults()
    assert faults
    for _, _, _, decision, kind, message in faults:
        assert (decision, kind) == (0, "crash"), message
        assert "cannot start in its own process: PermissionError" in message, message
        assert "\n" not in message
