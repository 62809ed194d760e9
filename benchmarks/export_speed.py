"""How fast ``arena export`` turns stored games into JSON lines.

    python benchmarks/export_speed.py [DB]      (default leaderboard/arena.db; fill it first,
                                                 e.g. `arena run --games 1000`)

Prints, per game, the games exported per second of CPU time and of wall-clock time in one
process (``arena export -j N`` spreads the work over N).
"""

from __future__ import annotations

import sys
import time

from arena.games import HowLowCanYouGo, TwentyDown
from arena.store.database import Store
from arena.views.export import ExportCounts, export_lines

GAMES = {cls.name: cls for cls in (TwentyDown, HowLowCanYouGo)}


def main(argv: list[str]) -> None:
    store = Store(argv[0] if argv else "leaderboard/arena.db", create=False)
    try:
        for name in GAMES:
            cpu, wall = time.process_time(), time.perf_counter()
            counts = ExportCounts()
            size = sum(len(line) for line in export_lines(store.iter_games(name), GAMES, counts))
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            if counts.written:
                print(
                    f"{name:20} {counts.written:8,} games  {counts.written / cpu:8,.0f} games/s CPU"
                    f"  {counts.written / wall:8,.0f} games/s wall  {size / counts.written:6,.0f} "
                    "bytes a game"
                )
    finally:
        store.close()


if __name__ == "__main__":
    main(sys.argv[1:])
