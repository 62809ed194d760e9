"""``arena export``: every stored game as one JSON line, the record ``arena replay ID --format
json`` prints (``arena-record/1``, docs/records.md, with the database's ``arena`` facts).

Records are stored compact (action indices, card orders); each is expanded by replaying it
through its engine (``arena.games.record.replay_stored``), which is most of the cost, and written
as ``expand``'s record would be dumped (``arena.games.record_text``: the same bytes). ``jobs`` > 1
expands in that many processes, in order. A record kept in its exported form
(``arena.store.kept_records``, ``keep``) is streamed as stored, with no engine at all.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from arena.games.base import Game, RecordError
from arena.games.record import replay_stored
from arena.games.record_text import RecordText
from arena.store.kept_records import checksum
from arena.views.replay import stored_facts

_CHUNK = 200
_KEEP_LEVEL = 6  # zlib: level 1 is hardly faster here and keeps 20 % more bytes


@dataclass
class ExportCounts:
    written: int = 0
    without_record: int = 0
    damaged: int = 0
    first_damage: str = ""
    kept: int = 0  # records newly kept (``keep``)


@dataclass
class _Item:
    facts: dict
    blob: bytes
    kept: bytes | None  # the kept text of this very compact record, if any


def _line(text: str, facts: dict) -> str:
    """``json.dumps({**record, "arena": facts}, ensure_ascii=False)``, from ``text``, the dump
    of the record alone: the same characters (a dict's last item follows ``, ``)."""
    return f'{text[:-1]}, "arena": {json.dumps(facts, ensure_ascii=False)}}}'


def _lines(
    items: list[_Item], games: dict[str, type[Game]], keep: bool
) -> tuple[list[str], list[tuple[int, int, bytes]]]:
    """The JSON line of each item (a ``"!"``-prefixed error for a damaged one) and, with
    ``keep``, the rows to keep for the records expanded here."""
    out = []
    new = []
    writer = RecordText()
    for item in items:
        if item.kept is not None:
            out.append(_line(zlib.decompress(item.kept).decode(), item.facts))
            continue
        try:
            state, header, times = replay_stored(item.blob, games)
        except RecordError as exc:
            out.append(f"!game {item.facts['id']}: {exc}")
            continue
        text = writer.text(state, header, times)
        out.append(_line(text, item.facts))
        if keep:
            packed = zlib.compress(text.encode(), _KEEP_LEVEL)
            new.append((item.facts["id"], checksum(item.blob), packed))
    return out, new


def _chunks(stored: Iterable[dict], counts: ExportCounts, kept) -> Iterator[list[_Item]]:
    chunk = []

    def done() -> list[_Item]:
        texts = kept(chunk[0]["id"], chunk[-1]["id"]) if kept is not None else {}
        items = []
        for info in chunk:
            blob = info["record"]
            crc, text = texts.get(info["id"], (None, None))
            text = text if crc is not None and crc == checksum(blob) else None
            items.append(_Item(stored_facts(info), blob, text))
        return items

    for info in stored:
        if info["record"] is None:
            counts.without_record += 1
            continue
        chunk.append(info)
        if len(chunk) == _CHUNK:
            yield done()
            chunk = []
    if chunk:
        yield done()


def export_lines(
    stored: Iterable[dict],
    games: dict[str, type[Game]],
    counts: ExportCounts,
    jobs: int = 1,
    store=None,
    keep: bool = False,
) -> Iterator[str]:
    """The JSON lines of ``stored`` (``Store.iter_games``), in order; ``counts`` is filled in.
    With ``store`` (the ``Store`` read), records kept there are streamed as kept; with ``keep``
    too, the others are kept there as they are expanded, a transaction a chunk."""
    chunks = _chunks(stored, counts, store.kept_records if store is not None else None)
    keep = keep and store is not None
    if jobs > 1:
        results = _in_processes(chunks, games, jobs, keep)
    else:
        results = (_lines(chunk, games, keep) for chunk in chunks)
    try:
        for lines, new in results:
            for line in lines:
                if line.startswith("!"):
                    counts.damaged += 1
                    counts.first_damage = counts.first_damage or line[1:]
                    continue
                counts.written += 1
                yield line
            if new:
                store.keep_records(new)
                counts.kept += len(new)
    finally:
        results.close()


def _in_processes(chunks, games, jobs: int, keep: bool):
    """``_lines`` of each chunk in ``jobs`` forked processes, in order, a few chunks ahead. The
    chunks are read here, in the thread that owns the database connection."""
    import multiprocessing
    from collections import deque

    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        pending = deque()
        for chunk in chunks:
            pending.append(pool.apply_async(_lines, (chunk, games, keep)))
            if len(pending) > 2 * jobs:
                yield pending.popleft().get()
        while pending:
            yield pending.popleft().get()
