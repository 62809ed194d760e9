"""Writing one batch of played games, with the ratings they lead to, in one transaction.

Games are written in schedule order, so the file always holds a consistent prefix of every run:
an interrupted run resumes from where its last batch ended and rates the rest exactly as an
uninterrupted run would.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable
from itertools import chain, repeat

from arena.referee.outcome import GameOutcome
from arena.store.schema import GAME_COLUMNS, transaction

_ROWS_PER_INSERT = 200


def write_batch(
    db: sqlite3.Connection,
    run_id: int,
    items: Iterable[tuple[int, int, GameOutcome, dict[str, float]]],
    game: str,
    ratings: dict[str, tuple[float, float, float, float]],
) -> None:
    """Store games ``(index, board, outcome, placings)`` and the ratings after them, atomically."""
    with transaction(db):
        # The ids SQLite would give one by one (max + 1), given here so that each table is
        # written with a few statements of many rows each.
        first_id = db.execute("SELECT COALESCE(MAX(id), 0) FROM games").fetchone()[0] + 1
        games, seats, placings, faults, tracebacks = _rows(run_id, items, first_id, time.time())
        _insert(db, "games", GAME_COLUMNS, games)
        _insert(db, "seats", 7, seats)
        _insert(db, "placings", 4, placings)
        _insert(db, "faults", 5, faults)
        _insert(db, "fault_tracebacks", 4, tracebacks)
        db.executemany(
            "INSERT OR REPLACE INTO ratings(game, bot, mu, sigma, pi, tau) VALUES (?,?,?,?,?,?)",
            [(game, bot, mu, sigma, pi, tau) for bot, (pi, tau, mu, sigma) in ratings.items()],
        )


def _rows(run_id: int, items, first_id: int, now: float) -> tuple[list, list, list, list, list]:
    """The values of the rows of games, seats, placings, faults and fault tracebacks, each
    table's as one flat list; the games get the ids from ``first_id`` on."""
    games: list = []
    seats: list = []
    placings_: list = []
    faults: list = []
    tracebacks: list = []
    for game_id, (index, board, outcome, placings) in enumerate(items, first_id):
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
            if fault.detail:
                tracebacks += (game_id, fault.seat, fault.decision, fault.detail)
    return games, seats, placings_, faults, tracebacks


def _insert(db: sqlite3.Connection, table: str, columns: int | tuple, values: list) -> None:
    """Insert rows given as one flat list of values, many rows per statement: SQLite runs one
    statement per row of ``executemany`` and seeks its tables and indexes again for each."""
    names = ""
    if isinstance(columns, tuple):
        names = f"({', '.join(columns)})"
        columns = len(columns)
    row = "(" + ",".join("?" * columns) + ")"
    # (SQLite before 3.32 takes at most 999 parameters a statement.)
    limit = db.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
    step = max(1, min(_ROWS_PER_INSERT, limit // columns)) * columns
    for start in range(0, len(values), step):
        part = values[start : start + step]
        rows = ",".join([row] * (len(part) // columns))
        db.execute(f"INSERT INTO {table}{names} VALUES {rows}", part)
