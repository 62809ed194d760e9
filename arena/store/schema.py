"""What an arena database file holds, and opening one: checked, created or brought up to date.

A file that is not ours, corrupt, locked, read-only or from a newer arena is reported with one
clear line (``StoreError``) and never overwritten. Files made before runs kept their ``settings``
get the column when opened for writing (older arenas ignore it, so the schema version stays);
opened for reading only, they are read without it. Files made before bots had versions get the
``bot_versions`` table the same way: every bot already stored is version 1 of itself, under its
plain name, so nothing stored is rewritten.
Likewise the table of fault tracebacks
(``FAULT_TRACEBACKS``): added to an older file opened for writing, and read as empty from an older
file opened for reading only.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SCHEMA_VERSION = 1
APPLICATION_ID = 0x4152454E  # "AREN": marks the file as an arena database

# Added by issue 16 (the traceback of each exception fault); an older file gets it in place.
FAULT_TRACEBACKS = """
CREATE TABLE IF NOT EXISTS fault_tracebacks (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    decision INTEGER NOT NULL,
    traceback TEXT NOT NULL  -- of an exception fault, at most referee.faults.MAX_TRACEBACK long
);
CREATE INDEX IF NOT EXISTS fault_tracebacks_by_game ON fault_tracebacks (game_id, seat, decision);
"""

SCHEMA = (
    """
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
CREATE TABLE IF NOT EXISTS bot_versions (
    name TEXT NOT NULL,  -- the name the bot registers
    version INTEGER NOT NULL,  -- stored (seats, ratings) as name for 1, name@N after
    fingerprint TEXT NOT NULL,  -- of its source file(s) and settings
    first_seen REAL NOT NULL,
    last_seen REAL NOT NULL,  -- last fielded as the bot file's current version
    origin TEXT NOT NULL,  -- "file", "entry-point" or "" (registered in arena's own code)
    source TEXT,  -- the text of a one-file bot, to field it again (else NULL)
    PRIMARY KEY (name, version),
    UNIQUE (name, fingerprint)
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
    + FAULT_TRACEBACKS
)

# The columns of a game's row, in the order the table has them.
GAME_COLUMNS = ("id", "run_id", "game", "idx", "board", "seed", "players", "decisions", "seconds",
                "finished", "record")  # fmt: skip
# children before parents
TABLES = (
    "kept_records",
    "batch_ratings",
    "fault_tracebacks",
    "faults",
    "placings",
    "seats",
    "games",
    "ratings",
    "runs",
    "bot_versions",
)


class StoreError(Exception):
    """The database cannot be used; the message is one line for the user."""


def explain(exc: sqlite3.Error, path: Path) -> str:
    """One line for the user about an SQLite error on the file ``path``."""
    text = str(exc)
    if "locked" in text or "busy" in text:
        return (
            f"{path}: the database is locked by another process (another arena run?); "
            "wait for it or use --db"
        )
    if "readonly" in text or "read-only" in text:
        return f"{path}: the database is read-only; make it writable or use --db"
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return f"{path}: not a valid arena database (corrupt or another kind of file); use --db"
    if "unable to open" in text:
        return f"{path}: cannot open the database file (check the folder exists and is writable)"
    return f"{path}: database error: {text}"


@contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[None]:
    """One write transaction, taken at once (no other writer can slip in), rolled back on any
    error or interruption."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def connect(path: Path, create: bool, timeout: float) -> tuple[sqlite3.Connection, bool]:
    """The open, checked database at ``path`` (made if new, when ``create``), and whether its
    runs table has the settings column. Raises StoreError, or sqlite3.Error and OSError for the
    caller to explain; the connection is closed then."""
    if not path.exists() and not create:
        raise StoreError(f"{path}: no database yet (run `arena run` first)")
    db = None
    try:
        if create:
            path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(path, timeout=timeout, isolation_level=None)
        else:
            db = _connect_existing(path, timeout)
        db.execute("PRAGMA foreign_keys = ON")
        _check_or_create(db, path, create)
        if create:
            _check_intact(db, path)
            _check_writable(db)
            # WAL: a commit costs no fsync of the whole file, and a killed process loses
            # nothing that was committed.
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = NORMAL")
        if create:
            _add_bot_versions(db)
            _add_fault_tracebacks(db)
        has_settings = _has_run_settings(db, add=create)
        add_batch_rating_cache(db)
        return db, has_settings
    except BaseException:
        if db is not None:
            db.close()
        raise


def _connect_existing(path: Path, timeout: float) -> sqlite3.Connection:
    """An existing database, opened to write where this process may write there (so that reading
    commands keep their caches and upgrades: the batch ratings), else to read only."""
    if os.access(path, os.W_OK) and os.access(path.parent, os.W_OK):
        db = sqlite3.connect(
            f"{path.resolve().as_uri()}?mode=rw", timeout=timeout, isolation_level=None, uri=True
        )
        try:
            db.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
            return db
        except sqlite3.OperationalError:
            db.close()
    return _connect_to_read(path, timeout)


# SQLite's primary result codes for a file it may not write or open as asked (and only these: a
# busy or locked database must be waited for, not read as an immutable file).
_READ_ONLY_CODES = (8, 14)  # SQLITE_READONLY, SQLITE_CANTOPEN


def _connect_to_read(path: Path, timeout: float) -> sqlite3.Connection:
    """The database opened to read only: nothing is written, not even a journal, so that it can
    be read in a folder arena may not write to. A database in WAL mode needs its ``-shm`` file
    for that, which such a folder may not have: it is then read as an immutable file (nothing
    can be writing to it there)."""
    uri = path.resolve().as_uri()
    db = sqlite3.connect(f"{uri}?mode=ro", timeout=timeout, isolation_level=None, uri=True)
    try:
        db.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
        return db
    except sqlite3.OperationalError as exc:
        db.close()
        if getattr(exc, "sqlite_errorcode", 14) & 0xFF not in _READ_ONLY_CODES:
            raise
    return sqlite3.connect(f"{uri}?immutable=1", timeout=timeout, isolation_level=None, uri=True)


def _check_or_create(db: sqlite3.Connection, path: Path, create: bool = True) -> None:
    """An arena database this arena can read, or a new one in an empty file (``create``)."""
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if not tables and not create:
        raise StoreError(f"{path}: no database yet (run `arena run` first)")
    if not tables:
        with transaction(db):
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            db.execute(
                "INSERT INTO meta(key, value) VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),)
            )
        return
    row = None
    if db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID and "meta" in tables:
        row = db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    if row is None:
        raise StoreError(f"{path}: this SQLite file is not an arena database; use --db")
    version = int(row[0])
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"{path}: made by a newer arena (schema {version}, this one reads "
            f"{SCHEMA_VERSION}); upgrade arena or use --db"
        )


def _has_run_settings(db: sqlite3.Connection, add: bool) -> bool:
    """Whether the runs table has its settings column, given to an older file's when ``add``."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(runs)")}
    if "settings" in columns:
        return True
    if add:
        db.execute("ALTER TABLE runs ADD COLUMN settings TEXT")
    return add


def _add_bot_versions(db: sqlite3.Connection) -> None:
    """The bot_versions table, given to a file made before it existed."""
    statement = SCHEMA[SCHEMA.index("CREATE TABLE IF NOT EXISTS bot_versions") :]
    db.execute(statement[: statement.index(";")])


def has_bot_versions(db: sqlite3.Connection) -> bool:
    row = db.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='bot_versions'")
    return row.fetchone() is not None


BATCH_RATING_CACHE = """
CREATE TABLE IF NOT EXISTS batch_ratings (
    game TEXT PRIMARY KEY,
    games INTEGER NOT NULL,       -- the stored games of the game the fit covers
    last_id INTEGER NOT NULL,     -- the last of them, and when it was stored (a database reset
    last_finished REAL NOT NULL,  -- and filled again cannot pass for the one fitted)
    data BLOB NOT NULL            -- numpy arrays (ratings/batch.py): counts and the fit
);
CREATE INDEX IF NOT EXISTS games_by_game ON games (game, id);
"""


def add_batch_rating_cache(db: sqlite3.Connection) -> bool:
    """The cache of batch ratings (Plackett–Luce fits) and the index that finds a game's latest
    games, added to a file made before them. Older arenas ignore both, so the schema version
    stays; a cache left stale by an older arena is recognised by its key and refitted. A file
    that cannot be written (read-only) is read without the cache: returns False."""
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if "batch_ratings" in tables:
        return True
    try:
        with transaction(db):
            for statement in BATCH_RATING_CACHE.split(";"):
                if statement.strip():
                    db.execute(statement)
    except sqlite3.OperationalError:
        return False
    return True


def _add_fault_tracebacks(db: sqlite3.Connection) -> None:
    """The table of fault tracebacks, in a file made before it existed (issue 16): an upgrade in
    place that keeps every row (older arenas ignore the table, so the schema version stays)."""
    for statement in FAULT_TRACEBACKS.split(";"):
        if statement.strip():
            db.execute(statement)


def has_fault_tracebacks(db: sqlite3.Connection) -> bool:
    """Whether the file has the table (an older file opened for reading only may not)."""
    row = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type='table' AND name='fault_tracebacks'"
    ).fetchone()
    return row is not None


def _check_intact(db: sqlite3.Connection, path: Path) -> None:
    """A damaged file is found before a run writes to it, not after its games are played."""
    row = db.execute("PRAGMA quick_check(1)").fetchone()
    if row is None or row[0] != "ok":
        detail = " ".join(str(row[0]).replace("*", "").split()) if row else "no answer"
        raise StoreError(f"{path}: not a valid arena database (damaged: {detail}); use --db")


def _check_writable(db: sqlite3.Connection) -> None:
    """Fail now, not after the first game, if the file cannot be written."""
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute("UPDATE meta SET value = value WHERE key = 'schema_version'")
    finally:
        db.execute("ROLLBACK")
