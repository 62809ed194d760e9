"""How fast ``arena export`` turns stored games into JSON lines.

    python benchmarks/export_speed.py [DB]      (default leaderboard/arena.db; fill it first,
                                                 e.g. `arena run --games 5000`)

Works on a copy of DB (``--keep`` writes to it). Prints, per game, the games exported per second
of CPU time and of wall-clock time in one process (``arena export -j N`` spreads the work over
N), three ways: expanding each record through its engine (a plain export), the same while
keeping the JSON (``--keep``), and streaming the kept JSON (every export after a ``--keep``).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

from arena.games import HowLowCanYouGo, TwentyDown
from arena.store.database import Store
from arena.views.export import ExportCounts, export_lines

GAMES = {cls.name: cls for cls in (TwentyDown, HowLowCanYouGo)}
WAYS = (("expanded", False), ("expanded, kept", True), ("streamed as kept", False))


def measure(store: Store, name: str, keep: bool) -> tuple[ExportCounts, float, float, int]:
    cpu, wall = time.process_time(), time.perf_counter()
    counts = ExportCounts()
    lines = export_lines(store.iter_games(name), GAMES, counts, store=store, keep=keep)
    size = sum(len(line) for line in lines)
    return counts, time.process_time() - cpu, time.perf_counter() - wall, size


def main(argv: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / "export.db"
        shutil.copyfile(argv[0] if argv else "leaderboard/arena.db", copy)
        store = Store(copy, create=False)
        try:
            for name in GAMES:
                for way, keep in WAYS:
                    counts, cpu, wall, size = measure(store, name, keep)
                    if counts.written:
                        print(
                            f"{name:20} {way:17} {counts.written:8,} games"
                            f"  {counts.written / cpu:8,.0f} games/s CPU"
                            f"  {counts.written / wall:8,.0f} games/s wall"
                            f"  {size / counts.written:6,.0f} bytes a game"
                        )
        finally:
            store.close()


if __name__ == "__main__":
    main(sys.argv[1:])
