"""The results database: one SQLite file (``leaderboard/arena.db`` by default).

``Store`` is the one way in: it opens the file (schema.py: checked, created or brought up to
date), keeps the runs, writes batches of games (batch.py) and answers the leaderboard's and the
record commands' questions. Errors come out as ``StoreError``, one line for the user.

Each run keeps two things: its ``config``, the identity that decides its games (a rerun of the same
command finds its unfinished run by it), and its ``settings``, how it is played (isolation, bot
limits), which change nothing in its results and so are not part of its identity. Runs stored
before settings existed have none: the defaults.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from arena.referee.outcome import GameOutcome
from arena.store.batch import write_batch
from arena.store.schema import (
    GAME_COLUMNS,
    TABLES,
    StoreError,
    connect,
    explain,
    transaction,
)

__all__ = ["RunInfo", "Store", "StoreError"]


@dataclass(frozen=True)
class RunInfo:
    id: int
    seed: str
    config: dict  # its identity: what decides its games
    status: str
    settings: dict = field(default_factory=dict)  # how it was last played: isolation, bot limits


_SEAT_KEYS = ("seat", "bot", "score", "rank", "faults", "forfeit")
_FAULT_KEYS = ("seat", "decision", "kind", "message")


def _settings(settings: dict | None) -> str | None:
    return None if settings is None else json.dumps(settings, sort_keys=True)


class Store:
    """The results database. ``create=False`` opens an existing one only (``arena leaderboard``)."""

    def __init__(self, path: str | Path, create: bool = True, timeout: float = 5.0):
        self.path = Path(path)
        self.db = None
        try:
            self.db, has_settings = connect(self.path, create, timeout)
        except sqlite3.Error as exc:
            raise StoreError(explain(exc, self.path)) from None
        except OSError as exc:
            raise StoreError(f"{self.path}: {exc.strerror or exc}") from None
        # The settings column, or NULL in a file made before it existed, opened to read only.
        self._run_settings = "settings" if has_settings else "NULL"

    def close(self) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None

    def _guard(self, function, *args):
        try:
            return function(*args)
        except sqlite3.Error as exc:
            raise StoreError(explain(exc, self.path)) from None

    def _rows(self, sql: str, args: tuple = ()) -> list[tuple]:
        return self._guard(lambda: self.db.execute(sql, args).fetchall())

    # --- runs -------------------------------------------------------------------------------
    def start_run(self, seed: str, config: dict, settings: dict | None = None) -> int:
        """A new run with this identity (``config``), played with these ``settings``."""

        def run():
            cur = self.db.execute(
                "INSERT INTO runs(created, seed, config, status, settings) "
                "VALUES (?, ?, ?, 'running', ?)",
                (time.time(), str(seed), json.dumps(config, sort_keys=True), _settings(settings)),
            )
            return cur.lastrowid

        return self._guard(run)

    def set_run_status(self, run_id: int, status: str) -> None:
        self._guard(self.db.execute, "UPDATE runs SET status=? WHERE id=?", (status, run_id))

    def set_run_settings(self, run_id: int, settings: dict) -> None:
        """The settings a run is played with now (a resumed run may be given others)."""
        self._guard(
            self.db.execute, "UPDATE runs SET settings=? WHERE id=?", (_settings(settings), run_id)
        )

    def _runs(self, where: str, args: tuple = (), limit: int | None = None) -> list[RunInfo]:
        sql = (
            f"SELECT id, seed, config, status, {self._run_settings} FROM runs WHERE {where} "
            "ORDER BY id DESC" + (f" LIMIT {int(limit)}" if limit is not None else "")
        )
        return [
            RunInfo(r[0], r[1], json.loads(r[2]), r[3], json.loads(r[4]) if r[4] else {})
            for r in self._rows(sql, args)
        ]

    def find_run(self, config: dict) -> RunInfo | None:
        """The latest unfinished run with exactly this configuration."""
        key = json.dumps(config, sort_keys=True)
        runs = self._runs("config=? AND status!='finished'", (key,), limit=1)
        return runs[0] if runs else None

    def unfinished_runs(self) -> list[RunInfo]:
        return self._runs("status!='finished'")

    def latest_unfinished_run(self) -> RunInfo | None:
        runs = self._runs("status!='finished'", limit=1)
        return runs[0] if runs else None

    def games_done(self, run_id: int, game: str) -> int:
        sql = "SELECT COUNT(*) FROM games WHERE run_id=? AND game=?"
        return self._rows(sql, (run_id, game))[0][0]

    # --- writing games ------------------------------------------------------------------------
    def save_batch(
        self,
        run_id: int,
        items: Iterable[tuple[int, int, GameOutcome, dict[str, float]]],
        game: str,
        ratings: dict[str, tuple[float, float, float, float]],
    ) -> None:
        """Store games ``(index, board, outcome, placings)`` and the ratings after them,
        atomically."""
        self._guard(write_batch, self.db, run_id, items, game, ratings)

    # --- reading ------------------------------------------------------------------------------
    def ratings(self, game: str) -> dict[str, tuple[float, float]]:
        rows = self._rows("SELECT bot, mu, sigma FROM ratings WHERE game=?", (game,))
        return {bot: (mu, sigma) for bot, mu, sigma in rows}

    def rating_states(self, game: str) -> dict[str, tuple[float, float]]:
        """Each bot's exact rating state (π, τ), to continue rating from."""
        rows = self._rows("SELECT bot, pi, tau FROM ratings WHERE game=?", (game,))
        return {bot: (pi, tau) for bot, pi, tau in rows}

    def rated_games(self) -> list[str]:
        rows = self._rows(
            "SELECT DISTINCT game FROM ratings UNION SELECT DISTINCT game FROM games ORDER BY 1"
        )
        return [r[0] for r in rows]

    def bot_stats(self, game: str) -> dict[str, dict]:
        """Per bot: games, wins, mean rank, mean score, faults, forfeits (over all its seats)."""
        rows = self._rows(
            """
            SELECT s.bot,
                   COUNT(DISTINCT s.game_id),
                   COUNT(DISTINCT CASE WHEN s.rank = 1 THEN s.game_id END),
                   AVG(s.rank), AVG(s.score), SUM(s.faults), SUM(s.forfeit)
            FROM seats s JOIN games g ON g.id = s.game_id
            WHERE g.game = ?
            GROUP BY s.bot
            """,
            (game,),
        )
        keys = ("games", "wins", "avg_rank", "avg_score", "faults", "forfeits")
        return {row[0]: dict(zip(keys, row[1:], strict=True)) for row in rows}

    def head_to_head(self, game: str) -> list[tuple[str, str, int, int, int]]:
        """Rows (a, b, a ahead, tied, b ahead) over the games both played."""
        return self._rows(
            """
            SELECT a.bot, b.bot,
                   SUM(a.place < b.place), SUM(a.place = b.place), SUM(a.place > b.place)
            FROM placings a JOIN placings b ON a.game_id = b.game_id AND a.bot != b.bot
            WHERE a.game = ?
            GROUP BY a.bot, b.bot
            ORDER BY a.bot, b.bot
            """,
            (game,),
        )

    # --- single games (``arena history``, ``arena replay``) ---------------------------------------
    def recent_games(
        self,
        bot: str | None = None,
        game: str | None = None,
        run_id: int | None = None,
        limit: int = 20,
    ) -> list[dict]:
        """The latest stored games, newest first, with their seats; optionally filtered."""
        where, args = [], []
        if game is not None:
            where.append("g.game = ?")
            args.append(game)
        if run_id is not None:
            where.append("g.run_id = ?")
            args.append(run_id)
        if bot is not None:
            where.append("EXISTS (SELECT 1 FROM seats s WHERE s.game_id = g.id AND s.bot = ?)")
            args.append(bot)
        sql = (
            "SELECT g.id FROM games g"
            + (" WHERE " + " AND ".join(where) if where else "")
            + " ORDER BY g.id DESC LIMIT ?"
        )
        return [self.stored_game(row[0]) for row in self._rows(sql, (*args, limit))]

    def stored_game(self, game_id: int) -> dict | None:
        """One stored game: its row (``record`` the compact blob or None), seats and faults."""
        games = self._dicts("games", GAME_COLUMNS, "id = ?", game_id)
        if not games:
            return None
        info = games[0]
        info["seats"] = self._dicts("seats", _SEAT_KEYS, "game_id = ? ORDER BY seat", game_id)
        info["fault_log"] = self._dicts(
            "faults", _FAULT_KEYS, "game_id = ? ORDER BY rowid", game_id
        )
        return info

    def iter_games(
        self,
        game: str | None = None,
        run_id: int | None = None,
        bot: str | None = None,
        batch: int = 1000,
    ):
        """Every stored game (oldest first) as ``stored_game`` gives it, without its fault log,
        read ``batch`` games at a time: ``arena export`` streams millions this way."""
        where, args = ["g.id > ?"], []
        if game is not None:
            where.append("g.game = ?")
            args.append(game)
        if run_id is not None:
            where.append("g.run_id = ?")
            args.append(run_id)
        if bot is not None:
            where.append("EXISTS (SELECT 1 FROM seats s WHERE s.game_id = g.id AND s.bot = ?)")
            args.append(bot)
        columns = ", ".join(f"g.{c}" for c in GAME_COLUMNS)
        sql = f"SELECT {columns} FROM games g WHERE {' AND '.join(where)} ORDER BY g.id LIMIT ?"
        seats_sql = (
            f"SELECT game_id, {', '.join(_SEAT_KEYS)} FROM seats "
            "WHERE game_id BETWEEN ? AND ? ORDER BY game_id, seat"
        )
        last = 0
        while True:
            rows = self._rows(sql, (last, *args, batch))
            if not rows:
                return
            games = {row[0]: dict(zip(GAME_COLUMNS, row, strict=True)) for row in rows}
            for info in games.values():
                info["seats"] = []
            for row in self._rows(seats_sql, (rows[0][0], rows[-1][0])):
                info = games.get(row[0])
                if info is not None:
                    info["seats"].append(dict(zip(_SEAT_KEYS, row[1:], strict=True)))
            yield from games.values()
            last = rows[-1][0]

    def _dicts(self, table: str, columns: tuple[str, ...], where: str, *args) -> list[dict]:
        sql = f"SELECT {', '.join(columns)} FROM {table} WHERE {where}"
        return [dict(zip(columns, row, strict=True)) for row in self._rows(sql, args)]

    def reset(self) -> None:
        def wipe():
            with transaction(self.db):
                for table in TABLES:
                    self.db.execute(f"DELETE FROM {table}")

        self._guard(wipe)
