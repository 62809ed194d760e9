"""How long ``arena report`` takes on a large database: ``python -m arena.bench.report``.

Plays a few hundred games of each game with the bundled bots (fixed seed), copies their rows
until the database holds ``--games`` games (default 100,000; the copies are real, replayable
games), then writes the report and prints the time of each part, wall clock and CPU (the forked
processes that re-run the records included).
"""

from __future__ import annotations

import argparse
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_COPY = {
    "games": "id + :o, run_id, game, idx + :o, board, seed, players, decisions, seconds, "
    "finished, record",
    "seats": "game_id + :o, seat, bot, score, rank, faults, forfeit",
    "placings": "game_id + :o, game, bot, place",
    "faults": "game_id + :o, seat, decision, kind, message",
}


def grow(db: Path, games: int) -> int:
    """Copy the stored games (doubling) until there are at least ``games``; the count."""
    con = sqlite3.connect(db)
    with con:
        while (n := con.execute("SELECT MAX(id) FROM games").fetchone()[0]) < games:
            for table, columns in _COPY.items():
                con.execute(f"INSERT INTO {table} SELECT {columns} FROM {table}", {"o": n})
    count = con.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    con.close()
    return count


def cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--seed-games", type=int, default=400, help="games of each game played")
    args = parser.parse_args()
    from arena.plugins.loading import load_registry  # noqa: F401 (import cost not measured)
    from arena.report.gather import Selection, gather
    from arena.report.render import render_html, write_report
    from arena.store.database import Store

    root = Path(__file__).resolve().parents[2]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        shutil.copytree(root / "bots", work / "bots", ignore=shutil.ignore_patterns("search"))
        subprocess.run(
            [sys.executable, "-m", "arena", "run", "--games", str(args.seed_games), "--seed",
             "bench", "-q", "--db", "b.db"],
            cwd=work, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        count = grow(work / "b.db", args.games)
        from arena.cli.common import game_classes

        classes, _ = game_classes(work / "bots")
        wall, used = time.perf_counter(), cpu()
        store = Store(work / "b.db", create=False)
        data = gather(store, classes, Selection())
        gathered = time.perf_counter()
        html = render_html(data)
        write_report(html, work / "r.html")
        store.close()
        end, spent = time.perf_counter(), cpu() - used
        print(f"database: {count:,} games")
        print(
            f"report: {end - wall:.2f} s wall ({gathered - wall:.2f} s gathering, "
            f"{end - gathered:.2f} s rendering), {spent:.2f} s CPU in all; "
            f"{len(data['replays'])} games embedded; {len(html) / 1e6:.2f} MB"
        )


if __name__ == "__main__":
    main()
