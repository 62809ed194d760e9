"""How fast ``arena export`` turns stored games into JSON lines.

    python benchmarks/export_speed.py [DB]      (default leaderboard/arena.db; fill it first,
                                                 e.g. `arena run --games 5000`)

Works on a copy of DB (``--keep`` writes to it). Prints, per game, the games exported per second
of CPU time and of wall-clock time in one process, three ways: expanding each record through its
engine (a plain export), the same while keeping the JSON (``--keep``), and streaming the kept
JSON (every export after a ``--keep``). Then the wall-clock time of the command itself, ``arena
export > /dev/null`` on the plain copy (start-up included), at ``-j 1`` and at its default
``-j`` (one process a core).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from arena.games import HowLowCanYouGo, TwentyDown
from arena.store.database import Store
from arena.views.export import ExportCounts, Selection, export_blocks, usable_cores

GAMES = {cls.name: cls for cls in (TwentyDown, HowLowCanYouGo)}
WAYS = (("expanded", False), ("expanded, kept", True), ("streamed as kept", False))


def measure(store: Store, name: str, keep: bool) -> tuple[ExportCounts, float, float, int]:
    cpu, wall = time.process_time(), time.perf_counter()
    counts = ExportCounts()
    blocks = export_blocks(store, GAMES, counts, Selection(game=name), keep=keep)
    size = sum(len(block) for block in blocks)
    return counts, time.process_time() - cpu, time.perf_counter() - wall, size


def in_process(db: Path) -> None:
    store = Store(db, create=False)
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


def command(db: Path, games: int) -> None:
    """``arena export`` as a user runs it, at -j 1 and at the default."""
    for label, jobs in (("-j 1", ["-j", "1"]), (f"default -j ({usable_cores()})", [])):
        start = time.perf_counter()
        with open(Path(db).with_suffix(".jsonl"), "wb") as out:
            subprocess.run(
                [sys.executable, "-m", "arena", "export", "--db", str(db), *jobs],
                stdout=out,
                check=True,
            )
        wall = time.perf_counter() - start
        print(
            f"arena export {label:18} {games:8,} games  {wall:6.2f} s wall"
            f"  {games / wall:8,.0f} games/s (start-up included)"
        )


def main(argv: list[str]) -> None:
    source = argv[0] if argv else "leaderboard/arena.db"
    with tempfile.TemporaryDirectory() as folder:
        plain = Path(folder) / "plain.db"
        shutil.copyfile(source, plain)
        store = Store(plain, create=False)
        games = sum(1 for _ in store.iter_games() if _["record"] is not None)
        store.close()
        command(plain, games)
        copy = Path(folder) / "export.db"
        shutil.copyfile(source, copy)
        in_process(copy)


if __name__ == "__main__":
    main(sys.argv[1:])
