"""The results database: one SQLite file (``leaderboard/arena.db`` by default).

Games are written in schedule order together with the ratings they lead to, in one transaction
per batch, so the file always holds a consistent prefix of every run: an interrupted run resumes
from where its last batch ended and rates the rest exactly as an uninterrupted run would.
A file that is not ours, corrupt, locked, read-only or from a newer arena is reported with one
clear line (``StoreError``) and never overwritten.

Each run keeps two things: its ``config``, the identity that decides its games (a rerun of the same
command finds its unfinished run by it), and its ``settings``, how it is played (isolation, bot
limits), which change nothing in its results and so are not part of its identity. Files made
before ``settings`` existed get the column when opened for writing (older arenas ignore it, so
the schema version stays); their runs have no settings: the defaults.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import chain, repeat
from pathlib import Path

from arena.referee.outcome import GameOutcome

SCHEMA_VERSION = 1
APPLICATION_ID = 0x4152454E  # "AREN": marks the file as an arena database

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    created REAL NOT NULL,
    seed TEXT NOT NULL,
    config TEXT NOT NULL,
    status TEXT NOT NULL,
    settings TEXT  -- JSON, how the run is played (NULL in runs stored before it existed)
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    game TEXT NOT NULL,
    idx INTEGER NOT NULL,
    board INTEGER NOT NULL,
    seed TEXT NOT NULL,
    players INTEGER NOT NULL,
    decisions INTEGER NOT NULL,
    seconds REAL NOT NULL,
    finished REAL NOT NULL,
    record BLOB,
    UNIQUE (run_id, game, idx)
);
CREATE TABLE IF NOT EXISTS seats (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    bot TEXT NOT NULL,
    score INTEGER NOT NULL,
    rank INTEGER NOT NULL,
    faults INTEGER NOT NULL,
    forfeit INTEGER NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE TABLE IF NOT EXISTS placings (
    game_id INTEGER NOT NULL REFERENCES games(id),
    game TEXT NOT NULL,
    bot TEXT NOT NULL,
    place REAL NOT NULL,
    PRIMARY KEY (game_id, bot)
);
CREATE INDEX IF NOT EXISTS placings_by_game ON placings (game, bot);
CREATE TABLE IF NOT EXISTS faults (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    decision INTEGER NOT NULL,
    kind TEXT NOT NULL,
    message TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS ratings (
    game TEXT NOT NULL,
    bot TEXT NOT NULL,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    pi REAL NOT NULL,  -- the exact state of the rating: mu and sigma alone lose the last bit
    tau REAL NOT NULL,
    PRIMARY KEY (game, bot)
);
"""


class StoreError(Exception):
    """The database cannot be used; the message is one line for the user."""


@dataclass(frozen=True)
class RunInfo:
    id: int
    seed: str
    config: dict  # its identity: what decides its games
    status: str
    settings: dict = field(default_factory=dict)  # how it was last played: isolation, bot limits


def _explain(exc: sqlite3.Error, path: Path) -> str:
    text = str(exc)
    if "locked" in text or "busy" in text:
        return f"{path}: the database is locked by another process (another arena run?); wait for it or use --db"
    if "readonly" in text or "read-only" in text:
        return f"{path}: the database is read-only; make it writable or use --db"
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return f"{path}: not a valid arena database (corrupt or another kind of file); use --db"
    if "unable to open" in text:
        return f"{path}: cannot open the database file (check the folder exists and is writable)"
    return f"{path}: database error: {text}"


def _settings(settings: dict | None) -> str | None:
    return None if settings is None else json.dumps(settings, sort_keys=True)


_GAME_COLUMNS = "id, run_id, game, idx, board, seed, players, decisions, seconds, finished, record"
_ROWS_PER_INSERT = 200


def _insert(db: sqlite3.Connection, table: str, columns: int | str, values: list) -> None:
    """Insert rows given as one flat list of values, many rows per statement: SQLite runs one
    statement per row of ``executemany`` and seeks its tables and indexes again for each."""
    names = ""
    if isinstance(columns, str):
        names = f"({columns})"
        columns = columns.count(",") + 1
    row = "(" + ",".join("?" * columns) + ")"
    # (SQLite before 3.32 takes at most 999 parameters a statement.)
    limit = db.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
    step = max(1, min(_ROWS_PER_INSERT, limit // columns)) * columns
    for start in range(0, len(values), step):
        part = values[start : start + step]
        rows = ",".join([row] * (len(part) // columns))
        db.execute(f"INSERT INTO {table}{names} VALUES {rows}", part)


class Store:
    """The results database. ``create=False`` opens an existing one only (``arena leaderboard``)."""

    def __init__(self, path: str | Path, create: bool = True, timeout: float = 5.0):
        self.path = Path(path)
        if not self.path.exists() and not create:
            raise StoreError(f"{self.path}: no database yet (run `arena run` first)")
        self.db = None
        self._run_settings = "settings"  # the column, or NULL in a file made before it existed
        try:
            if create:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(self.path, timeout=timeout, isolation_level=None)
            self.db.execute("PRAGMA foreign_keys = ON")
            self._check_and_create()
            if create:
                self._check_intact()
                self._check_writable()
                # WAL: a commit costs no fsync of the whole file, and a killed process loses
                # nothing that was committed.
                self.db.execute("PRAGMA journal_mode = WAL")
                self.db.execute("PRAGMA synchronous = NORMAL")
            self._check_run_settings(add=create)
        except sqlite3.Error as exc:
            self.close()
            raise StoreError(_explain(exc, self.path)) from None
        except OSError as exc:
            self.close()
            raise StoreError(f"{self.path}: {exc.strerror or exc}") from None
        except StoreError:
            self.close()
            raise

    def _check_and_create(self) -> None:
        db = self.db
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if tables:
            app_id = db.execute("PRAGMA application_id").fetchone()[0]
            row = None
            if app_id == APPLICATION_ID and "meta" in tables:
                row = db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
            if row is None:
                raise StoreError(
                    f"{self.path}: this SQLite file is not an arena database; use --db"
                )
            version = int(row[0])
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"{self.path}: made by a newer arena (schema {version}, this one reads "
                    f"{SCHEMA_VERSION}); upgrade arena or use --db"
                )
            return
        db.execute("BEGIN IMMEDIATE")
        try:
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            db.execute(
                "INSERT INTO meta(key, value) VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),)
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _check_run_settings(self, add: bool) -> None:
        """Give an older file's runs table its settings column (``add``), or read it without."""
        columns = {row[1] for row in self.db.execute("PRAGMA table_info(runs)")}
        if "settings" in columns:
            return
        if add:
            self.db.execute("ALTER TABLE runs ADD COLUMN settings TEXT")
        else:
            self._run_settings = "NULL"

    def _check_intact(self) -> None:
        """A damaged file is found before a run writes to it, not after its games are played."""
        row = self.db.execute("PRAGMA quick_check(1)").fetchone()
        if row is None or row[0] != "ok":
            detail = " ".join(str(row[0]).replace("*", "").split()) if row else "no answer"
            raise StoreError(
                f"{self.path}: not a valid arena database (damaged: {detail}); use --db"
            )

    def _check_writable(self) -> None:
        """Fail now, not after the first game, if the file cannot be written."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self.db.execute("UPDATE meta SET value = value WHERE key = 'schema_version'")
        finally:
            self.db.execute("ROLLBACK")

    def close(self) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None

    def _guard(self, function, *args):
        try:
            return function(*args)
        except sqlite3.Error as exc:
            raise StoreError(_explain(exc, self.path)) from None

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
        rows = self._guard(lambda: self.db.execute(sql, args).fetchall())
        return [
            RunInfo(r[0], r[1], json.loads(r[2]), r[3], json.loads(r[4]) if r[4] else {})
            for r in rows
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
        row = self._guard(
            lambda: self.db.execute(
                "SELECT COUNT(*) FROM games WHERE run_id=? AND game=?", (run_id, game)
            ).fetchone()
        )
        return row[0]

    # --- writing games ------------------------------------------------------------------------
    def save_batch(
        self,
        run_id: int,
        items: Iterable[tuple[int, int, GameOutcome, dict[str, float]]],
        game: str,
        ratings: dict[str, tuple[float, float, float, float]],
    ) -> None:
        """Store games ``(index, board, outcome, placings)`` and the ratings after them, atomically."""
        db = self.db

        def write():
            db.execute("BEGIN IMMEDIATE")
            try:
                now = time.time()
                # The ids SQLite would give one by one (max + 1), given here so that each table
                # is written with a few statements of many rows each.
                game_id = db.execute("SELECT COALESCE(MAX(id), 0) FROM games").fetchone()[0]
                games = []
                seats = []
                placings_ = []
                faults = []
                for index, board, outcome, placings in items:
                    game_id += 1
                    bots = outcome.bots
                    games += (
                        game_id,
                        run_id,
                        outcome.game,
                        index,
                        board,
                        outcome.seed,
                        len(bots),
                        outcome.decisions,
                        outcome.seconds,
                        now,
                        outcome.record,
                    )
                    seats += chain.from_iterable(
                        zip(
                            repeat(game_id),
                            range(len(bots)),
                            bots,
                            outcome.scores,
                            outcome.ranks,
                            outcome.faults,
                            map(int, outcome.forfeits),
                        )
                    )
                    placings_ += chain.from_iterable(
                        zip(repeat(game_id), repeat(outcome.game), placings, placings.values())
                    )
                    for fault in outcome.fault_log:
                        faults += (game_id, fault.seat, fault.decision, fault.kind, fault.message)
                _insert(db, "games", _GAME_COLUMNS, games)
                _insert(db, "seats", 7, seats)
                _insert(db, "placings", 4, placings_)
                _insert(db, "faults", 5, faults)
                db.executemany(
                    "INSERT OR REPLACE INTO ratings(game, bot, mu, sigma, pi, tau) "
                    "VALUES (?,?,?,?,?,?)",
                    [
                        (game, bot, mu, sigma, pi, tau)
                        for bot, (pi, tau, mu, sigma) in ratings.items()
                    ],
                )
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise

        self._guard(write)

    # --- reading ------------------------------------------------------------------------------
    def ratings(self, game: str) -> dict[str, tuple[float, float]]:
        rows = self._guard(
            lambda: self.db.execute(
                "SELECT bot, mu, sigma FROM ratings WHERE game=?", (game,)
            ).fetchall()
        )
        return {bot: (mu, sigma) for bot, mu, sigma in rows}

    def rating_states(self, game: str) -> dict[str, tuple[float, float]]:
        """Each bot's exact rating state (π, τ), to continue rating from."""
        rows = self._guard(
            lambda: self.db.execute(
                "SELECT bot, pi, tau FROM ratings WHERE game=?", (game,)
            ).fetchall()
        )
        return {bot: (pi, tau) for bot, pi, tau in rows}

    def rated_games(self) -> list[str]:
        rows = self._guard(
            lambda: self.db.execute(
                "SELECT DISTINCT game FROM ratings UNION SELECT DISTINCT game FROM games ORDER BY 1"
            ).fetchall()
        )
        return [r[0] for r in rows]

    def bot_stats(self, game: str) -> dict[str, dict]:
        """Per bot: games, wins, mean rank, mean score, faults, forfeits (over all its seats)."""
        rows = self._guard(
            lambda: self.db.execute(
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
            ).fetchall()
        )
        return {
            bot: {
                "games": games,
                "wins": wins,
                "avg_rank": avg_rank,
                "avg_score": avg_score,
                "faults": faults,
                "forfeits": forfeits,
            }
            for bot, games, wins, avg_rank, avg_score, faults, forfeits in rows
        }

    def head_to_head(self, game: str) -> list[tuple[str, str, int, int, int]]:
        """Rows (a, b, a ahead, tied, b ahead) over the games both played."""
        return self._guard(
            lambda: self.db.execute(
                """
                SELECT a.bot, b.bot,
                       SUM(a.place < b.place), SUM(a.place = b.place), SUM(a.place > b.place)
                FROM placings a JOIN placings b ON a.game_id = b.game_id AND a.bot != b.bot
                WHERE a.game = ?
                GROUP BY a.bot, b.bot
                ORDER BY a.bot, b.bot
                """,
                (game,),
            ).fetchall()
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
        ids = [r[0] for r in self._guard(lambda: self.db.execute(sql, (*args, limit)).fetchall())]
        return [self.stored_game(i) for i in ids]

    def stored_game(self, game_id: int) -> dict | None:
        """One stored game: its row (``record`` the compact blob or None), seats and faults."""

        def read():
            row = self.db.execute(
                "SELECT id, run_id, game, idx, board, seed, players, decisions, seconds, finished,"
                " record FROM games WHERE id = ?",
                (game_id,),
            ).fetchone()
            if row is None:
                return None
            keys = ("id", "run_id", "game", "idx", "board", "seed", "players", "decisions",
                    "seconds", "finished", "record")  # fmt: skip
            info = dict(zip(keys, row, strict=True))
            info["seats"] = [
                dict(zip(("seat", "bot", "score", "rank", "faults", "forfeit"), r, strict=True))
                for r in self.db.execute(
                    "SELECT seat, bot, score, rank, faults, forfeit FROM seats WHERE game_id = ?"
                    " ORDER BY seat",
                    (game_id,),
                )
            ]
            info["fault_log"] = [
                dict(zip(("seat", "decision", "kind", "message"), r, strict=True))
                for r in self.db.execute(
                    "SELECT seat, decision, kind, message FROM faults WHERE game_id = ?"
                    " ORDER BY rowid",
                    (game_id,),
                )
            ]
            return info

        return self._guard(read)

    def reset(self) -> None:
        def wipe():
            db = self.db
            db.execute("BEGIN IMMEDIATE")
            try:
                for table in ("faults", "placings", "seats", "games", "ratings", "runs"):
                    db.execute(f"DELETE FROM {table}")
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise

        self._guard(wipe)
