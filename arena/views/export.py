"""``arena export``: every stored game as one JSON line, the record ``arena replay ID --format
json`` prints (``arena-record/1``, docs/records.md, with the database's ``arena`` facts).

Records are stored compact (action indices, card orders); each is expanded by replaying it
through its engine (``arena.games.record.expand``), which is most of the cost. ``jobs`` > 1
expands in that many processes, in order.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from arena.games.base import Game, RecordError
from arena.games.record import expand
from arena.views.replay import stored_facts

_CHUNK = 200


@dataclass
class ExportCounts:
    written: int = 0
    without_record: int = 0
    damaged: int = 0
    first_damage: str = ""


def _lines(items: list[tuple[dict, bytes]], games: dict[str, type[Game]]) -> list[str | None]:
    """The JSON line of each ``(facts, blob)``, or a ``"!"``-prefixed error for a damaged one."""
    out = []
    for facts, blob in items:
        try:
            record = expand(blob, games)
        except RecordError as exc:
            out.append(f"!game {facts['id']}: {exc}")
            continue
        out.append(json.dumps({**record, "arena": facts}, ensure_ascii=False))
    return out


def _chunks(stored: Iterable[dict], counts: ExportCounts) -> Iterator[list[tuple[dict, bytes]]]:
    chunk = []
    for info in stored:
        if info["record"] is None:
            counts.without_record += 1
            continue
        chunk.append((stored_facts(info), info["record"]))
        if len(chunk) == _CHUNK:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def export_lines(
    stored: Iterable[dict], games: dict[str, type[Game]], counts: ExportCounts, jobs: int = 1
) -> Iterator[str]:
    """The JSON lines of ``stored`` (``Store.iter_games``), in order; ``counts`` is filled in."""
    chunks = _chunks(stored, counts)
    if jobs > 1:
        results = _in_processes(chunks, games, jobs)
    else:
        results = (_lines(chunk, games) for chunk in chunks)
    try:
        for lines in results:
            for line in lines:
                if line.startswith("!"):
                    counts.damaged += 1
                    counts.first_damage = counts.first_damage or line[1:]
                    continue
                counts.written += 1
                yield line
    finally:
        results.close()


def _in_processes(chunks, games, jobs: int) -> Iterator[list[str | None]]:
    """``_lines`` of each chunk in ``jobs`` forked processes, in order, a few chunks ahead. The
    chunks are read here, in the thread that owns the database connection."""
    import multiprocessing
    from collections import deque

    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        pending = deque()
        for chunk in chunks:
            pending.append(pool.apply_async(_lines, (chunk, games)))
            if len(pending) > 2 * jobs:
                yield pending.popleft().get()
        while pending:
            yield pending.popleft().get()
