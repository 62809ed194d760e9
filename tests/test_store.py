"""The results database: a file that is not ours, corrupt, newer, read-only or locked is one clear
``StoreError`` line (exit code 2 from the CLI) and is never overwritten."""

from __future__ import annotations

import gc
import hashlib
import os
import random
import sqlite3

import pytest
from conftest import assert_one_line_error, count_games

from arena.store import database as store_module
from arena.store.database import Store, StoreError
from arena.store.schema import APPLICATION_ID, SCHEMA_VERSION

pytestmark = pytest.mark.usefixtures("isolated")


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def make_arena_db(path) -> None:
    Store(path).close()


def corrupt(path) -> None:
    path.write_bytes(random.Random(1234).randbytes(8192))


def foreign(path) -> None:
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)")
    con.execute("INSERT INTO photos(name) VALUES ('holiday.jpg')")
    con.commit()
    con.close()


def newer(path) -> None:
    make_arena_db(path)
    con = sqlite3.connect(path)
    con.execute("UPDATE meta SET value='999' WHERE key='schema_version'")
    con.commit()
    con.close()


def other_application(path) -> None:
    con = sqlite3.connect(path)
    con.execute("PRAGMA application_id = 12345")
    con.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    con.commit()
    con.close()


BAD_FILES = {
    "corrupt-random-bytes": (corrupt, "not a valid arena database"),
    "foreign-sqlite": (foreign, "not an arena database"),
    "newer-schema": (newer, "newer arena (schema 999"),
    "other-application-id": (other_application, "not an arena database"),
}


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_unusable_database_is_one_line_store_error_and_never_overwritten(tmp_path, case):
    make, fragment = BAD_FILES[case]
    path = tmp_path / "bad.db"
    make(path)
    before = digest(path)
    for create in (True, False):
        with pytest.raises(StoreError) as info:
            Store(path, create=create)
        message = str(info.value)
        assert fragment in message
        assert message.startswith(str(path))
        assert "\n" not in message
    assert digest(path) == before
    assert not (tmp_path / "bad.db-journal").exists()  # no write was even begun
    wal = tmp_path / "bad.db-wal"
    assert not wal.exists() or wal.stat().st_size == 0


@pytest.mark.parametrize("case", list(BAD_FILES))
@pytest.mark.parametrize("command", ["run", "leaderboard", "reset"])
def test_cli_on_unusable_database_exits_2_with_one_line_and_keeps_the_file(
    cli, bots_dir, tmp_path, case, command
):
    make, fragment = BAD_FILES[case]
    path = tmp_path / "bad.db"
    make(path)
    before = digest(path)
    if command == "run":
        result = cli("run", "--games", 2, "--seed", 1, "--db", path, "--bots-dir", bots_dir, "-q")
    elif command == "leaderboard":
        result = cli("leaderboard", "--db", path)
    else:
        result = cli("leaderboard", "--db", path, "--reset")
    assert_one_line_error(result, str(path), fragment)
    assert digest(path) == before


def test_foreign_sqlite_file_with_its_own_meta_table_is_not_taken_over(tmp_path):
    path = tmp_path / "History"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE meta(key LONGVARCHAR NOT NULL UNIQUE PRIMARY KEY, value LONGVARCHAR)")
    con.execute("INSERT INTO meta VALUES ('version', '42')")
    con.execute("CREATE TABLE urls (id INTEGER PRIMARY KEY, url TEXT)")
    con.commit()
    con.close()
    before = digest(path)
    with pytest.raises(StoreError, match="not an arena database"):
        Store(path)
    assert digest(path) == before


def test_new_database_is_marked_as_arena_and_reopens(tmp_path):
    path = tmp_path / "sub" / "folder" / "arena.db"
    Store(path).close()
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert con.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone() == (
        str(SCHEMA_VERSION),
    )
    con.close()
    before = digest(path)
    Store(path, create=False).close()
    assert digest(path) == before


def test_missing_database_without_create_is_an_error_and_creates_nothing(tmp_path):
    path = tmp_path / "missing.db"
    with pytest.raises(StoreError, match="no database yet"):
        Store(path, create=False)
    assert not path.exists()


def test_database_path_that_is_a_folder_is_one_line_error(tmp_path, cli, bots_dir):
    folder = tmp_path / "a-folder.db"
    folder.mkdir()
    with pytest.raises(StoreError) as info:
        Store(folder)
    assert "\n" not in str(info.value) and str(folder) in str(info.value)
    result = cli("run", "--games", 2, "--seed", 1, "--db", folder, "--bots-dir", bots_dir, "-q")
    assert_one_line_error(result, str(folder))


def test_locked_database_is_one_line_store_error(tmp_path):
    path = tmp_path / "locked.db"
    make_arena_db(path)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        # Found at open or at the first write, depending on the journal mode.
        with pytest.raises(
            StoreError, match=r"locked by another process \(another arena run\?\)"
        ) as info:
            store = Store(path, timeout=0.05)
            store.start_run("locked", {"games": 1})
        assert "\n" not in str(info.value)
    finally:
        holder.execute("ROLLBACK")
        holder.close()


# --- read-only files ------------------------------------------------------------------------------


@pytest.fixture
def read_only_sqlite(monkeypatch):
    """Open every database read-only, as SQLite does for a file the user may not write.

    (The tests run as root in CI, where chmod does not stop writes.)
    """
    real = sqlite3.connect

    def connect(path, *args, **kwargs):
        kwargs.pop("uri", None)
        path = str(path)
        if not path.startswith("file:"):  # (arena opens some files by URI already, to read)
            path = f"file:{path}?mode=ro"
        elif "mode=ro" not in path and "immutable=1" not in path:
            path += "&mode=ro" if "?" in path else "?mode=ro"
        return real(path, *args, uri=True, **kwargs)

    monkeypatch.setattr(store_module.sqlite3, "connect", connect)


@pytest.fixture
def played_db(cli, bots_dir, tmp_path):
    path = tmp_path / "played.db"
    result = cli(
        "run",
        "--games",
        3,
        "--seed",
        1,
        "--db",
        path,
        "--bots-dir",
        bots_dir,
        "-j",
        1,
        "-q",
        "--game",
        "td",
    )
    assert result.exit_code == 0, result.output
    # The command leaves its connection to the garbage collector; close it now and fold the
    # write-ahead log into the file, so that nothing but the code under test can change it later.
    gc.collect()
    con = sqlite3.connect(path)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    return path


def test_read_only_database_is_one_line_store_error_when_opened_for_writing(
    played_db, read_only_sqlite
):
    before = digest(played_db)
    store = Store(played_db, create=False)  # reading is fine
    assert set(store.ratings("twenty-down")) == {"random", "first", "td-only", "td-heuristic"}
    with pytest.raises(StoreError) as info:
        store.start_run("x", {"games": 1})
    assert "read-only" in str(info.value) and "\n" not in str(info.value)
    store.close()
    with pytest.raises(StoreError) as info:
        Store(played_db)  # opening to write fails at once, before any game is played
    assert "read-only" in str(info.value) and "\n" not in str(info.value)
    assert digest(played_db) == before


def test_read_only_database_can_still_be_shown_but_not_reset(cli, played_db, read_only_sqlite):
    before = digest(played_db)
    shown = cli("leaderboard", "--db", played_db, "--format", "json")
    assert shown.exit_code == 0 and '"twenty-down"' in shown.stdout
    assert_one_line_error(cli("leaderboard", "--db", played_db, "--reset"), "read-only")
    assert digest(played_db) == before
    assert count_games(played_db) == 3


def test_run_into_read_only_database_exits_2_with_one_line(
    cli, bots_dir, played_db, read_only_sqlite
):
    before = digest(played_db)
    result = cli("run", "--games", 2, "--seed", 2, "--db", played_db, "--bots-dir", bots_dir, "-q")
    assert digest(played_db) == before
    assert_one_line_error(result, "read-only")


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write any file; see read_only_sqlite")
def test_chmod_read_only_database_is_reported_and_kept(cli, bots_dir, played_db):
    before = digest(played_db)
    played_db.chmod(0o444)
    try:
        result = cli("leaderboard", "--db", played_db, "--reset")
        assert_one_line_error(result, "read-only")
    finally:
        played_db.chmod(0o644)
    assert digest(played_db) == before


def test_database_from_before_runs_kept_their_isolation_still_opens_shows_and_resumes(tmp_path):
    """Older arenas made the runs table without the settings a run is played with (isolation,
    bot limits): such a file is shown unchanged, and a run resumes from it (with no settings:
    shared, the default), after which the runs keep their settings."""
    path = tmp_path / "old.db"
    Store(path).close()
    con = sqlite3.connect(path)
    con.execute("ALTER TABLE runs DROP COLUMN settings")
    con.execute(
        "INSERT INTO runs(created, seed, config, status) VALUES (0, 'old', ?, 'interrupted')",
        ('{"games": 1}',),
    )
    con.commit()
    con.close()
    before = digest(path)

    shown = Store(path, create=False)
    assert shown.latest_unfinished_run().settings == {}
    shown.close()
    assert digest(path) == before

    store = Store(path)
    run = store.find_run({"games": 1})
    assert (run.id, run.seed, run.settings) == (1, "old", {})
    played_with = {"isolation": "process", "bot_memory": 512, "bot_cpu": None}
    store.set_run_settings(run.id, played_with)
    assert store.find_run({"games": 1}).settings == played_with
    new = store.start_run("new", {"games": 2}, {"isolation": "shared"})
    assert store.unfinished_runs()[0].id == new
    assert store.unfinished_runs()[0].settings == {"isolation": "shared"}
    assert store.unfinished_runs()[0].config == {"games": 2}
    store.close()


# --- writing batches ------------------------------------------------------------------------------


class RatingsThatBreak(dict):
    """Ratings that fail to be read after the games are inserted, as an interruption would."""

    def items(self):
        raise KeyboardInterrupt


def test_a_batch_is_stored_whole_or_not_at_all(tmp_path):
    """Games, seats, placings, faults and ratings of a batch go in one transaction: a batch broken
    off part-way leaves nothing (a resumed run starts after the last whole batch), and the next
    batch is stored whole, faults and all."""
    from arena.referee.faults import Fault
    from arena.referee.outcome import GameOutcome

    outcome = GameOutcome(
        game="twenty-down", seed="s1", bots=("a", "b"), scores=(3, 9), ranks=(2, 1),
        engine_ranks=(2, 1), faults=(1, 0), forfeits=(False, False),
        fault_log=[Fault(0, 4, "illegal", "not a legal action")], decisions=12, seconds=0.5,
        record=b"rec",
    )  # fmt: skip
    store = Store(tmp_path / "batches.db")
    run = store.start_run("seed", {"games": 1})
    batch = [(0, 0, outcome, outcome.placings())]
    with pytest.raises(KeyboardInterrupt):
        store.save_batch(run, batch, "twenty-down", RatingsThatBreak(a=(1.0, 2.0, 3.0, 4.0)))
    assert store.games_done(run, "twenty-down") == 0
    assert store.recent_games() == [] and store.rated_games() == []

    store.save_batch(run, batch, "twenty-down", {"a": (1.0, 2.0, 3.0, 4.0)})
    assert store.games_done(run, "twenty-down") == 1
    assert store.rating_states("twenty-down") == {"a": (1.0, 2.0)}
    (game,) = store.recent_games()
    assert (game["run_id"], game["idx"], game["seed"], game["record"]) == (run, 0, "s1", b"rec")
    assert [(s["bot"], s["rank"], s["faults"]) for s in game["seats"]] == [("a", 2, 1), ("b", 1, 0)]
    assert game["fault_log"] == [
        {"seat": 0, "decision": 4, "kind": "illegal", "message": "not a legal action"}
    ]
    assert store.head_to_head("twenty-down") == [("a", "b", 0, 0, 1), ("b", "a", 1, 0, 0)]
    store.close()
