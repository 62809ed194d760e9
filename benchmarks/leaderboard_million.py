"""How long `arena leaderboard` takes on a database of a million games: cold (no cached batch
rating), warm (cached, nothing new), and after a thousand more games (the cache is topped up).

    python benchmarks/leaderboard_million.py [--games 1000000] [--db PATH] [--again]

The games are not played: their rows (games, seats, placings, TrueSkill ratings) are written
straight into a fresh arena database, four bots of known Plackett–Luce strengths at tables of
four in duplicate boards of four games, each game with a 300-byte stand-in record. Prints seconds.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from arena.store.database import Store

BOTS = ("alpha", "bravo", "charlie", "delta")
THETA = np.array([0.6, 0.2, -0.2, -0.6])


def fill(path: Path, games: int, first_id: int = 1, seed: int = 1) -> None:
    """Append ``games`` games of twenty-down, ids from ``first_id``, to the database."""
    rng = np.random.default_rng(seed)
    store = Store(path)
    db = store.db
    run_id = db.execute(
        "INSERT INTO runs(created, seed, config, status) VALUES (0, 'synthetic', '{}', 'finished')"
    ).lastrowid
    step = 50_000
    for start in range(0, games, step):
        count = min(step, games - start)
        ids = np.arange(first_id + start, first_id + start + count)
        noisy = THETA + rng.gumbel(size=(count, 4))
        places = (-noisy).argsort(axis=1).argsort(axis=1) + 1  # 1 = best
        scores = rng.integers(0, 40, size=(count, 4))
        db.execute("BEGIN")
        db.executemany(
            "INSERT INTO games VALUES (?, ?, 'twenty-down', ?, ?, ?, 4, 120, 0.001, ?, "
            "randomblob(300))",
            [
                (int(i), run_id, int(i - first_id), int((i - first_id) // 4), f"s/{i // 4}",
                 1e9 + float(i))
                for i in ids
            ],
        )  # fmt: skip
        seat_rows, placing_rows = [], []
        for row, game_id in enumerate(ids.tolist()):
            for seat in range(4):
                bot = BOTS[(seat + game_id) % 4]
                b = BOTS.index(bot)
                place = int(places[row, b])
                seat_rows.append((game_id, seat, bot, int(scores[row, b]), place, 0, 0))
                placing_rows.append((game_id, "twenty-down", bot, float(place)))
        db.executemany("INSERT INTO seats VALUES (?,?,?,?,?,?,?)", seat_rows)
        db.executemany("INSERT INTO placings VALUES (?,?,?,?)", placing_rows)
        db.execute("COMMIT")
    db.executemany(
        "INSERT OR REPLACE INTO ratings VALUES ('twenty-down', ?, ?, 1.0, 1.0, 0.08)",
        [(bot, 25 + 3 * t) for bot, t in zip(BOTS, THETA, strict=True)],
    )
    store.close()


def timed_leaderboard(path: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one `arena leaderboard`."""
    before = os.times()
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "arena", "leaderboard", "--db", str(path), "--sort", "elo"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    after = os.times()
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    return time.perf_counter() - start, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--db", type=Path, default=Path("/tmp/arena-million.db"))
    parser.add_argument(
        "--again", action="store_true", help="Reuse the database of an earlier run of this script."
    )
    args = parser.parse_args()
    if not args.again:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{args.db}{suffix}").unlink(missing_ok=True)
        start = time.perf_counter()
        fill(args.db, args.games)
        print(f"wrote {args.games:,} games in {time.perf_counter() - start:.1f} s")
    db = sqlite3.connect(args.db)
    db.execute("DELETE FROM batch_ratings")
    db.commit()
    last = db.execute("SELECT MAX(id) FROM games").fetchone()[0]
    db.close()
    figures = [("cold", timed_leaderboard(args.db)), ("warm", timed_leaderboard(args.db))]
    fill(args.db, 1000, first_id=last + 1, seed=last)
    figures.append(("after 1,000 more games", timed_leaderboard(args.db)))
    figures.append(("warm again", timed_leaderboard(args.db)))
    print(f"arena leaderboard on {last + 1000:,} games (wall / CPU seconds):")
    for label, (wall, cpu) in figures:
        print(f"  {label:<24}{wall:>7.2f} s{cpu:>8.2f} s")


if __name__ == "__main__":
    main()
