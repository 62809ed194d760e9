"""``arena export``: every stored game as one JSON line, the record ``arena replay ID --format
json`` prints (``arena-record/1``, docs/records.md, with the database's ``arena`` facts).

Records are stored compact (action indices, card orders); each is expanded by replaying it
through its engine (``arena.games.record.replay_stored``), which is most of the cost, and written
as ``expand``'s record would be dumped (``arena.games.record_text``: the same bytes). A record
kept in its exported form (``arena.store.kept_records``, ``keep``) is streamed as stored, with no
engine at all.

The games go in chunks of consecutive ids; each chunk comes out as one block of UTF-8 lines.
With ``jobs`` > 1, forked processes each read their chunks from the database themselves and
hand back the block: the parent only lists the chunks' id ranges, writes the blocks in order and
stores the kept rows, so that two processes on two cores come close to twice one.
"""

from __future__ import annotations

import json
import math
import os
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field

from arena.games.base import Game, RecordError
from arena.games.record import replay_stored
from arena.games.record_text import RecordText
from arena.store.kept_records import checksum
from arena.views.replay import stored_facts

_CHUNK = 250
_KEEP_LEVEL = 6  # zlib: level 1 is hardly faster here and keeps 20 % more bytes


def usable_cores() -> int:
    """The cores this process may run on: ``arena export``'s default ``--jobs``."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # (not on every platform)
        return os.cpu_count() or 1


@dataclass
class ExportCounts:
    written: int = 0
    without_record: int = 0
    damaged: int = 0
    first_damage: str = ""
    kept: int = 0  # records newly kept (``keep``)

    def add(self, other: ExportCounts) -> None:
        self.written += other.written
        self.without_record += other.without_record
        self.damaged += other.damaged
        self.first_damage = self.first_damage or other.first_damage


@dataclass
class _Block:
    """One chunk's lines (UTF-8, each ending in a newline), what they count, and the rows to
    keep (``keep``) for the records expanded there."""

    text: bytes
    counts: ExportCounts
    new: list[tuple[int, int, bytes]] = field(default_factory=list)


@dataclass(frozen=True)
class Selection:
    """Which stored games: ``Store.iter_games``'s filters."""

    game: str | None = None
    run: int | None = None
    bot: str | None = None


def _line(text: str, facts: str) -> str:
    """``json.dumps({**record, "arena": facts}, ensure_ascii=False)``, from ``text``, the dump
    of the record alone, and ``_facts``: the same characters (a dict's last item follows
    ``, ``)."""
    return f'{text[:-1]}, "arena": {facts}}}'


_BOOLS = ("false", "true")


def _facts(info: dict) -> str:
    """``json.dumps(stored_facts(info), ensure_ascii=False)``, written out when every number
    is an int and the time a finite float (as stored): the same characters."""
    seats = info["seats"]
    scores = [s["score"] for s in seats]
    ranks = [s["rank"] for s in seats]
    finished = info["finished"]
    numbers = (info["id"], info["run_id"], *scores, *ranks)
    if (
        type(finished) is not float
        or not math.isfinite(finished)
        or set(map(type, numbers)) != {int}
    ):
        return json.dumps(stored_facts(info), ensure_ascii=False)
    forfeits = ", ".join([_BOOLS[bool(s["forfeit"])] for s in seats])
    return (
        f'{{"id": {info["id"]}, "run": {info["run_id"]}, "finished": {finished!r}, '
        f'"scores": [{", ".join(map(str, scores))}], "ranks": [{", ".join(map(str, ranks))}], '
        f'"forfeits": [{forfeits}]}}'
    )


def _block(
    store, games: dict[str, type[Game]], select: Selection, ids, keep: bool, writer: RecordText
) -> _Block:
    """The games of ``select`` with ids in ``ids`` (first, last), read from ``store``."""
    counts = ExportCounts()
    kept = store.kept_records(*ids)
    out = []
    new = []
    for info in store.iter_games(select.game, select.run, select.bot, batch=_CHUNK, ids=ids):
        blob = info["record"]
        if blob is None:
            counts.without_record += 1
            continue
        facts = _facts(info)
        crc, packed = kept.get(info["id"], (None, None))
        if crc is not None and crc == checksum(blob):
            out.append(_line(zlib.decompress(packed).decode(), facts))
            continue
        try:
            state, header, times = replay_stored(blob, games, writer.games_made, codes=True)
        except RecordError as exc:
            counts.damaged += 1
            counts.first_damage = counts.first_damage or f"game {info['id']}: {exc}"
            continue
        text = writer.text(state, header, times)
        out.append(_line(text, facts))
        if keep:
            new.append((info["id"], checksum(blob), zlib.compress(text.encode(), _KEEP_LEVEL)))
    counts.written = len(out)
    out.append("")
    return _Block("\n".join(out).encode() if counts.written else b"", counts, new)


def export_blocks(
    store,
    games: dict[str, type[Game]],
    counts: ExportCounts,
    select: Selection = Selection(),
    jobs: int = 1,
    keep: bool = False,
) -> Iterator[bytes]:
    """The JSON lines of the games ``select`` picks in ``store`` (a ``Store``), oldest first, as
    blocks of UTF-8 lines each ending in a newline; ``counts`` is filled in. Records kept in the
    store are streamed as kept; with ``keep``, the others are kept there as they are expanded, a
    transaction a chunk."""
    ranges = store.game_id_ranges(select.game, select.run, select.bot, size=_CHUNK)
    first = next(ranges, None)
    second = next(ranges, None)
    if first is None:
        return
    ranges = (r for r in (first, second, *ranges) if r is not None)
    if jobs > 1 and second is not None:
        blocks = _in_processes(ranges, store.path, games, select, jobs, keep)
    else:
        writer = RecordText()
        blocks = (_block(store, games, select, ids, keep, writer) for ids in ranges)
    try:
        for block in blocks:
            counts.add(block.counts)
            if block.text:
                yield block.text
            if block.new:
                store.keep_records(block.new)
                counts.kept += len(block.new)
    finally:
        blocks.close()


# The worker's own database connection and writer, made once per forked process (``_start``).
_worker: dict = {}


def _start(path, games, select: Selection, keep: bool) -> None:
    from arena.store.database import Store

    _worker.update(store=Store(path, create=False), games=games, select=select, keep=keep)
    _worker["writer"] = RecordText()


def _work(ids: tuple[int, int]) -> _Block:
    w = _worker
    return _block(w["store"], w["games"], w["select"], ids, w["keep"], w["writer"])


def _in_processes(ranges, path, games, select: Selection, jobs: int, keep: bool):
    """``_block`` of each id range in ``jobs`` forked processes, in order, a few ahead."""
    import multiprocessing
    from collections import deque

    context = multiprocessing.get_context("fork")
    with context.Pool(jobs, initializer=_start, initargs=(path, games, select, keep)) as pool:
        pending = deque()
        for ids in ranges:
            pending.append(pool.apply_async(_work, (ids,)))
            if len(pending) > 2 * jobs:
                yield pending.popleft().get()
        while pending:
            yield pending.popleft().get()
