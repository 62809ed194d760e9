"""The store's side of batch ratings: the finishing orders of a game's games, board by board, and
the cached fit (the ``batch_ratings`` table, added by ``schema.add_batch_rating_cache``).

A cache entry is keyed by the extent of the game's stored games: how many, the last id, and when
that last game was stored. Games are only ever appended, so an entry whose last game is still
there, with as many games before it, covers a prefix of the games: the newer ones are counted on
top of it (``games_after``) instead of reading all of them again.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass


@dataclass(frozen=True)
class Extent:
    games: int
    last_id: int
    last_finished: float


def extent(db: sqlite3.Connection, game: str, up_to: int | None = None) -> Extent:
    """The extent of the game's stored games (of those with ids up to ``up_to`` if given)."""
    bound = "" if up_to is None else " AND id <= ?"
    args = (game,) if up_to is None else (game, up_to)
    count, last = db.execute(
        f"SELECT COUNT(*), MAX(id) FROM games WHERE game = ?{bound}", args
    ).fetchone()
    if not count:
        return Extent(0, 0, 0.0)
    finished = db.execute("SELECT finished FROM games WHERE id = ?", (last,)).fetchone()[0]
    return Extent(count, last, finished)


def finishings_after(db: sqlite3.Connection, game: str, after_id: int, up_to: int) -> list[tuple]:
    """(run id, board, finishing key, games) of the game's games with ids above ``after_id`` up
    to ``up_to`` (a run storing games meanwhile adds nothing the extent does not cover).
    A finishing key lists ``bot␟place`` items joined by ``␞`` (in no particular order)."""
    return db.execute(
        """
        SELECT g.run_id, g.board, k.key, COUNT(*)
        FROM (SELECT game_id, group_concat(bot || char(31) || place, char(30)) AS key
              FROM placings WHERE game = ? AND game_id > ? AND game_id <= ?
              GROUP BY game_id) k
        JOIN games g ON g.id = k.game_id
        GROUP BY g.run_id, g.board, k.key
        """,
        (game, after_id, up_to),
    ).fetchall()


STAT_SUMS = ("games", "wins", "rank_sum", "score_sum", "seats", "faults", "forfeits")


def stat_sums(db: sqlite3.Connection, game: str, after_id: int, up_to: int) -> dict[str, list]:
    """Per bot, over the game's games with ids in (``after_id``, ``up_to``]: the ``STAT_SUMS``
    (each adds up over disjoint sets of games: cached sums are topped up with newer games')."""
    rows = db.execute(
        """
        SELECT s.bot,
               COUNT(DISTINCT s.game_id),
               COUNT(DISTINCT CASE WHEN s.rank = 1 THEN s.game_id END),
               SUM(s.rank), SUM(s.score), COUNT(*), SUM(s.faults), SUM(s.forfeit)
        FROM games g JOIN seats s ON s.game_id = g.id
        WHERE g.game = ? AND g.id > ? AND g.id <= ?
        GROUP BY s.bot
        """,
        (game, after_id, up_to),
    ).fetchall()
    return {row[0]: list(row[1:]) for row in rows}


def load(db: sqlite3.Connection, game: str) -> tuple[Extent, bytes] | None:
    if not _has_cache(db):
        return None
    row = db.execute(
        "SELECT games, last_id, last_finished, data FROM batch_ratings WHERE game = ?", (game,)
    ).fetchone()
    return None if row is None else (Extent(row[0], row[1], row[2]), row[3])


def save(db: sqlite3.Connection, game: str, covered: Extent, data: bytes) -> bool:
    """Store the fit; False if the file cannot take it (read-only, locked, made before the
    cache and opened read-only): the fit is then simply made again next time."""
    if not _has_cache(db):
        return False
    # A run writing to the file holds its lock: rather skip the cache than wait for it.
    timeout = db.execute("PRAGMA busy_timeout").fetchone()[0]
    db.execute("PRAGMA busy_timeout = 100")
    try:
        db.execute(
            "INSERT OR REPLACE INTO batch_ratings(game, games, last_id, last_finished, data) "
            "VALUES (?, ?, ?, ?, ?)",
            (game, covered.games, covered.last_id, covered.last_finished, data),
        )
    except sqlite3.OperationalError:
        return False
    finally:
        db.execute(f"PRAGMA busy_timeout = {int(timeout)}")
    return True


def _has_cache(db: sqlite3.Connection) -> bool:
    row = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type='table' AND name='batch_ratings'"
    ).fetchone()
    return row is not None


def bots_of(db: sqlite3.Connection, game: str) -> list[str]:
    """The bots with results in the game, by name."""
    rows = db.execute("SELECT DISTINCT bot FROM placings WHERE game = ? ORDER BY bot", (game,))
    return [row[0] for row in rows]


def paired_boards(db: sqlite3.Connection, game: str, a: str, b: str) -> list[tuple]:
    """Per game both bots played: (run id, board, place a, place b, score a, score b); a bot's
    score is the mean of its seats'."""
    return db.execute(
        """
        SELECT g.run_id, g.board, pa.place, pb.place,
               (SELECT AVG(score) FROM seats WHERE game_id = g.id AND bot = pa.bot),
               (SELECT AVG(score) FROM seats WHERE game_id = g.id AND bot = pb.bot)
        FROM placings pa
        JOIN placings pb ON pb.game_id = pa.game_id AND pb.bot = ?
        JOIN games g ON g.id = pa.game_id
        WHERE pa.game = ? AND pa.bot = ?
        ORDER BY g.id
        """,
        (b, game, a),
    ).fetchall()
