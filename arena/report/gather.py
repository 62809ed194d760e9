"""Everything the report shows, read from the store as plain data (JSON for the page).

The leaderboards are the very row dicts of ``arena leaderboard --format json`` (every column they
have is shown), head to head the rows of ``--head-to-head``. The replays embedded are bounded:
every game with a fault or a forfeit (the latest ``max_fault_games``), then the latest games,
newest first, until ``max_games`` or ``budget`` bytes of replay data; the page says how many of
how many.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import time
import zlib
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial

from arena.games.base import Game, RecordError
from arena.games.record import expand
from arena.report.rating_history import rating_history
from arena.report.replays import game_frames
from arena.store.database import Store
from arena.views.leaderboard import COLUMNS, head_to_head_rows, leaderboard_rows


@dataclass(frozen=True)
class Selection:
    """Which games the report covers, and how many replays it may embed."""

    game: str | None = None
    run_id: int | None = None
    max_games: int = 150
    max_fault_games: int = 100
    budget: int = 2_500_000  # bytes of replay data in the page (compressed, base64)
    jobs: int = field(default_factory=lambda: min(4, os.cpu_count() or 1))


def gather(store: Store, games: dict[str, type[Game]], selection: Selection) -> dict:
    names = [g for g in store.rated_games() if selection.game in (None, g)]
    boards = {}
    for name in names:
        game_class = games.get(name)
        rows = leaderboard_rows(store, name)
        fault_kinds = store.fault_counts_of_game(name)
        boards[name] = {
            "title": getattr(game_class, "title", "") or name,
            "score_name": getattr(game_class, "score_name", "score"),
            "leaderboard": rows,
            "head_to_head": head_to_head_rows(store, name),
            "ratings": rating_history(store, name, game_class),
            "fault_kinds": fault_kinds,
        }
    replays, total = _replays(store, games, selection)
    return {
        "format": "arena-report/1",
        "database": str(store.path),
        "written": time.strftime("%Y-%m-%d %H:%M:%S"),
        "filter": {"game": selection.game, "run": selection.run_id},
        "labels": dict(COLUMNS),
        "games": boards,
        "faults": store.report_faults(selection.game, selection.run_id),
        "replays": replays,
        "stored_games": total,
    }


def _replays(store: Store, games, selection: Selection) -> tuple[list[dict], int]:
    total = store.count_games(selection.game, selection.run_id)
    faulty = store.game_ids(
        selection.game, selection.run_id, selection.max_fault_games, with_faults=True
    )
    latest = store.game_ids(selection.game, selection.run_id, selection.max_games)
    infos = [store.stored_game(i) for i in dict.fromkeys(faulty + latest)]
    out: list[dict] = []
    size = 0
    with _mapper(partial(_replay, games=games), selection.jobs) as replayed:
        for entry in replayed(info for info in infos if info is not None):
            # what it adds to the page, compressed as the page holds it (render.py)
            size += len(zlib.compress(json.dumps(entry, ensure_ascii=False).encode(), 1)) * 4 // 3
            out.append(entry)
            if size > selection.budget:
                break
    out.sort(key=lambda e: -e["id"])
    return out, total


@contextmanager
def _mapper(function, jobs: int):
    """``map`` in order, by forked processes when ``jobs`` > 1 (re-running hundreds of records
    is most of the report's time); in this process where fork is missing."""
    if jobs <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        yield lambda items: map(function, items)
        return
    pool = multiprocessing.get_context("fork").Pool(jobs)
    try:
        yield lambda items: pool.imap(function, items, chunksize=4)
    finally:
        pool.terminate()
        pool.join()


def _replay(info: dict, games) -> dict:
    names = [s["bot"] for s in info["seats"]]
    entry = {
        "id": info["id"],
        "run": info["run_id"],
        "game": info["game"],
        "finished": time.strftime("%Y-%m-%d %H:%M", time.localtime(info["finished"])),
        "seats": info["seats"],
        "faults": info["fault_log"],
        "frames": None,
        "variant": None,
    }
    if info["record"] is None:
        entry["note"] = "played with --no-records: no moves to replay"
        return entry
    try:
        record = expand(info["record"], games)
        entry["variant"] = record.get("variant")
        entry["frames"] = game_frames(record, games, record.get("bots") or names)
    except (RecordError, KeyError, ValueError) as exc:
        entry["note"] = f"cannot replay: {exc}"
    return entry
