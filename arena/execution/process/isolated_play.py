"""``--isolation process``: every bot in its own process, decisions sent in batches.

A game worker steps many games at once (a chunk of the schedule), like a vectorised RL
environment: each round it advances every game to its next bot decision, groups the decisions by
bot, sends each bot process its batch in one message, and applies the answers as they come back.
A pipe round trip costs about 60 µs here; batching pays it once per round instead of once per
decision. Every single decision is still timed and limited, and every answer is an index into
the legal actions, checked by the referee (``referee.Table``).

Time is this worker's to measure, never the bot process's: the process counts each command it
begins in a shared page, the worker looks at that count whenever it waits for answers (at least
every ``batch_allowance / 2``), and a command it sees running longer than the move time plus
``referee.watchdog.batch_allowance`` (max(10 ms, 10 % of the move time)) is a ``timeout``, whatever
the process answers and says it took. (The process still interrupts its bot at the move time by
its own clock; a bot that stops that clock only makes its answers come late.) What a process
can do with its count is shift time between its own decisions of one batch, never take more in
all, since the count cannot pass the commands sent nor go back.

With time banks (``--time-bank``) a decision's limit is the move time plus its seat's bank, here
(``Table.banks``) and in the bot process (each ``act`` command carries the bank left, as a last
item). What a decision took past the move time is drawn from the bank: the time the process
gives, unless this worker saw it run longer (less the batch allowance), so that a process gains
nothing by understating its time beyond the allowance it has anyway.

A bot process that dies, breaks its memory or CPU-time limit, stops answering or forges what it
sends is killed. Nothing is played again: every game that had a bot object in that process
forfeits that seat at the decision the game had reached (the command the process was on gets the
fault's kind: ``crash``, ``memory``, ``cpu`` or ``timeout``; if it was on none, the oldest it owed;
an ``end`` lost is a fault that forfeits nothing), and the game goes on with the referee's
fallback for that seat, its state being here. A bot never sees a deal again. After
``MAX_DEATHS`` failures of its processes in a worker, a bot is excluded from the rest of the run:
its remaining seats forfeit at their start, said once in a line on stderr.

A process that ended is described by how it ended (its exit code or signal), whatever told the
worker first: the end of its reply pipe, a command pipe that no longer takes anything, or the
process found gone. Only bytes that are not answers, more answers than it owes, or a progress
counter it cannot have reached are blamed as forgery; what it wrote before its pipe ended is read
first, so garbage followed by an exit is still forgery.
"""

from __future__ import annotations

import gc
import multiprocessing.util
import select
import sys
import time
from collections import deque
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field

from arena.bot import seat_seed
from arena.execution.context import PlayContext, ScheduledGame
from arena.execution.process.bot_process import ENDING_SECONDS, BotProcess, IsolationError
from arena.execution.process.program_channel import is_program, open_bot
from arena.execution.process.sandbox import no_memory_access
from arena.execution.process.wire import (
    FAULT,
    NOT_CREATED,
    OK,
    BatchWriter,
    CommandEncoder,
    differ_for,
    fields_getter,
    known_objects,
)
from arena.execution.workers import TaskFeed
from arena.referee.faults import (
    FORGERY,
    LOST,
    UNDESCRIBED,
    cannot_start_alone,
    describe,
    excluded,
    late_answer,
    unresponsive,
)
from arena.referee.outcome import GameOutcome, SeatForfeit
from arena.referee.table import Table
from arena.referee.watchdog import batch_allowance, grace_for

IN_PLAY = 96  # games a worker plays at once (192 measured no faster: docs/speed.md)
MAX_DEATHS = 3  # failures of a bot's processes before the bot is excluded from the run


@contextmanager
def _fewer_collections():
    """Most of what a round allocates is freed by the next one: collect less often meanwhile.
    (What the games keep, such as their histories, still grows by a few objects a decision:
    collecting at 100,000 rather than 10,000 saves the worker about 1 % of its instructions.)"""
    old = gc.get_threshold()
    gc.set_threshold(100_000, 10, 10)
    try:
        yield
    finally:
        gc.set_threshold(*old)


@dataclass(eq=False)
class _Chunk:
    """The games of one task from the pool, and how many of them are not finished."""

    runs: list[_Run]
    left: int = 0


@dataclass(eq=False)
class _Run:
    """One scheduled game being played (perhaps again, after a bot process died)."""

    item: ScheduledGame
    forfeits: dict[int, SeatForfeit]
    chunk: _Chunk
    attempt: int = 0
    table: Table | None = None
    created: set = field(default_factory=set)
    # seat -> [class, its fields_getter, its differ_for, field values] of its last observation
    views: dict = field(default_factory=dict)
    phase: str = "play"  # play, end, done
    waiting: int = 0
    outcome: GameOutcome | None = None

    def __post_init__(self):
        # The id of seat s's bot object is first_key + s: one bot object per seat of a game (a
        # replayed game's old ones are dropped first).
        self.first_key = self.item.index * 4096


def _act(run: _Run, seat: int, key: int, observation) -> tuple:
    """The command of the seat's decision: its observation, or its changes since the last."""
    cls = type(observation)
    view = run.views.get(seat)
    if view is not None and view[0] is cls:
        values = view[1](observation)
        found = view[2](values, view[3])
        view[3] = values  # (updated in place: one object fewer per decision)
        return ("act_changes", key, found)
    getter = fields_getter(cls)
    if getter is not None:
        run.views[seat] = [cls, getter, differ_for(cls), getter(observation)]
    return ("act", key, observation)


class IsolatedPlayer:
    """Plays chunks of games in one worker with each bot in its own process."""

    def __init__(self, context: PlayContext, excluded: dict[str, str] | None = None):
        self.context = context
        self.move_time = move_time = context.move_time
        self.limit = move_time + grace_for(move_time)
        self.allowance = batch_allowance(move_time)
        self.late_after = move_time + self.allowance
        self.poll = min(0.05, batch_allowance(move_time) / 2)  # how often the clock is looked at
        self.deaths: dict[str, int] = {}  # failures of each bot's processes (``_count_death``)
        self.processes: dict[str, BotProcess] = {}
        # Bots that cannot start in a process of their own, or were excluded (in this worker or
        # in an earlier schedule of the run: ``excluded``).
        self.broken: dict[str, str] = dict(excluded or {})
        self.known = known_objects(context.games.values())
        # Every process learns the same known objects first: the batches of every bot are pickled
        # with the memo of one encoder (``_new_batch``).
        self.encoder = CommandEncoder(self.known)
        self.writers: dict[str, BatchWriter] = {}
        # A program's channel, in this worker, takes the commands as they are.
        self.programs = {name for name in context.registry.bots if is_program(context, name)}
        no_memory_access()  # this worker holds every seat's cards: no bot process may read them
        # When the worker ends, its bot processes end, and with them whatever the bots started
        # (the bot processes themselves would die with the worker anyway, their children not).
        multiprocessing.util.Finalize(self, self.close, exitpriority=10)

    def close(self) -> None:
        for process in self.processes.values():
            process.kill()
        self.processes.clear()

    def _process(self, name: str) -> BotProcess:
        if name in self.broken:
            raise IsolationError(self.broken[name])
        process = self.processes.get(name)
        if process is not None and process.ended():
            # Died while we were busy elsewhere: blame what it was on, if anything.
            self._ended(name, process)
            process = None
        if process is None:
            self._launch([name])
            if name in self.broken:
                raise IsolationError(self.broken[name])
            process = self.processes[name]
        return process

    def _launch(self, names) -> None:
        """Start processes for ``names`` all at once (each takes a while to import its bot)."""
        started = []
        for name in names:
            try:
                started.append(open_bot(self.context, name, self.known))
            except IsolationError as exc:
                self.broken[name] = str(exc)
            except OSError as exc:  # no process to be had: a file it may not run, no memory
                self.broken[name] = cannot_start_alone(name, describe(exc))
        for process in started:
            try:
                process.wait_ready()
                self.processes[process.name] = process
            except IsolationError as exc:
                self.broken[process.name] = str(exc)

    def _start(self, run: _Run) -> None:
        run.attempt += 1
        item = run.item
        context = self.context
        for seat, name in enumerate(item.seats):
            if name in self.broken and seat not in run.forfeits:
                run.forfeits[seat] = SeatForfeit(0, "crash", self.broken[name])
        run.table = table = Table(
            context.games[item.game],
            item.seats,
            item.seed,
            context.move_time,
            context.max_faults,
            context.records,
            run.forfeits,
            context.time_bank,
        )
        for seat in run.forfeits:
            table.forfeits_at_start(seat)
        run.created = set()
        run.views = {}
        run.phase = "play"
        run.waiting = 0
        self.ready.append(run)

    def play(self, feed: TaskFeed) -> None:
        """Play the tasks of ``feed`` until it closes, each task's outcomes given back in order.

        At most ``IN_PLAY`` games are played at once, a new one begun as soon as one ends, from
        the next task when a task's games have all begun: game lengths vary, and a task's last
        few games would otherwise be played alone, one decision per batch, with the bot
        processes mostly idle. (More games at once make larger batches, but each decision then
        finds less of its game in the processor's caches.)
        """
        self.chunks: deque[_Chunk] = deque()  # the tasks taken, oldest first
        self.waiting_start: deque[_Run] = deque()  # their games not begun yet
        self.ready: list[_Run] = []  # games owed no answer: their next decisions can go out
        # bot name -> its batch (``_new_batch``) made for a process still busy
        self.unsent: dict[str, tuple[list, list, Callable]] = {}
        self.playing = 0  # games begun and not finished
        # As soon as some answers are in, their games move on and their next decisions go out,
        # so that the bot processes and the referee work at the same time.
        with _fewer_collections():
            while True:
                if not self.waiting_start and self.playing < IN_PLAY:
                    task = feed.take(wait=not self.playing)
                    if task is not None:
                        self._take(task.items, task.forfeits)
                    elif not self.playing:
                        return
                while self.waiting_start and self.playing < IN_PLAY:
                    self.playing += 1
                    self._start(self.waiting_start.popleft())
                if self.ready or self.unsent:
                    self._send()
                if self.playing:
                    self._collect()
                while self.chunks and not self.chunks[0].left:
                    feed.give([run.outcome for run in self.chunks.popleft().runs])

    def _take(self, items: list[ScheduledGame], forfeits: dict[int, dict]) -> None:
        chunk = _Chunk([])
        chunk.runs = [_Run(item, dict(forfeits.get(item.index) or {}), chunk) for item in items]
        chunk.left = len(chunk.runs)
        self.chunks.append(chunk)
        self.waiting_start.extend(chunk.runs)
        needed = {name for item in items for name in item.seats}
        self._launch(sorted(needed - set(self.processes) - set(self.broken)))

    def _new_batch(self, name: str) -> tuple[list, list, Callable]:
        """An empty batch for the bot ``name``: (what each command is for, the commands, the
        function that adds one). A Python bot's commands are pickled as they are added, into its
        ``BatchWriter``'s pieces; a program's channel takes the commands as they are."""
        if name in self.programs:
            commands: list = []
            return [], commands, commands.append
        writer = self.writers.get(name)
        if writer is None:
            writer = self.writers[name] = BatchWriter(self.encoder)
        return [], writer.pieces, writer.dump

    def _add(self, name: str, batch: tuple, command: tuple) -> None:
        """Add ``command`` to the bot's batch (pickled at once: ``BatchWriter``)."""
        try:
            batch[2](command)
        except (ValueError, RecursionError):  # a cycle: only the memo can write it
            self.writers[name].dump_cyclic(command)

    def _next_commands(self, run: _Run, batches: dict) -> None:
        """Add the game's next commands to ``batches``: bot name -> its batch (``_new_batch``)."""
        table = run.table
        names = run.item.seats
        if run.phase == "play":
            seat = next(table.turns, None)  # (``Table.advance``, without its call)
            if seat is not None:
                name = names[seat]
                batch = batches.get(name)
                if batch is None:
                    batch = batches[name] = self._new_batch(name)
                key = run.first_key + seat
                if seat not in run.created:
                    run.created.add(seat)
                    batch[0].append((run, "new", seat, run.attempt))
                    new = ("new", key, seat_seed(run.item.seed, seat), table.info(seat))
                    self._add(name, batch, new)
                    run.waiting += 1
                batch[0].append((run, "act", seat, run.attempt))
                command = _act(run, seat, key, table.state.observation(seat))
                if table.banks is not None:  # the bank left: its limit in the bot's process
                    command += (table.banks.left(seat),)
                self._add(name, batch, command)
                run.waiting += 1
                return
            run.phase = "end"
            result = table.result()
            for seat in sorted(run.created):
                if not table.ends(seat):
                    self._drop(run, seat)
                    continue
                name = names[seat]
                batch = batches.get(name)
                if batch is None:
                    batch = batches[name] = self._new_batch(name)
                batch[0].append((run, "end", seat, run.attempt))
                self._add(name, batch, ("end", run.first_key + seat, result))
                run.waiting += 1
        if run.phase == "end" and not run.waiting:
            run.phase = "done"
            run.outcome = table.outcome()
            run.chunk.left -= 1
            self.playing -= 1

    def _send(self) -> None:
        """Move every game owed no answer to its next decisions; send each idle process what
        it is owed. A process still on its last batch gets its next commands when it has
        answered that one, all at once: the batches are larger (fewer messages, system calls
        and wake-ups per decision), and no command waits longer than the batch before it."""
        batches = self.unsent
        ready, self.ready = self.ready, []
        for run in ready:
            if run.phase != "done" and not run.waiting:  # (a replayed game may be listed twice)
                self._next_commands(run, batches)
        for name in list(batches):
            process = self.processes.get(name)
            if process is not None and process.expected:
                continue  # busy: its commands wait for its answers (or its end: ``_failed``)
            expected, commands, _ = batches.pop(name)
            count = len(commands)
            if name in self.programs:
                message = commands
            else:
                message = self.writers[name].message()  # (the writer is empty again)
            try:
                process = self._process(name)
            except IsolationError as exc:
                # A bot that cannot start alone, or was excluded: its seats forfeit where they are.
                for run, op, seat, attempt in expected:
                    if run.attempt == attempt:
                        self._lose(run, op, seat, "crash", str(exc), blame=True)
                continue
            # (Read after _process, which may have started a process: that took a while, and
            # must not count as time this process's first command took.)
            now = time.monotonic()
            if not process.expected:
                process.last_progress = now
            # The attempt is the one the command was made for: a game may have been restarted
            # since, by a failure found while sending to another process.
            process.expected.extend(expected)
            process.sent += count
            if not process.send_message(message, now + self.limit):
                self._stopped(name, process)

    def _collect(self) -> None:
        """Settle the answers that are in, waiting for some; handle processes that fail."""
        owing = {p.reply_fd: (name, p) for name, p in self.processes.items() if p.expected}
        if not owing:
            if not self.ready and not self.unsent:
                raise RuntimeError("internal error: a game waits for an answer nobody owes")
            return
        ready, _, _ = select.select(list(owing), [], [], self.poll)
        for fd in ready:
            name, process = owing[fd]
            answers = process.receive()
            if answers is None:
                # The end of its pipe (the process ended: how, its exit status tells, even if it
                # cannot be reaped yet), or bytes that are not answers, read before any end.
                self._failed(name, process, "ended" if process.eof else "garbled")
                continue
            self._settle(process, *answers)
            if process.expected and process.started() <= process.answered:
                # Answered all it began: the time of the next command it owes runs from now.
                process.last_progress = max(process.last_progress, time.monotonic())
        # Each command may take up to the limit: watch the one each process is on. Whether it
        # answered in time is decided here too, by this clock (see ``_watch``).
        now = time.monotonic()
        for name, process in list(self.processes.items()):
            if not process.expected:
                continue
            started = process.started()
            if started == process.last_seen:
                running = now - process.last_progress
                if running > self.late_after:
                    # On a command, or yet to begin the next one it owes (stalled between them):
                    # that command is late, unless its seat's bank covers it.
                    command = max(started, process.answered + 1)
                    if running > self.limit + self._bank_left(process, command - process.answered):
                        self._stopped(name, process)
                    else:
                        process.late[command] = running
            elif process.last_seen < started <= process.sent:
                process.last_seen = started
                process.last_progress = now
            else:  # the bot wrote the counter itself, perhaps to look busy forever
                self._failed(name, process, "garbled")

    def _settle(self, process: BotProcess, codes: list, seconds: list, faults: dict) -> None:
        ready = self.ready
        move_time = self.move_time
        next_expected = process.expected.popleft
        late = process.late
        if late:  # seen running past the move time by this worker's clock, whatever it says
            first = process.answered - len(codes) + 1
            for position in range(len(codes)):
                elapsed = late.pop(first + position, None)
                if elapsed is None or codes[position] < OK:
                    continue
                bank = self._bank_left(process, position + 1)
                if elapsed > self.late_after + bank:
                    codes[position] = FAULT
                    faults[position] = ("timeout", late_answer(elapsed, self.move_time + bank))
                    seconds[position] = elapsed
                else:  # within its bank: drawn by this clock (less the allowance) if it says less
                    seconds[position] = max(seconds[position], elapsed - self.allowance)
        for position, code in enumerate(codes):
            run, op, seat, attempt = next_expected()
            if run.attempt != attempt:
                continue  # an answer for a command that no longer counts (a dropped object)
            table = run.table
            if op == "act":
                if table.forfeited[seat]:  # its creation failed in this same batch
                    table.fallback_move()
                elif (
                    0 <= code < len(table.legal)
                    and seconds[position] <= move_time
                    and table.banks is None
                ):  # a legal answer in time, without banks (``Table.resolve``'s first case)
                    table.apply(code, seconds[position])
                elif code != FAULT:
                    table.resolve(code, seconds[position])
                else:
                    kind, message = faults.get(position, UNDESCRIBED)
                    if kind == "gone":
                        table.fault("exception", LOST)
                    else:
                        table.fault(kind, message, seconds[position])
            elif code == FAULT or code == NOT_CREATED:
                kind, message = faults.get(position, UNDESCRIBED)
                if op == "new":
                    table.fault_at_start(seat, kind, message, forfeit=code == NOT_CREATED)
                elif op == "end":
                    table.fault_at_end(seat, kind, message)
            run.waiting -= 1
            if not run.waiting:
                ready.append(run)

    def _bank_left(self, process: BotProcess, owed: int) -> float:
        """What is left of the bank of the seat whose decision is the ``owed``-th command the
        process owes an answer to (from 1); 0.0 if that is no decision, or without banks."""
        if self.context.time_bank is None or not 0 < owed <= len(process.expected):
            return 0.0
        run, op, seat, attempt = process.expected[owed - 1]
        banks = run.table.banks if run.attempt == attempt and op == "act" else None
        return 0.0 if banks is None else banks.left(seat)

    def _stopped(self, name: str, process: BotProcess) -> None:
        """The process took no command or gave no answer in time: it hangs, or it has ended."""
        if process.epipe or process.ended():
            self._ended(name, process)
        else:
            self._failed(name, process, "timeout")

    def _ended(self, name: str, process: BotProcess) -> None:
        """The process is gone, found otherwise than by reading the end of its reply pipe: read
        the pipe to its end first (it comes at once, unless something the bot started holds it),
        settling the answers in it, then blame the bot by how it ended, or for what it forged."""
        why = "ended"
        ending = time.monotonic() + ENDING_SECONDS
        while not process.eof:
            wait = ending - time.monotonic()
            if wait < 0 or not select.select([process.reply_fd], [], [], wait)[0]:
                break
            answers = process.receive()
            if answers is None:
                why = "ended" if process.eof else "garbled"
                break
            self._settle(process, *answers)
        self._failed(name, process, why)

    def _failed(self, name: str, process: BotProcess, why: str) -> None:
        """A bot process ended, hung or forged what it sent (``why``: ``ended``, ``timeout`` or
        ``garbled``): every game it had a bot object in forfeits that seat where the game is,
        and goes on with the referee's fallback for it. Nothing is played again."""
        pending = list(process.expected)
        # Answers come a batch at a time: those begun before the last one went through, but
        # their answers are lost with the process.
        begun = min(max(process.started(), process.answered), process.sent) - process.answered
        if why == "timeout":
            kind = "timeout"
            message = unresponsive(self.move_time)
        elif why == "garbled":
            kind, message = "crash", FORGERY
            begun = max(begun, 1)  # its own word is worthless: blame the oldest command it owes
        else:
            kind, message = process.death()
        process.kill()
        del self.processes[name]
        # The command it was on; if it was on none (it stalled or died between commands), the
        # oldest it owes, which it did not even begin.
        culprit = pending[begun - 1] if 0 < begun <= len(pending) else None
        if culprit is None and pending:
            culprit = pending[0]
        # Then the commands made for it and not sent yet: as if it had not begun them.
        unsent = self.unsent.pop(name, None)
        if unsent is not None:
            pending += unsent[0]
            unsent[1].clear()
        for entry in pending:
            run, op, seat, attempt = entry
            if run.attempt == attempt:
                self._lose(run, op, seat, kind, message, blame=entry is culprit)
        for chunk in self.chunks:
            for run in chunk.runs:
                if run.phase == "play":
                    for seat in run.created:
                        if run.item.seats[seat] == name:
                            run.table.forfeit_now(seat, kind, message)
        self._count_death(name)

    def _lose(self, run: _Run, op: str, seat: int, kind: str, message: str, blame: bool) -> None:
        """A command that will never be answered: its seat forfeits where its game is (a
        decision pending is played by the fallback); a lost ``end`` is a fault that forfeits
        nothing; a lost ``new`` forfeits at the start only if it was the one the process was on
        (``blame``)."""
        table = run.table
        if op == "end":
            table.fault_at_end(seat, kind, message)
        elif op == "act":
            table.forfeit_now(seat, kind, message)
            table.fallback_move()
        elif blame:  # making the bot, or its start(), ended it: a forfeit at the start
            table.forfeit_now(seat, kind, message, 0)
        # (A ``new`` that went through: the seat's next command, or the bot's own games still in
        # play, forfeit it at its decision.)
        run.waiting -= 1
        if not run.waiting:
            self.ready.append(run)

    def _count_death(self, name: str) -> None:
        """A bot whose processes keep failing is excluded from the rest of the run: its seats
        forfeit at their start (or where their games are), said once in a line."""
        deaths = self.deaths[name] = self.deaths.get(name, 0) + 1
        if deaths >= MAX_DEATHS and name not in self.broken:
            self.broken[name] = excluded(name, deaths)
            print(f"arena: {self.broken[name]}", file=sys.stderr, flush=True)

    def _drop(self, run: _Run, seat: int) -> None:
        """Forget a seat's bot object in its process, if that still runs; the answer is ignored."""
        process = self.processes.get(run.item.seats[seat])
        if process is not None:
            now = time.monotonic()
            if not process.expected:
                process.last_progress = now
            process.expected.append((run, "drop", seat, -1))
            process.sent += 1
            process.send([("drop", run.first_key + seat)], now + self.limit)

