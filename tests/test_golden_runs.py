"""Golden runs: for fixed seeds, what a run stores and prints stays the same to the byte.

Each scenario plays a small tournament through the real command line and digests everything that
decides a result: the leaderboard JSON, every stored row of games, seats, placings, faults and
ratings (all but wall-clock times), and each record's header and decisions (its timings are the
only part that may differ). The digests were taken before arena was restructured; a change that
alters any figure, message or record of these runs fails here. Regenerate deliberately with
``ARENA_WRITE_GOLDEN=1 python -m pytest tests/test_golden_runs.py`` and say why in the commit.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

from arena.games.record import unpack

GOLDEN = Path(__file__).parent / "golden" / "runs.json"

# A bot that faults in every way a deterministic bot can: exceptions, illegal answers, a failing
# start() and end(), so the fault log, forfeits and fallbacks are part of the golden figures.
FAULTY = """
import arena


class Faulty(arena.Bot):
    name = "faulty"

    def start(self, info):
        if info.seat == 2:
            raise RuntimeError("no start at seat 2")

    def act(self, observation):
        legal = observation.legal_actions
        roll = self.rng.random()
        if roll < 0.04:
            raise ValueError("boom")
        if roll < 0.07:
            return "not an action"
        return legal[self.rng.randrange(len(legal))]

    def end(self, result):
        if result.scores[0] % 2:
            raise KeyError("odd")


@arena.hookimpl
def arena_register_bots(register):
    register(Faulty)
"""

SCENARIOS = {
    "td-shared": ["--game", "twenty-down", "--games", "40", "--seed", "golden-td"],
    "hl-five-no-duplicate": [
        "--game",
        "hl",
        "--players",
        "5",
        "--games",
        "30",
        "--seed",
        "golden-hl",
        "--no-duplicate",
    ],
    "both-two-jobs": ["--games", "24", "--seed", "golden-both", "--jobs", "2"],
    "both-process": ["--games", "16", "--seed", "golden-both-p", "--isolation", "process"],
}

QUERIES = {
    "games": "SELECT id, run_id, game, idx, board, seed, players, decisions FROM games ORDER BY id",
    "seats": "SELECT * FROM seats ORDER BY game_id, seat",
    "placings": "SELECT * FROM placings ORDER BY game_id, bot",
    "faults": "SELECT * FROM faults ORDER BY game_id, seat, decision, kind, message",
    "ratings": "SELECT * FROM ratings ORDER BY game, bot",
    "runs": "SELECT id, seed, config, status FROM runs ORDER BY id",
}


def _arena(*args: str, cwd: Path) -> str:
    env = {k: v for k, v in os.environ.items() if k != "ARENA_BOTS_DIR"}
    done = subprocess.run(
        [sys.executable, "-m", "arena", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _plain(value):
    if isinstance(value, bytes | bytearray):
        return value.hex()
    raise TypeError(type(value).__name__)


def _digest(value) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=_plain).encode()).hexdigest()


# Wall-clock figures: the one part of a replay that may differ between two runs of a seed.
CLOCK_TEXT = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d|[\d.]+ ms a move")
CLOCK_KEYS = {"decision_ms", "ms", "finished"}
BATCH_KEYS = ("elo", "elo_ci")


def _without_clock(value):
    if isinstance(value, dict):
        return {k: _without_clock(v) for k, v in value.items() if k not in CLOCK_KEYS}
    if isinstance(value, list):
        return [_without_clock(v) for v in value]
    return value


def _replay(first: str, db: Path, workspace: Path, *options: str):
    text = _arena("replay", first, "--db", str(db), *options, cwd=workspace)
    if "json" in options:
        return _without_clock(json.loads(text))
    return CLOCK_TEXT.sub("<clock>", text)


def _figures(workspace: Path, db: Path) -> dict:
    connection = sqlite3.connect(db)
    try:
        rows = {name: connection.execute(sql).fetchall() for name, sql in QUERIES.items()}
        records = []
        for (blob,) in connection.execute("SELECT record FROM games ORDER BY id"):
            header, indices, _times = unpack(blob)
            records.append([header, list(indices)])
    finally:
        connection.close()
    first = str(rows["games"][0][0])
    figures = {name: _digest(value) for name, value in rows.items()}
    figures["records"] = _digest(records)
    board = json.loads(_arena("leaderboard", "--db", str(db), "--format", "json", cwd=workspace))
    # The batch rating's columns came later: digested apart, so the older figures keep their
    # digests and show they did not change.
    batch = {
        game: [{k: row.pop(k) for k in BATCH_KEYS} for row in rows] for game, rows in board.items()
    }
    figures["leaderboard"] = _digest(board)
    figures["leaderboard-batch"] = _digest(batch)
    figures["leaderboard-table"] = _digest(_arena("leaderboard", "--db", str(db), cwd=workspace))
    figures["replay-json"] = _digest(_replay(first, db, workspace, "--format", "json"))
    figures["replay-seat-json"] = _digest(
        _replay(first, db, workspace, "--seat", "1", "--format", "json")
    )
    figures["replay-text"] = _digest(_replay(first, db, workspace, "--ascii"))
    figures["replay-seat"] = _digest(_replay(first, db, workspace, "--seat", "1", "--ascii"))
    return figures


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_fixed_seed_runs_store_and_print_what_they_always_did(scenario, tmp_path):
    bots = tmp_path / "bots"
    bots.mkdir()
    for source in ("random_bot.py", "td_heuristic.py", "hl_heuristic.py"):
        (bots / source).write_text((REPO / "arena" / "plugins" / "baseline" / source).read_text())
    (bots / "faulty.py").write_text(FAULTY)
    db = tmp_path / "golden.db"
    _arena("run", *SCENARIOS[scenario], "--db", str(db), "--quiet", cwd=tmp_path)
    figures = _figures(tmp_path, db)

    stored = json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {}
    if os.environ.get("ARENA_WRITE_GOLDEN") == "1":
        stored[scenario] = figures
        GOLDEN.write_text(json.dumps(stored, indent=1, sort_keys=True) + "\n")
    assert scenario in stored, "no golden figures: run once with ARENA_WRITE_GOLDEN=1"
    assert figures == stored[scenario]
