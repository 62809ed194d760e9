"""``arena export``: every stored game as one JSON line, the record ``arena replay ID --format
json`` prints (``arena-record/1``, docs/records.md, with the database's ``arena`` facts).

Records are stored compact (action indices, card orders); each is expanded by replaying it
through its engine (``arena.games.record.replay_stored``), which is most of the cost, and written
as ``expand``'s record would be dumped (``arena.games.record_text``: the same bytes). A record
kept in its exported form (``arena.store.kept_records``, ``keep``) is streamed as stored, with no
engine at all.

The games go in chunks of consecutive ids; each chunk comes out as one block of UTF-8 lines.
With ``jobs`` > 1, forked processes are dealt the chunks in turn; each reads its chunks from the
database itself and writes its blocks straight to the output's file descriptor when the process
before it has written its own (a token passed round a ring of semaphores), so the blocks come
out in order without passing through the parent, which only lists the chunks' id ranges and
takes each chunk's counts (and rows to keep).
"""

from __future__ import annotations

import json
import math
import os
import signal
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
    first_damaged_id: int = 0  # the game ``first_damage`` names
    kept: int = 0  # records newly kept (``keep``)

    def add(self, other: ExportCounts) -> None:
        """Adds a chunk's counts; the first damage is the oldest game's, in whatever order the
        chunks come (they come in any order from several processes)."""
        self.written += other.written
        self.without_record += other.without_record
        self.damaged += other.damaged
        if other.first_damage and (
            not self.first_damage or other.first_damaged_id < self.first_damaged_id
        ):
            self.first_damage = other.first_damage
            self.first_damaged_id = other.first_damaged_id


class ExportProcessError(RuntimeError):
    """A process of ``arena export -j N`` ended, or was interrupted, before its last block."""


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


def _facts(game_id, run_id, finished, seats: list[tuple]) -> str:
    """``json.dumps(stored_facts(info), ensure_ascii=False)`` of a game ``Store.export_rows``
    gives (``seats``: (score, rank, forfeit) each), written out when every number is an int and
    the time a finite float (as stored): the same characters."""
    scores = [s[0] for s in seats]
    ranks = [s[1] for s in seats]
    numbers = (game_id, run_id, *scores, *ranks)
    if (
        type(finished) is not float
        or not math.isfinite(finished)
        or set(map(type, numbers)) != {int}
    ):
        info = {
            "id": game_id,
            "run_id": run_id,
            "finished": finished,
            "seats": [{"score": s[0], "rank": s[1], "forfeit": s[2]} for s in seats],
        }
        return json.dumps(stored_facts(info), ensure_ascii=False)
    forfeits = ", ".join([_BOOLS[bool(s[2])] for s in seats])
    return (
        f'{{"id": {game_id}, "run": {run_id}, "finished": {finished!r}, '
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
    for game_id, run_id, finished, blob, seats in store.export_rows(
        select.game, select.run, select.bot, ids
    ):
        if blob is None:
            counts.without_record += 1
            continue
        facts = _facts(game_id, run_id, finished, seats)
        crc, packed = kept.get(game_id, (None, None))
        if crc is not None and crc == checksum(blob):
            out.append(_line(zlib.decompress(packed).decode(), facts))
            continue
        try:
            state, header, times = replay_stored(blob, games, writer.games_made, codes=True)
        except RecordError as exc:
            counts.damaged += 1
            if not counts.first_damage:
                counts.first_damage = f"game {game_id}: {exc}"
                counts.first_damaged_id = game_id
            continue
        text = writer.text(state, header, times)
        out.append(_line(text, facts))
        if keep:
            new.append((game_id, checksum(blob), zlib.compress(text.encode(), _KEEP_LEVEL)))
    counts.written = len(out)
    out.append("")
    return _Block("\n".join(out).encode() if counts.written else b"", counts, new)


def export_blocks(
    store,
    games: dict[str, type[Game]],
    counts: ExportCounts,
    select: Selection = Selection(),
    keep: bool = False,
) -> Iterator[bytes]:
    """The JSON lines of the games ``select`` picks in ``store`` (a ``Store``), oldest first, as
    blocks of UTF-8 lines each ending in a newline, made in this process; ``counts`` is filled
    in. Records kept in the store are streamed as kept; with ``keep``, the others are kept there
    as they are expanded, a transaction a chunk."""
    writer = RecordText()
    for ids in store.game_id_ranges(select.game, select.run, select.bot, size=_CHUNK):
        block = _block(store, games, select, ids, keep, writer)
        _take(store, block.counts, block.new, counts)
        if block.text:
            yield block.text


def _take(store, chunk: ExportCounts, new: list, counts: ExportCounts) -> None:
    counts.add(chunk)
    if new:
        store.keep_records(new)
        counts.kept += len(new)


def write_export(
    store,
    games: dict[str, type[Game]],
    counts: ExportCounts,
    out,
    select: Selection = Selection(),
    jobs: int = 1,
    keep: bool = False,
) -> None:
    """Writes ``export_blocks``'s lines to ``out`` (a binary stream), with ``jobs`` > 1 made in
    that many forked processes."""
    ranges = list(store.game_id_ranges(select.game, select.run, select.bot, size=_CHUNK))
    if jobs > 1 and len(ranges) > 1:
        out.flush()
        _in_processes(store, ranges, games, select, min(jobs, len(ranges)), keep, out, counts)
    else:
        for block in export_blocks(store, games, counts, select, keep):
            out.write(block)


def _in_processes(store, ranges, games, select, jobs, keep, out, counts) -> None:
    """The chunks ``ranges`` dealt in turn to ``jobs`` forked processes, each of which writes
    its blocks itself to ``out``'s file descriptor, in order: a process writes when the one
    before has written (``turns``: a semaphore each, passed on in a ring), so no block goes
    through this process. Each reports its counts and rows to keep here. A stream with no file
    descriptor (a test's) gets the blocks through a pipe, copied here."""
    import multiprocessing
    from multiprocessing.connection import wait

    context = multiprocessing.get_context("fork")
    try:
        fd, copied = out.fileno(), None
    except (AttributeError, OSError, ValueError):
        copied, fd = os.pipe()
    turns = [context.Semaphore(0) for _ in range(jobs)]
    stop = context.RawValue("b", 0)
    reports = [context.Pipe(duplex=False) for _ in range(jobs)]
    dealt = [ranges[w::jobs] for w in range(jobs)]
    parent = os.getpid()
    workers = [
        context.Process(
            target=_work_in_turn,
            args=(w, dealt[w], store.path, games, select, keep, fd, turns, stop, send, parent),
            daemon=True,
        )
        for w, (_, send) in enumerate(reports)
    ]
    try:
        for worker in workers:
            worker.start()
        for _, send in reports:
            send.close()
        if copied is not None:  # (the workers hold the write end: it ends when they do)
            os.close(fd)
            fd = None
        turns[0].release()
        owed = {receiver: len(chunks) for (receiver, _), chunks in zip(reports, dealt)}
        error = _gather(store, owed, workers, copied, out, counts, stop, wait)
    finally:
        _stop_workers(workers, turns, stop)
        if copied is not None:
            os.close(copied)
            if fd is not None:
                os.close(fd)
    if error is not None:
        raise error


def _stop_workers(workers, turns, stop, grace: float = 2.0) -> None:
    """Has the workers still running (after an error or an interrupt here) stop: each finishes
    the block it is writing (no line cut), for ``grace`` seconds at most, and writes no other;
    then any left are terminated."""
    import time

    if any(worker.is_alive() for worker in workers):
        stop.value = 1
        for turn in turns:  # (whoever waits for a turn sees the stop)
            turn.release()
        deadline = time.monotonic() + grace
        for worker in workers:
            worker.join(max(0.0, deadline - time.monotonic()))
    for worker in workers:
        if worker.is_alive() and worker.exitcode is None:
            worker.terminate()
        worker.join()


def _gather(store, owed, workers, copied, out, counts, stop, wait) -> BaseException | None:
    """Takes the workers' reports (and, with ``copied``, their lines) until each has ended;
    the first error any of them met. ``owed``: the reports each receiver is to bring, one a
    chunk; a process that ends owing some, with no error and none stopping (``stop``), broke
    the ring of turns: an error at once."""
    error = None
    running = dict(zip(owed, workers, strict=True))
    exits = {worker.sentinel: receiver for receiver, worker in running.items()}
    watched = [*owed, *exits, *([copied] if copied is not None else [])]
    while running or copied in watched:
        for ready in wait(watched):
            if ready is copied:
                data = os.read(copied, 1 << 20)
                if data:
                    out.write(data)
                else:
                    watched.remove(copied)
                continue
            ended = ready in exits  # (a process ended: its last reports may be in the pipe)
            if ended:
                watched.remove(ready)
            receiver = exits.get(ready, ready)
            first = not ended
            try:
                while receiver in running and (first or receiver.poll()):
                    first = False
                    report = receiver.recv()
                    if report[0] == "end":
                        if report[1] is None and owed[receiver] and not stop.value:
                            raise ExportProcessError("an arena export process stopped early")
                        error = error or report[1]
                        del running[receiver]
                        watched.remove(receiver)
                    else:
                        owed[receiver] -= 1
                        _take(store, *report, counts)
            except EOFError:
                ended = True
            if ended and receiver in running:
                raise ExportProcessError(
                    f"an arena export process ended unexpectedly "
                    f"(exit code {running[receiver].exitcode})"
                )
    if error is None and any(owed.values()):  # (cannot be: stop is set with an error)
        error = ExportProcessError("arena export processes stopped early")
    return error


class _Turn:
    """A process's place in the ring of turns (``_in_processes``)."""

    def __init__(self, turns: list, index: int, stop) -> None:
        self.mine, self.after = turns[index], turns[(index + 1) % len(turns)]
        self.stop = stop
        self.held = False

    def take(self) -> bool:
        """Waits for the turn; whether to write (no process has stopped)."""
        self.mine.acquire()
        self.held = True
        return not self.stop.value

    def pass_on(self) -> None:
        self.held = False
        self.after.release()

    def stop_all(self, wait: bool) -> None:
        """Stops the processes after this one: with ``wait``, once the blocks before this
        one's are written. ``stop`` is set before the turn is passed on, so whoever takes a
        turn out of order sees it and writes nothing."""
        if wait and not self.held:
            self.mine.acquire()
            self.held = True
        self.stop.value = 1
        self.pass_on()


def _work_in_turn(index, ranges, path, games, select, keep, fd, turns, stop, report, parent):
    """A forked process of ``_in_processes``: the blocks of ``ranges``, each written to ``fd``
    in its turn, then reported (counts, rows to keep); then ``("end", error)``. Whatever stops
    it early (an error, an interrupt, another's stop), it passes the turn on, so that no
    process waits for it, and an interrupt is an error, reported, with no traceback."""
    signal.signal(signal.SIGINT, _interrupted)
    turn = _Turn(turns, index, stop)
    error, done = None, False
    try:
        _end_with(parent)
        try:
            done = _write_in_turn(path, ranges, games, select, keep, fd, turn, report)
        except Exception as exc:
            error = exc
        if not done:
            turn.stop_all(wait=True)
    except BaseException as exc:  # (an interrupt, mostly: SIGINT)
        stopped = "interrupted" if isinstance(exc, KeyboardInterrupt) else f"stopped ({exc!r})"
        error = ExportProcessError(f"an arena export process was {stopped}")
        if not done:
            turn.stop_all(wait=False)
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    _send_end(report, error)


def _write_in_turn(path, ranges, games, select, keep, fd, turn: _Turn, report) -> bool:
    """Whether every block of ``ranges`` was written (not stopped by another process). An
    interrupt waits till the block in hand is written, its turn passed on and its report
    sent: no line is cut, no written block goes unreported."""
    from arena.store.database import Store

    store = Store(path, create=False)
    writer = RecordText()
    for ids in ranges:
        block = _block(store, games, select, ids, keep, writer)
        if not turn.take():
            return False
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            _write_all(fd, block.text)
            turn.pass_on()
            report.send((block.counts, block.new))
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    return True


def _interrupted(signum, frame) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # (once: the clean-up is not interrupted)
    raise KeyboardInterrupt


def _end_with(parent: int) -> None:
    """Has this process killed when ``parent`` ends (Linux's PR_SET_PDEATHSIG), rather than
    left blocked on a report no one will read."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1: PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # (not Linux)
        return
    if os.getppid() != parent:  # (it ended before the call)
        os._exit(1)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _send_end(report, error: BaseException | None) -> None:
    try:
        try:
            report.send(("end", error))
        except Exception:  # (an error that does not pickle)
            report.send(("end", RuntimeError(f"arena export: {error!r}")))
    except OSError:  # (the parent is gone)
        pass
