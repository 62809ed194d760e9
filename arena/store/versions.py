"""The stored versions of each bot: which fingerprint each version number stands for, and the
source of one-file bots, so that an old version can be fielded again.

Version 1 of a bot is stored (in seats, placings, ratings) under the bot's plain name, version N
after it as ``name@N``: a database made before versions existed holds version 1 of every bot, and
every query that groups by the stored name keeps versions apart without knowing of them.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class BotVersion:
    name: str  # as the bot registers itself
    version: int
    fingerprint: str
    first_seen: float
    last_seen: float
    origin: str  # "file", "entry-point" or ""
    has_source: bool

    @property
    def stored_name(self) -> str:
        return stored_name(self.name, self.version)


def stored_name(name: str, version: int) -> str:
    """The name a version's games and rating are stored under: plain for version 1."""
    return name if version == 1 else f"{name}@{version}"


def read_versions(db: sqlite3.Connection) -> list[BotVersion]:
    rows = db.execute(
        "SELECT name, version, fingerprint, first_seen, last_seen, origin, source IS NOT NULL "
        "FROM bot_versions ORDER BY name, version"
    ).fetchall()
    return [BotVersion(*row[:6], bool(row[6])) for row in rows]


def read_source(db: sqlite3.Connection, name: str, version: int) -> str | None:
    row = db.execute(
        "SELECT source FROM bot_versions WHERE name=? AND version=?", (name, version)
    ).fetchone()
    return row[0] if row else None


def record_version(
    db: sqlite3.Connection,
    name: str,
    version: int,
    fingerprint: str,
    origin: str,
    source: str | None,
) -> None:
    """Store a version seen now, or mark a stored one as seen now."""
    now = time.time()
    db.execute(
        "INSERT INTO bot_versions(name, version, fingerprint, first_seen, last_seen, origin, "
        "source) VALUES (?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT(name, fingerprint) DO UPDATE SET last_seen = excluded.last_seen",
        (name, version, fingerprint, now, now, origin, source),
    )
