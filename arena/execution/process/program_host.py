"""The host of a program bot's seats in a game worker itself (``--isolation process``).

The worker hands it the same batches of commands it sends a Python bot's process (through
``execution.process.program_channel``) and gets the same answers back, as ``bot_host.Host`` gives
them, each bot object being a ``ProgramPlayer`` that speaks JSON lines with the program
(``program_bot``). Nothing runs between the worker and the program: the worker writes the requests
into the program's input itself. The program runs under the limits of a bot process (memory, CPU
time, bubblewrap, the signal filter), and is killed when it breaches the protocol or its time.
"""

from __future__ import annotations

import time
from array import array
from typing import NamedTuple

from arena.execution.process.bot_host import Host
from arena.execution.process.program_bot import (
    IllegalAnswer,
    ProgramLimits,
    ProgramPlayer,
    ProgramPool,
    ProgramProcess,
)
from arena.execution.process.wire import (
    FAULT,
    MAX_DESCRIPTION,
    apply_changes,
    builder,
    fields_getter,
)
from arena.plugins.manifests import Manifest
from arena.protocol import messages
from arena.protocol.requests import Legal, answer_index
from arena.referee.faults import ProgramFault, late, past_bank
from arena.referee.watchdog import get_watchdog

MAX_PENDING = 128  # requests in the program's input at once (its answers then fit in a pipe)


class _Programs:
    """What ``Host`` calls a bot spec: ``create`` makes a seat's player."""

    def __init__(self, pool: ProgramPool):
        self.create = pool.factory


class _Pending(NamedTuple):
    """A request sent to the program whose answer is not read yet."""

    position: int  # of its answer in the batch's answers
    number: int  # of its command over the host's life (the progress page)
    player: ProgramPlayer
    observation: object
    legal: Legal | list  # its legal actions (``answer_index``)
    limit: float  # seconds it may take: the move time and what is left of its seat's bank
    request: int  # its number (``act``'s ``request``)
    process: ProgramProcess  # the program it was queued for


class ProgramHost(Host):
    """``Host`` for a program's seats, with the decisions of a batch pipelined: every request
    goes to the program before the first answer is read, so that a batch costs the program one
    wake-up, not one each. Each answer is timed from the later of its request and the answer
    before it. After a failure (the program is killed), the rest are asked one by one, as
    ``ProgramPlayer.act`` does, each restarting the program."""

    def __init__(self, manifest: Manifest, limits: ProgramLimits):
        # (not Host's: there is no bot to load, no pipe and no progress page of a process)
        self.move_time = limits.move_time
        self.bots: dict = {}
        self.acts: dict = {}
        self.views: dict = {}
        self.codes = array("i")
        self.seconds = array("d")
        self.faults: list = []
        self.started = 0
        self.progress = [0]  # (the command begun: the worker times the channel, not this)
        self.watchdog = get_watchdog(self.move_time)
        self.pool = ProgramPool(manifest, limits)
        self.pool.deferring = True  # (a batch's lines are written at once: ``collect``)
        self.spec = _Programs(self.pool)
        self.owed: tuple[str, str] | None = None  # a fault of the program's next decision

    def answers(self) -> tuple[list, list, dict]:
        """The answers of the commands run since the last call, as the worker reads a bot
        process's: (codes, seconds, {position: (kind, message)})."""
        found = (list(self.codes), list(self.seconds), {p: (k, m) for p, k, m in self.faults})
        self.codes = array("i")
        self.seconds = array("d")
        self.faults = []
        return found

    def run(self, batch: list) -> None:
        pending: list[_Pending] = []
        for command in batch:
            op = command[0]
            if op != "act" and op != "act_changes":
                # (a game's start and end are queued after the requests pending: no answer)
                if op == "new":  # the program started (not awaited: its start waits for it)
                    self.spec.create = self.pool.started_factory()
                super().run([command])
                continue
            self.started += 1
            key = command[1]
            observation = self.observation(op, key, command)  # (kept: later ones are changes)
            player = self.bots.get(key)
            if observation is None or player is None:
                self.reply("gone", "the bot object no longer exists", 0.0)
                continue
            if self.owed is not None:  # (it failed between decisions: blamed on the next one)
                self.progress[0] = self.started
                self.reply(*self.owed, 0.0)
                self.owed = None
                continue
            # (the seat's bank left, from the worker's clock, when the run has banks)
            player._arena_bank = command[3] if len(command) >= 4 else None
            limit = self.move_time + (player._arena_bank or 0.0)
            process = self.pool.current
            if process is None or process is not player.told or not process.alive:
                self.collect(pending)
                pending = []
                self.progress[0] = self.started
                self.reply(*self.act(player, observation, limit))
                continue
            if not pending and process.surplus():  # (written after the last batch was read)
                self.progress[0] = self.started
                self.reply("crash", "it wrote a message nobody asked for", 0.0)
                self.restart()
                continue
            request = self.pool.next_request()
            line, legal = player.writer.line(
                player.id, observation, player.time(), request, self.pool.fields
            )
            process.queued += line
            entry = _Pending(
                len(self.codes), self.started, player, observation, legal, limit, request, process
            )
            pending.append(entry)
            self.codes.append(FAULT)
            self.seconds.append(0.0)
            if len(pending) >= MAX_PENDING:
                self.collect(pending)
                pending = []
        self.collect(pending)
        self.write_queued()

    def write_queued(self) -> None:
        """Write what is queued for the program (the ends of games, the starts of new ones)
        after the last request: a program that does not take it (it ended, or does not read) is
        started again, and its next decision is its fault."""
        process = self.pool.current
        if process is not None and process.alive and process.queued:
            try:
                process.write(b"")
            except ProgramFault as exc:
                self.owed = (exc.kind, f"between decisions: {exc}")
                self.restart()

    def observation(self, op: str, key: int, command: tuple):
        """The observation of an ``act`` or ``act_changes`` command (None: the object is gone)."""
        if op == "act":
            observation = command[2]
            getter = fields_getter(type(observation))
            if getter is not None:
                self.views[key] = (builder(type(observation)), list(getter(observation)))
            return observation
        view = self.views.get(key)
        if view is None:
            return None
        build, values = view
        apply_changes(values, command[2])
        return build(values)

    def collect(self, pending: list[_Pending]) -> None:
        """Read the answers to the requests sent, in order (see the class's text)."""
        if not pending:
            return
        failed = False
        last = time.perf_counter()
        process = pending[0].process
        if process is not self.pool.current or not process.alive:
            failed = True  # (replaced since: the requests went with it, and are asked again)
        else:
            try:
                process.write(b"")
            except ProgramFault as exc:
                failed = True
                first = pending[0]
                self.settle(first.position, exc.kind, str(exc), time.perf_counter() - last)
                self.restart()
                pending = pending[1:]
        for entry in pending:
            self.progress[0] = entry.number
            if failed:  # the program was killed: asked again, one by one
                kind, value, seconds = self.act(entry.player, entry.observation, entry.limit)
                self.settle(entry.position, kind, value, seconds)
                continue
            began = last
            try:
                answer = self.pool.current.receive(
                    max(0.0, began + entry.limit + 0.05 - time.perf_counter()), entry.limit
                )
            except ProgramFault as exc:
                failed = True
                self.settle(entry.position, exc.kind, str(exc), time.perf_counter() - began)
                self.restart()
                continue
            last = time.perf_counter()
            self.settle(entry.position, *self.judge(entry, answer, last - began))
            if self.pool.current is None:
                failed = True
                self.restart()
        current = self.pool.current
        if pending and not failed and current is not None and current.buffer.strip():
            # more than it was asked (what comes later is read as the next answer: a program
            # must write exactly one line per request)
            entry = pending[-1]
            self.settle(entry.position, "crash", "it wrote a message nobody asked for", 0.0)
            self.restart()

    def restart(self) -> None:
        """Start the program again at once, after a decision that failed (a fault already),
        without waiting for its hello here: its next use waits for it, as ``ProgramPlayer._ask``
        does, while the program has been starting since now."""
        try:
            self.pool.spawn()
        except ProgramFault:
            pass  # (the next decision says why)

    def judge(self, entry: _Pending, answer: dict, seconds: float) -> tuple[str, object, float]:
        try:
            messages.answer_for(answer, entry.player.id, entry.request)
        except messages.ProtocolError as exc:
            self.pool.close()
            return "crash", f"it wrote {exc}", seconds
        if answer.get("type") == "error":
            return (
                "exception",
                f"it answered an error: {str(answer.get('message', ''))[:200]}",
                seconds,
            )
        try:
            index = answer_index(answer, entry.legal)
        except messages.ProtocolError as exc:
            self.pool.close()
            return "crash", f"it wrote {exc}", seconds
        except ValueError:
            return (
                "illegal",
                f"{IllegalAnswer(messages.named(answer))!r} is not a legal action",
                seconds,
            )
        if seconds > entry.limit:
            if entry.limit > self.move_time:  # (its bank too)
                left = entry.limit - self.move_time
                return "timeout", past_bank(seconds, self.move_time, left), seconds
            return "timeout", late(seconds, self.move_time), seconds
        return "ok", index, seconds

    def settle(self, position: int, kind: str, value, seconds: float) -> None:
        self.seconds[position] = seconds
        if kind == "ok":
            self.codes[position] = value
        else:
            self.codes[position] = FAULT
            self.faults.append((position, kind, str(value)[:MAX_DESCRIPTION]))
            self.watchdog.restore()
