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
from arena.store import kept_records as kept_store
from arena.store import rating_cache
from arena.store.batch import write_batch
from arena.store.rating_cache import Extent
from arena.store.schema import (
    GAME_COLUMNS,
    TABLES,
    StoreError,
    connect,
    explain,
    has_bot_versions,
    has_fault_tracebacks,
    transaction,
)
from arena.store.versions import BotVersion, read_source, read_versions, record_version

__all__ = ["RunInfo", "Store", "StoreError", "default_db"]


def default_db() -> Path:
    """The database of a command given no ``--db``."""
    return Path("leaderboard") / "arena.db"


@dataclass(frozen=True)
class RunInfo:
    id: int
    seed: str
    config: dict  # its identity: what decides its games
    status: str
    settings: dict = field(default_factory=dict)  # how it was last played: isolation, bot limits


# A run to continue: not finished, nor stopped by --fail-fast (its bot is being fixed: the same
# command then starts a new run).
_UNFINISHED = "status NOT IN ('finished', 'stopped')"
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
        runs = self._runs(f"config=? AND {_UNFINISHED}", (key,), limit=1)
        return runs[0] if runs else None

    def finished_run(self, config: dict) -> RunInfo | None:
        """The latest finished run with exactly this configuration."""
        key = json.dumps(config, sort_keys=True)
        runs = self._runs("config=? AND status='finished'", (key,), limit=1)
        return runs[0] if runs else None

    def unfinished_runs(self) -> list[RunInfo]:
        return self._runs(_UNFINISHED)

    def latest_unfinished_run(self) -> RunInfo | None:
        runs = self._runs(_UNFINISHED, limit=1)
        return runs[0] if runs else None

    def games_done(self, run_id: int, game: str) -> int:
        sql = "SELECT COUNT(*) FROM games WHERE run_id=? AND game=?"
        return self._rows(sql, (run_id, game))[0][0]

    def games_per_bot(self, run_id: int, game: str, bots: Iterable[str]) -> list[int]:
        """How many of a run's ``game`` games each of ``bots`` played, fewest first."""
        sql = (
            "SELECT s.bot, COUNT(DISTINCT g.id) FROM games g JOIN seats s ON s.game_id = g.id "
            "WHERE g.run_id=? AND g.game=? GROUP BY s.bot"
        )
        played = dict(self._rows(sql, (run_id, game)))
        return sorted(played.get(bot, 0) for bot in bots)

    def run_placings(self, run_id: int, game: str) -> list[tuple[int, int, dict[str, float]]]:
        """``(index, board, {bot: place})`` of a run's stored games of ``game``, in order."""
        rows = self._rows(
            "SELECT g.idx, g.board, p.bot, p.place FROM games g JOIN placings p "
            "ON p.game_id = g.id WHERE g.run_id = ? AND g.game = ? ORDER BY g.idx",
            (run_id, game),
        )
        games: list[tuple[int, int, dict[str, float]]] = []
        for index, board, bot, place in rows:
            if not games or games[-1][0] != index:
                games.append((index, board, {}))
            games[-1][2][bot] = place
        return games

    def set_note(self, key: str, value: dict) -> None:
        """Keep a small JSON value under ``key`` (e.g. a match's result, ``match/<run id>``)."""
        self._guard(
            self.db.execute,
            "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
            (key, json.dumps(value, sort_keys=True)),
        )

    def note(self, key: str) -> dict | None:
        rows = self._rows("SELECT value FROM meta WHERE key = ?", (key,))
        return json.loads(rows[0][0]) if rows else None

    # --- bot versions (store/versions.py) ----------------------------------------------------
    def bot_versions(self) -> list[BotVersion]:
        """Every stored version of every bot (none in a file from before versions, read only)."""
        if not self._guard(has_bot_versions, self.db):
            return []
        return self._guard(read_versions, self.db)

    def bot_source(self, name: str, version: int) -> str | None:
        return self._guard(read_source, self.db, name, version)

    def record_bot_versions(self, versions: Iterable[tuple[str, int, str, str, str | None]]):
        """Store ``(name, version, fingerprint, origin, source)`` of the versions fielded now."""

        def record():
            with transaction(self.db):
                for version in versions:
                    record_version(self.db, *version)

        self._guard(record)

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

    # --- batch ratings (rating_cache.py) -----------------------------------------------------
    def game_extent(self, game: str, up_to: int | None = None) -> Extent:
        return self._guard(rating_cache.extent, self.db, game, up_to)

    def finishings_after(self, game: str, after_id: int, up_to: int) -> list[tuple]:
        return self._guard(rating_cache.finishings_after, self.db, game, after_id, up_to)

    def stat_sums(self, game: str, after_id: int, up_to: int) -> dict[str, list]:
        return self._guard(rating_cache.stat_sums, self.db, game, after_id, up_to)

    def cached_batch(self, game: str) -> tuple[Extent, bytes] | None:
        return self._guard(rating_cache.load, self.db, game)

    def cache_batch(self, game: str, covered: Extent, data: bytes) -> bool:
        return self._guard(rating_cache.save, self.db, game, covered, data)

    def bots_of(self, game: str) -> list[str]:
        return self._guard(rating_cache.bots_of, self.db, game)

    def paired_boards(self, game: str, a: str, b: str) -> list[tuple]:
        return self._guard(rating_cache.paired_boards, self.db, game, a, b)

    # --- single games (``arena history``, ``arena replay``) ---------------------------------------
    def recent_games(
        self,
        bot: str | None = None,
        game: str | None = None,
        run_id: int | None = None,
        limit: int = 20,
    ) -> list[dict]:
        """The latest stored games, newest first, with their seats; optionally filtered."""
        where, args = _game_conditions(game, run_id, bot)
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

    # --- faults (``arena faults``, the end of ``arena run``) ------------------------------------
    def fault_list(
        self,
        bot: str | None = None,
        run_id: int | None = None,
        game: str | None = None,
        limit: int = 20,
    ) -> list[dict]:
        """The latest faults, newest first: game id, run, game, seat, bot, decision, kind,
        message and the traceback of an exception ("" when none was kept)."""
        where, args = [], []
        if bot is not None:
            clause, bot_args = _bot_versions_clause("s.bot", bot)
            where.append(clause)
            args.extend(bot_args)
        for column, value in (("g.run_id", run_id), ("g.game", game)):
            if value is not None:
                where.append(f"{column} = ?")
                args.append(value)
        traceback = "t.traceback" if self._guard(has_fault_tracebacks, self.db) else "NULL"
        join = (
            "LEFT JOIN fault_tracebacks t ON t.game_id = f.game_id AND t.seat = f.seat "
            "AND t.decision = f.decision"
            if traceback != "NULL"
            else ""
        )
        sql = (
            f"SELECT f.game_id, g.run_id, g.game, f.seat, s.bot, f.decision, f.kind, f.message, "
            f"{traceback} FROM faults f JOIN games g ON g.id = f.game_id "
            f"JOIN seats s ON s.game_id = f.game_id AND s.seat = f.seat {join}"
            + (" WHERE " + " AND ".join(where) if where else "")
            + " ORDER BY f.game_id DESC, f.rowid DESC LIMIT ?"
        )
        keys = ("game_id", "run", "game", "seat", "bot", "decision", "kind", "message", "traceback")
        rows = self._rows(sql, (*args, limit))
        return [dict(zip(keys, (*row[:-1], row[-1] or ""), strict=True)) for row in rows]

    def fault_counts(self, run_id: int) -> dict[str, dict[str, int]]:
        """Faults of one run, per bot and kind."""
        counts: dict[str, dict[str, int]] = {}
        sql = (
            "SELECT s.bot, f.kind, COUNT(*) FROM faults f JOIN games g ON g.id = f.game_id "
            "JOIN seats s ON s.game_id = f.game_id AND s.seat = f.seat WHERE g.run_id = ? "
            "GROUP BY s.bot, f.kind ORDER BY s.bot, f.kind"
        )
        for bot, kind, count in self._rows(sql, (run_id,)):
            counts.setdefault(bot, {})[kind] = count
        return counts

    def game_id(self, run_id: int, game: str, index: int) -> int | None:
        """The id of the stored game ``index`` of the run's schedule of ``game``."""
        rows = self._rows(
            "SELECT id FROM games WHERE run_id = ? AND game = ? AND idx = ?", (run_id, game, index)
        )
        return rows[0][0] if rows else None

    def rated_bots(self) -> set[str]:
        """Every bot with a rating in some game (a bot is rated with its first stored game)."""
        return {row[0] for row in self._rows("SELECT DISTINCT bot FROM ratings")}

    def stored_bots(self) -> list[str]:
        """Every bot with a stored game."""
        return [row[0] for row in self._rows("SELECT DISTINCT bot FROM seats ORDER BY bot")]

    def run_ids(self) -> list[int]:
        return [row[0] for row in self._rows("SELECT id FROM runs ORDER BY id")]

    # --- the HTML report (``arena.report``) ------------------------------------------------------
    def all_runs(self) -> list[RunInfo]:
        return self._runs("1")

    def placings_in_order(self, game: str) -> list[tuple[int, int, str, float]]:
        """Every rated placing of ``game``: (game id, run id, bot, place), in the order the
        games were rated and, within a game, the order the run rated its bots."""
        return self._rows(
            "SELECT p.game_id, g.run_id, p.bot, p.place FROM placings p "
            "JOIN games g ON g.id = p.game_id WHERE p.game = ? ORDER BY p.rowid",
            (game,),
        )

    def report_faults(
        self, game: str | None = None, run_id: int | None = None, limit: int = 500
    ) -> list[dict]:
        """The latest faults, newest first, with their game, run and bot."""
        where, args = self._game_filter(game, run_id)
        keys = ("game_id", "game", "run_id", "seat", "bot", "decision", "kind", "message")
        rows = self._rows(
            "SELECT f.game_id, g.game, g.run_id, f.seat, s.bot, f.decision, f.kind, f.message "
            "FROM faults f JOIN games g ON g.id = f.game_id "
            "JOIN seats s ON s.game_id = f.game_id AND s.seat = f.seat"
            + where
            + " ORDER BY f.rowid DESC LIMIT ?",
            (*args, limit),
        )
        return [dict(zip(keys, row, strict=True)) for row in rows]

    def fault_counts_of_game(self, game: str) -> dict[str, dict[str, int]]:
        """Per bot of ``game``: its number of faults of each kind."""
        counts: dict[str, dict[str, int]] = {}
        rows = self._rows(
            "SELECT s.bot, f.kind, COUNT(*) FROM faults f JOIN games g ON g.id = f.game_id "
            "JOIN seats s ON s.game_id = f.game_id AND s.seat = f.seat WHERE g.game = ? "
            "GROUP BY s.bot, f.kind",
            (game,),
        )
        for bot, kind, n in rows:
            counts.setdefault(bot, {})[kind] = n
        return counts

    def game_ids(
        self,
        game: str | None = None,
        run_id: int | None = None,
        limit: int = 300,
        with_faults: bool = False,
    ) -> list[int]:
        """The ids of the latest games (only those with a fault or a forfeit: ``with_faults``)."""
        where, args = self._game_filter(game, run_id)
        if with_faults:
            where += (" AND " if where else " WHERE ") + (
                "EXISTS (SELECT 1 FROM seats s WHERE s.game_id = g.id "
                "AND (s.faults > 0 OR s.forfeit > 0))"
            )
        sql = f"SELECT g.id FROM games g{where} ORDER BY g.id DESC LIMIT ?"
        return [row[0] for row in self._rows(sql, (*args, limit))]

    def count_games(self, game: str | None = None, run_id: int | None = None) -> int:
        where, args = self._game_filter(game, run_id)
        return self._rows(f"SELECT COUNT(*) FROM games g{where}", args)[0][0]

    @staticmethod
    def _game_filter(game: str | None, run_id: int | None) -> tuple[str, tuple]:
        where, args = _game_conditions(game, run_id)
        return (" WHERE " + " AND ".join(where) if where else ""), tuple(args)

    def iter_games(
        self,
        game: str | None = None,
        run_id: int | None = None,
        bot: str | None = None,
        batch: int = 1000,
        ids: tuple[int, int] | None = None,
    ):
        """Every stored game (oldest first) as ``stored_game`` gives it, without its fault log,
        read ``batch`` games at a time: ``arena export`` streams millions this way. ``ids``:
        only those with ids in this (first, last) range."""
        where, args = _game_conditions(game, run_id, bot)
        where.insert(0, "g.id > ?")
        if ids is not None:
            where.append("g.id <= ?")
            args.append(ids[1])
        columns = ", ".join(f"g.{c}" for c in GAME_COLUMNS)
        sql = f"SELECT {columns} FROM games g WHERE {' AND '.join(where)} ORDER BY g.id LIMIT ?"
        seats_sql = (
            f"SELECT game_id, {', '.join(_SEAT_KEYS)} FROM seats "
            "WHERE game_id BETWEEN ? AND ? ORDER BY game_id, seat"
        )
        last = 0 if ids is None else ids[0] - 1
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

    def export_rows(
        self,
        game: str | None,
        run_id: int | None,
        bot: str | None,
        ids: tuple[int, int],
    ) -> list[tuple[int, int, float, bytes | None, list[tuple]]]:
        """``iter_games``'s games with ids in ``ids`` (first, last), only what ``arena export``
        writes, as tuples: id, run, finished, record and the seats' (score, rank, forfeit) in
        seat order. (Two queries a chunk and no dicts: a third of ``iter_games``'s time.)"""
        where, args = _game_conditions(game, run_id, bot)
        where.insert(0, "g.id BETWEEN ? AND ?")
        sql = (
            f"SELECT g.id, g.run_id, g.finished, g.record FROM games g "
            f"WHERE {' AND '.join(where)} ORDER BY g.id"
        )
        games = self._rows(sql, (*ids, *args))
        seats: dict[int, list[tuple]] = {game_id: [] for game_id, *_ in games}
        seats_sql = (
            "SELECT game_id, score, rank, forfeit FROM seats "
            "WHERE game_id BETWEEN ? AND ? ORDER BY game_id, seat"
        )
        for game_id, *seat in self._rows(seats_sql, ids):
            if game_id in seats:
                seats[game_id].append(seat)
        return [(*row, seats[row[0]]) for row in games]

    def game_id_ranges(
        self,
        game: str | None = None,
        run_id: int | None = None,
        bot: str | None = None,
        size: int = 1000,
    ):
        """(first id, last id) of each run of ``size`` stored games that ``iter_games`` gives,
        oldest first: what ``arena export`` hands its processes, which read the games
        themselves."""
        where, args = _game_conditions(game, run_id, bot)
        where.insert(0, "g.id > ?")
        sql = f"SELECT g.id FROM games g WHERE {' AND '.join(where)} ORDER BY g.id LIMIT ?"
        last = 0
        while True:
            rows = self._rows(sql, (last, *args, size))
            if not rows:
                return
            last = rows[-1][0]
            yield rows[0][0], last

    def kept_records(self, first_id: int, last_id: int) -> dict[int, tuple[int, bytes]]:
        """The records ``arena export --keep`` kept for games in the id range (``kept_records``)."""
        return self._guard(kept_store.kept, self.db, first_id, last_id)

    def keep_records(self, rows: list[tuple[int, int, bytes]]) -> None:
        self._guard(kept_store.keep, self.db, rows)

    def _dicts(self, table: str, columns: tuple[str, ...], where: str, *args) -> list[dict]:
        sql = f"SELECT {', '.join(columns)} FROM {table} WHERE {where}"
        return [dict(zip(columns, row, strict=True)) for row in self._rows(sql, args)]

    def reset(self) -> None:
        def wipe():
            with transaction(self.db):
                # (a file from an older arena may lack a table added since)
                present = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master")}
                for table in TABLES:
                    if table in present:
                        self.db.execute(f"DELETE FROM {table}")

        self._guard(wipe)


def _game_conditions(
    game: str | None = None, run_id: int | None = None, bot: str | None = None
) -> tuple[list[str], list]:
    """SQL conditions (and their arguments) on the games ``g`` of a game, a run, a bot."""
    where: list[str] = []
    args: list = []
    if game is not None:
        where.append("g.game = ?")
        args.append(game)
    if run_id is not None:
        where.append("g.run_id = ?")
        args.append(run_id)
    if bot is not None:
        clause, bot_args = _bot_versions_clause("s.bot", bot)
        where.append(f"EXISTS (SELECT 1 FROM seats s WHERE s.game_id = g.id AND {clause})")
        args.extend(bot_args)
    return where, args


def _bot_versions_clause(column: str, bot: str) -> tuple[str, list]:
    """SQL matching the stored names of a bot: ``name`` is every version of it (``name``,
    ``name@2``, ...), ``name@N`` that version only."""
    if "@" in bot:
        return f"{column} = ?", [bot]
    return f"({column} = ? OR substr({column}, 1, ?) = ?)", [bot, len(bot) + 1, bot + "@"]
