"""Records kept in their exported form (``arena export --keep``): the ``kept_records`` table.

A stored record is compact (decision indices; ``arena.games.record``) and is expanded by
replaying it through its engine, which bounds how fast ``arena export`` can go. ``--keep``
stores each record's JSON text (``arena-record/1``, without the database's ``arena`` facts,
zlib-compressed: about 1.3 kB a game, three times the compact form) as it is exported, so that
later exports stream it as stored. A kept text is served only with the checksum of the compact
record it was made from: an id reused after ``arena leaderboard --reset`` cannot pass for it.

The table is made by the first ``--keep``; older arenas ignore it (the schema version stays),
and a file without it, or opened to read only, simply has nothing kept.
"""

from __future__ import annotations

import sqlite3
import zlib

from arena.store.schema import transaction

TABLE = """
CREATE TABLE IF NOT EXISTS kept_records (
    game_id INTEGER PRIMARY KEY,
    crc INTEGER NOT NULL,  -- zlib.crc32 of the compact record (games.record) it was made from
    text BLOB NOT NULL     -- zlib-compressed UTF-8 JSON of the record, no "arena" key
)
"""


def checksum(compact: bytes) -> int:
    return zlib.crc32(compact)


def kept(db: sqlite3.Connection, first_id: int, last_id: int) -> dict[int, tuple[int, bytes]]:
    """game id -> (checksum, compressed text) of the kept records with ids in the range."""
    try:
        rows = db.execute(
            "SELECT game_id, crc, text FROM kept_records WHERE game_id BETWEEN ? AND ?",
            (first_id, last_id),
        ).fetchall()
    except sqlite3.OperationalError:  # no such table: nothing kept in this file
        return {}
    return {game_id: (crc, text) for game_id, crc, text in rows}


def keep(db: sqlite3.Connection, rows: list[tuple[int, int, bytes]]) -> None:
    """Store ``(game id, checksum, compressed text)`` rows, in one transaction."""
    with transaction(db):
        db.execute(TABLE)
        db.executemany("INSERT OR REPLACE INTO kept_records VALUES (?, ?, ?)", rows)
