"""The bot process of a program bot (``--isolation process``): a relay run by arena, not by the bot.

A game worker starts it as it starts a Python bot's host (``execution.process.bot_process``) and
sends it the same batches of commands; it answers them as ``bot_host.Host`` does, each bot object
being a ``ProgramPlayer`` that speaks JSON lines with the program (``program_bot``). It imports no
bot code, so it is not sandboxed itself: the programs it starts are, each under the limits of a bot
process (memory, CPU time, bubblewrap, the signal filter), and it kills them when they breach the
protocol or its time. They end with it.
"""

from __future__ import annotations

import json
import os
import sys
import time
from array import array
from typing import NamedTuple

from arena.execution.child_process import die_with_parent
from arena.execution.process.bot_host import CONFIG_ENV, Host
from arena.execution.process.bubblewrap import SandboxSettings
from arena.execution.process.program_bot import (
    IllegalAnswer,
    ProgramLimits,
    ProgramPlayer,
    ProgramPool,
)
from arena.execution.process.wire import (
    FAULT,
    MAX_DESCRIPTION,
    apply_changes,
    builder,
    encode_answers,
    fields_getter,
)
from arena.protocol import messages
from arena.referee.faults import ProgramFault, describe, late, past_bank

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
    legal: list  # the legal actions in record notation
    limit: float  # seconds it may take: the move time and what is left of its seat's bank


class ProgramHost(Host):
    """``Host``, with the decisions of a batch pipelined: every request goes to the program before
    the first answer is read, so that a batch costs the program one wake-up, not one each. Each
    answer is timed from the later of its request and the answer before it (as a Python bot
    process's batch is by the worker), and the progress page counts the request whose answer is
    awaited. After a failure (the program is killed), the rest are asked one by one, as
    ``ProgramPlayer.act`` does, each restarting the program."""

    def __init__(self, config: dict):
        super().__init__(config)
        mode, hidden = config["sandbox"]
        limits = ProgramLimits(
            float(config["move_time"]),
            int(config.get("memory", 0)),
            config.get("cpu"),
            SandboxSettings(mode, tuple(hidden)),
        )
        self.pool = ProgramPool(self.spec.cls.manifest, limits)
        self.spec = _Programs(self.pool)
        self.outgoing = bytearray()  # the requests of the decisions pending, not yet sent

    def run(self, batch: list) -> None:
        pending: list[_Pending] = []
        for command in batch:
            op = command[0]
            if op != "act" and op != "act_changes":
                self.collect(pending)
                pending = []
                if op == "new":  # the program started (not awaited: its start waits for it)
                    self.spec.create = self.pool.started_factory()
                super().run([command])
                continue
            self.started += 1
            key = command[1]
            observation = self.observation(op, key, command)
            player = self.bots.get(key)
            if observation is None or player is None:
                self.reply("gone", "the bot object no longer exists", 0.0)
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
            line, legal = player.writer.line(player.id, observation, player.time())
            self.outgoing += line
            entry = _Pending(len(self.codes), self.started, player, observation, legal, limit)
            pending.append(entry)
            self.codes.append(FAULT)
            self.seconds.append(0.0)
            if len(pending) >= MAX_PENDING:
                self.collect(pending)
                pending = []
        self.collect(pending)

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
        failed = False
        last = time.perf_counter()
        if self.outgoing:
            data, self.outgoing = bytes(self.outgoing), bytearray()
            try:
                self.pool.current.write(data)
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
        if answer.get("type") == "error":
            return (
                "exception",
                f"it answered an error: {str(answer.get('message', ''))[:200]}",
                seconds,
            )
        try:
            index = messages.action_index(answer, entry.legal)
        except messages.ProtocolError as exc:
            self.pool.close()
            return "crash", f"it wrote {exc}", seconds
        except ValueError:
            return (
                "illegal",
                f"{IllegalAnswer(answer.get('action'))!r} is not a legal action",
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


def main() -> None:
    config = json.loads(os.environ.pop(CONFIG_ENV))
    die_with_parent()
    command_fd = int(config["command_fd"])
    os.dup2(2, 1)  # (nothing here prints; the programs' output is their pipes')
    sys.stdout = sys.stderr
    try:
        host = ProgramHost(config)
    except BaseException as exc:
        data = encode_answers(
            array("i", [FAULT]), array("d", [0.0]), [[0, "broken", describe(exc)[:MAX_DESCRIPTION]]]
        )
        os.write(int(config["reply_fd"]), data)
        return
    try:
        host.pool.process()  # started before "ready": the worker waits longer for that
    except ProgramFault:
        pass  # (its first seat says why)
    host.reply("ready", None, 0.0)
    host.flush()
    try:
        host.serve(command_fd)
    finally:
        host.pool.close()


if __name__ == "__main__":
    main()
