"""The game worker's handle on a program bot (``--isolation process``): the program's pipes.

A worker speaks to a Python bot through its own process (``bot_process.BotProcess``); a program
bot is a process already, so the worker speaks to it directly: ``ProgramChannel`` takes the same
batches of commands and gives the same answers as a ``BotProcess``, served by a ``ProgramHost``
in the worker, which writes each batch's requests into the program's input at once and reads its
answers. A batch is answered before ``send`` returns (the answers are timed and judged as they
come, and a program that breaches the protocol or its time is killed and started again, faulting
only its decision); the worker then finds them as it finds a bot process's, its reply pipe made
readable by a byte. The channel itself never dies: the worker's clock has nothing to watch.
"""

from __future__ import annotations

import os

from arena.execution.context import PlayContext
from arena.execution.process.bot_process import BotProcess, start_bookkeeping
from arena.execution.process.program_bot import PROGRAM, ProgramLimits
from arena.execution.process.program_host import ProgramHost
from arena.execution.process.wire import FAULT, MAX_DESCRIPTION
from arena.referee.faults import describe


def is_program(context: PlayContext, name: str) -> bool:
    """Whether the bot is a program (a manifest's): the worker gives it commands unpickled."""
    origin = context.registry.bots[name].origin
    return origin is not None and origin[0] == "manifest"


def open_bot(context: PlayContext, name: str, known: list):
    """The worker's handle on a bot's own process: a program's channel, else a ``BotProcess``."""
    if is_program(context, name):
        return ProgramChannel(context, name)
    return BotProcess(context, name, known)


class ProgramChannel:
    """What a worker uses of a ``BotProcess``, for a program bot (see the module's text)."""

    def __init__(self, context: PlayContext, name: str):
        spec = context.registry.bots[name]
        self.name = spec.name
        self.cpu = context.bot_cpu
        limits = ProgramLimits(
            context.move_time, context.bot_memory, context.bot_cpu, context.sandbox
        )
        self.host = ProgramHost(spec.cls.manifest, limits)
        self.reply_fd, self._wake = os.pipe()
        self.answered_batches: list = []  # answers not read by the worker yet
        start_bookkeeping(self)  # (``late`` stays empty: the host times the program)

    def wait_ready(self) -> None:
        """Start the program (off any decision's clock); one that cannot start is told by its
        first seat, as a fault of kind ``crash``."""
        try:
            self.host.pool.process()
        except Exception:  # (its first batch tries again, and faults: ``send``)
            pass

    def send(self, commands: list, deadline: float) -> bool:
        try:
            self.host.run(commands)
            answers = self.host.answers()
        except Exception as exc:  # (arena's own error: the batch faults, the run goes on)
            answers = self._broken(len(commands), exc)
        self.answered_batches.append(answers)
        os.write(self._wake, b"\0")
        return True

    # The worker's batches for a program are its commands themselves, not a pickled message.
    send_message = send

    def _broken(self, owed: int, exc: Exception) -> tuple[list, list, dict]:
        """The answers of a batch the host failed on: the commands it did not answer fault,
        and the program, in a state nobody knows, is started again when next needed."""
        codes, seconds, faults = self.host.answers()
        self.host.pool.close()
        message = f"arena's program host failed: {describe(exc)}"[:MAX_DESCRIPTION]
        while len(codes) < owed:
            faults[len(codes)] = ("crash", message)
            codes.append(FAULT)
            seconds.append(0.0)
        return codes[:owed], seconds[:owed], faults

    def receive(self, owed: int | None = None) -> tuple[list, list, dict]:
        """The answers of every batch sent since the last call."""
        os.read(self.reply_fd, 1 << 16)
        codes: list = []
        seconds: list = []
        faults: dict = {}
        for batch_codes, batch_seconds, batch_faults in self.answered_batches:
            for position, fault in batch_faults.items():
                faults[len(codes) + position] = fault
            codes += batch_codes
            seconds += batch_seconds
        self.answered_batches = []
        self.answered += len(codes)
        return codes, seconds, faults

    def started(self) -> int:
        return self.sent  # every command sent is answered already

    def ended(self) -> bool:
        return False

    def death(self) -> tuple[str, str]:  # (never asked: the channel does not end)
        return "crash", f"{PROGRAM} ended"

    def kill(self) -> None:
        self.host.pool.close()
        for fd in (self.reply_fd, self._wake):
            try:
                os.close(fd)
            except OSError:
                pass
