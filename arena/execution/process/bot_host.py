"""A bot's own process (``--isolation process``): one bot, its objects, and nothing else.

Started by a game worker as a fresh interpreter (``python -m arena.execution.process.bot_host``),
it imports only the bot's own file (or entry point), limits its own memory, and serves batches of
commands:

- ``("new", id, seed, info)``: create a bot object for one seat of one game and call ``start``;
- ``("act", id, observation)``: one decision; ``("act_changes", id, changes)``: one decision, its
  observation given as changes to the last one of that id (``execution.process.wire.changes``);
  with time banks either has a last item, the seconds left in its seat's bank (``--time-bank``);
- ``("end", id, result)``: call ``end`` and forget the object; ``("drop", id)``: just forget it.

Every command is answered with a code and the seconds it took: the index of the chosen legal action
(for ``act``), ``-1`` for a plain success, ``-2`` for a fault, or ``-3`` for a ``new`` whose bot
could not be created (its seat forfeits); a fault's kind (``exception``, ``illegal``,
``timeout``, ``memory``) and one-line message follow in JSON. A bot is seated and timed as in
every mode (``referee.seating``). The answers to a batch go
back in one write, as binary arrays (``execution.process.wire``), cheaper to make and read than
text. Before each command the host counts it in a small shared page, so that if the process dies or
hangs, the worker knows which decision did it. Every call into the bot is timed and its faults
classified as in every mode (``referee.clock``). The answer is an
index checked against a copy of the legal actions taken before the bot saw them; the worker reads
only numbers and JSON from this process: nothing a bot does here can reach the game.
Nothing of the game state, the other bots or the database exists in this process.
"""

from __future__ import annotations

import gc
import json
import mmap
import os
import resource
import sys
from array import array

from arena.execution.child_process import die_with_parent
from arena.execution.process.bubblewrap import confine
from arena.execution.process.sandbox import no_memory_access, signal_only_self
from arena.execution.process.wire import (
    FAULT,
    MAX_DESCRIPTION,
    NOT_CREATED,
    OK,
    CommandDecoder,
    builder,
    changes_applier,
    encode_answers,
    fields_getter,
)
from arena.plugins.loading import load_bot_alone
from arena.referee.clock import timed_act, timed_call
from arena.referee.faults import describe
from arena.referee.seating import seat_up
from arena.referee.watchdog import get_watchdog

CONFIG_ENV = "ARENA_BOT_HOST"


class _Messages:
    """The messages of the command pipe (each a 4-byte little-endian length and that many bytes),
    read with as few system calls as they allow: a batch and its length in one read."""

    def __init__(self, fd: int):
        self.fd = fd
        self.buffer = bytearray()

    def next(self) -> bytes | None:
        """The next message; None at the end of the pipe (a message cut short is dropped)."""
        buffer = self.buffer
        while True:
            if len(buffer) >= 4:
                end = 4 + int.from_bytes(buffer[:4], "little")
                if len(buffer) >= end:
                    message = bytes(buffer[4:end])
                    del buffer[:end]
                    return message
                wanted = end - len(buffer)
            else:
                wanted = 4 - len(buffer)
            chunk = os.read(self.fd, max(wanted, _READ_SIZE))
            if not chunk:
                return None
            buffer += chunk


_READ_SIZE = 1 << 16


class Host:
    def __init__(self, config: dict):
        self.move_time = float(config["move_time"])
        self.reply_fd = int(config["reply_fd"])
        self.spec = load_bot_alone(tuple(config["origin"]), config["bot"])
        self.bots: dict = {}
        self.acts: dict = {}  # id -> its bot's act, bound when the bot was made
        self.views: dict = {}  # id -> (builder of its class, field values) of its last observation
        self.codes = array("i")
        self.seconds = array("d")
        self.faults: list = []
        self.started = 0  # commands begun, over the life of the process
        self.watchdog = get_watchdog(self.move_time)
        self.progress = memoryview(mmap.mmap(int(config["progress_fd"]), 8)).cast("Q")

    def reply(self, status: str, value, seconds: float, not_created: bool = False) -> None:
        if status == "ok":
            self.codes.append(OK if value is None else value)
        else:
            self.faults.append((len(self.codes), status, str(value)[:MAX_DESCRIPTION]))
            self.codes.append(NOT_CREATED if not_created else FAULT)
        self.seconds.append(seconds)

    def flush(self) -> None:
        data = encode_answers(self.codes, self.seconds, self.faults)
        self.codes = array("i")
        self.seconds = array("d")
        self.faults = []
        view = memoryview(data)
        while view:
            view = view[os.write(self.reply_fd, view) :]

    def act(self, bot, observation, limit: float) -> tuple[str, object, float]:
        legal = list(observation.legal_actions)  # the bot may change the one it is given
        kind, value, seconds = timed_act(self.watchdog, limit, bot.act, observation, legal)
        return kind or "ok", value, seconds

    def serve(self, command_fd: int) -> None:
        decoder = CommandDecoder()
        messages = _Messages(command_fd)
        first = True  # the objects both ends know
        while True:
            message = messages.next()
            if message is None:
                return
            batch = decoder.decode(message)
            if first:
                first = False
                continue
            self.run(batch)
            if self.codes:
                self.flush()

    def run(self, batch: list) -> None:
        progress = self.progress
        started = self.started
        codes = self.codes
        times = self.seconds
        views = self.views
        acts = self.acts
        watchdog = self.watchdog
        limit = self.move_time
        apply = changes_applier()
        for command in batch:
            started += 1
            progress[0] = started
            op = command[0]
            if op == "act_changes" or op == "act":
                key = command[1]
                act = acts.get(key)
                if op == "act_changes":
                    view = views.get(key)
                    if view is None or act is None:  # dropped since the worker made this command
                        self.reply("gone", "the bot object no longer exists", 0.0)
                        continue
                    build, values = view
                    apply(values, command[2])
                    observation = build(values)
                else:
                    observation = command[2]
                    getter = fields_getter(type(observation))
                    if getter is not None:
                        views[key] = (builder(type(observation)), list(getter(observation)))
                    if act is None:
                        self.reply("gone", "the bot object no longer exists", 0.0)
                        continue
                # (A copy of the legal actions: the bot may change the one it is given.)
                # (with --time-bank, the seat's bank left comes last: it may take that longer)
                bank = command[3] if len(command) >= 4 else 0.0
                kind, value, seconds = timed_act(
                    watchdog, limit + bank, act, observation, list(observation.legal_actions)
                )
                if kind is None:
                    codes.append(value)
                    times.append(seconds)
                else:
                    self.reply(kind, value, seconds)
                    watchdog.restore()
            elif op == "new":
                self.new(*command[1:])
            elif op == "end":
                self.end(*command[1:])
            elif op == "drop":
                self.forget(command[1])
                self.reply("ok", None, 0.0)
        self.started = started

    def forget(self, key: int):
        """The bot object of ``key``, no longer known here (None if it was not)."""
        self.views.pop(key, None)
        self.acts.pop(key, None)
        return self.bots.pop(key, None)

    def new(self, key: int, seed: int, info) -> None:
        """Create a bot object for one seat of one game, and call its start(): a bot that could
        not be created is answered ``NOT_CREATED``, not ``FAULT`` (its seat forfeits)."""
        self.forget(key)
        seating = seat_up(self.watchdog, self.move_time, self.spec.create, seed, info)
        if seating.bot is not None:
            self.bots[key] = seating.bot
            self.acts[key] = seating.act  # bound once, as in every mode (``referee.inline``)
        if seating.kind is None:
            self.reply("ok", None, seating.seconds)
        else:
            self.reply(seating.kind, seating.message, seating.seconds, seating.bot is None)

    def end(self, key: int, result) -> None:
        """Call the bot object's end() and forget it."""
        bot = self.forget(key)
        if bot is None or getattr(type(bot), "end", None) is None:
            self.reply("ok", None, 0.0)
            return
        kind, message, seconds = timed_call(self.watchdog, self.move_time, bot.end, result)
        if kind is None:
            self.reply("ok", None, seconds)
        else:
            self.reply(kind, message, seconds)


def _batch_scheduling() -> None:
    """Woken by a batch, wait for a free CPU rather than preempt the game worker, which every
    game waits on (``SCHED_BATCH``: the same share of the CPU, no wake-up preemption)."""
    try:
        os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
    except (AttributeError, OSError):
        pass


def _limit_memory(limit: int) -> None:
    if limit > 0:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def main() -> None:
    config = json.loads(os.environ.pop(CONFIG_ENV))
    processes = int(config.get("processes", 0))
    die_with_parent(orphan_check=not processes)  # (sandboxed, its parent is the sandbox's pid 1)
    _batch_scheduling()
    command_fd = int(config["command_fd"])
    # The bot's prints must not reach the reply pipe, nor the run's own output.
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    if config.get("cpu"):
        seconds = int(config["cpu"])
        resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))
    confine(processes)  # before the bot's file is imported: no process without end
    signal_only_self(no_processes=processes == 1)  # nor may it kill its worker or the run
    no_memory_access()  # nor may other bots read its memory
    try:
        host = Host(config)
    except BaseException as exc:
        data = encode_answers(
            array("i", [FAULT]), array("d", [0.0]), [[0, "broken", describe(exc)[:MAX_DESCRIPTION]]]
        )
        os.write(int(config["reply_fd"]), data)
        return
    _limit_memory(int(config.get("memory", 0)))
    # What is loaded now lives as long as the process: the collector need not look at it again.
    # And most of what a batch unpickles is freed at once, before a collection would look at it.
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 10, 10)
    host.reply("ready", None, 0.0)
    host.flush()
    host.serve(command_fd)


if __name__ == "__main__":
    main()
