"""The game worker's handle on one bot's own process (``--isolation process``).

It starts ``execution.process.bot_host`` with the bot's origin and limits, writes batches of
commands to its command pipe, reads the answers from its reply pipe, and tells how it ended when
it ends: by its exit code or signal (``cpu`` for its CPU-time limit). The progress page, which the
host writes before each command, tells the worker which command a dead or hung process was on.
"""

from __future__ import annotations

import mmap
import os
import select
import signal
import subprocess
import sys
import time
from collections import deque

from arena.execution.child_process import child_environment
from arena.execution.context import PlayContext
from arena.execution.process import bubblewrap
from arena.execution.process.bot_host import CONFIG_ENV
from arena.execution.process.wire import CommandEncoder, decode_answers
from arena.referee.faults import (
    DID_NOT_START,
    PIPES_CLOSED,
    STOPPED_AT_ONCE,
    cannot_start_alone,
    not_from_a_file,
    out_of_cpu,
    process_ended,
)

STARTUP_SECONDS = 30.0
# A process's pipes close a moment before it can be reaped: how long to wait for its exit status
# once they have. (Only a process that closed them itself and goes on waits it all.)
ENDING_SECONDS = 2.0


class IsolationError(Exception):
    """A bot cannot run in its own process at all (e.g. it was not loaded from a file)."""


def start_bookkeeping(handle) -> None:
    """What the worker keeps of each bot process it speaks to (a ``BotProcess``, or a program's
    ``ProgramChannel``), as it starts."""
    handle.expected = deque()  # (run, op, seat, attempt) of each command not answered
    handle.sent = 0
    handle.answered = 0
    handle.last_progress = time.monotonic()
    handle.last_seen = 0
    # Its pipes' ends, as found by ``receive`` (the reply pipe's end read: every answer
    # before it read too) and by ``send`` (nothing reads the command pipe any more).
    handle.eof = False
    handle.epipe = False
    handle.cpu_used = None  # CPU seconds, once it has ended (see ``BotProcess.ended``)
    # Commands (numbered from 1 over its life) the worker saw run past the move time, and
    # for how long at least (``isolated_play``).
    handle.late = {}


class BotProcess:
    """The worker's handle on one bot's process: started here, usable after ``wait_ready``."""

    def __init__(self, context: PlayContext, name: str, known: list):
        spec = context.registry.bots[name]
        cpu = context.bot_cpu
        if spec.origin is None:
            raise IsolationError(not_from_a_file(spec.name, spec.source))
        self.name = spec.name
        self.cpu = cpu
        command_read, self.command_fd = os.pipe()
        self.reply_fd, reply_write = os.pipe()
        progress_fd = os.memfd_create("arena-bot-progress")
        os.ftruncate(progress_fd, 8)
        self.progress = mmap.mmap(progress_fd, 8)
        config = {
            "origin": list(spec.origin),
            "bot": spec.plugin_name,
            "move_time": context.move_time,
            "memory": context.bot_memory,
            "cpu": cpu,
            "command_fd": command_read,
            "reply_fd": reply_write,
            "progress_fd": progress_fd,
        }
        sandbox, memory = context.sandbox, context.bot_memory
        sandboxed = bubblewrap.active(sandbox)
        config["processes"] = bubblewrap.process_cap() if sandboxed else 0
        env = child_environment(CONFIG_ENV, config)
        self.process, self.wrapped = bubblewrap.start(
            # -P: not the working directory first on sys.path (a json.py there would do)
            [sys.executable, "-P", "-m", "arena.execution.process.bot_host"],
            [spec.origin[1]] if spec.origin[0] == "file" else [],
            sandbox,
            memory,
            pass_fds=(command_read, reply_write, progress_fd),
            env=env,
        )
        os.close(command_read)
        os.close(reply_write)
        os.close(progress_fd)
        os.set_blocking(self.command_fd, False)
        self.encoder = CommandEncoder(known)
        self.buffer = bytearray()
        start_bookkeeping(self)

    def wait_ready(self) -> None:
        """Wait for the process to have loaded its bot; IsolationError if it cannot."""
        first = self.read_answers(time.monotonic() + STARTUP_SECONDS, owed=1)  # "ready"
        self.answered = 0
        kind, detail = (first[2].get(0) if first else None) or ("", DID_NOT_START)
        if first is None and self.eof:
            detail = f"{DID_NOT_START}: {self.death()[1]}"
        if kind == "ready" and not self._write(self.encoder.preamble, time.monotonic() + 1.0):
            kind, detail = "", STOPPED_AT_ONCE
        if kind != "ready":
            self.kill()
            raise IsolationError(cannot_start_alone(self.name, detail))

    def send(self, commands: list, deadline: float) -> bool:
        """Write one batch; False if the process does not take it in time, or cannot take it any
        more (``epipe`` is then set)."""
        return self._write(self.encoder.encode(commands), deadline)

    def send_message(self, message: bytes, deadline: float) -> bool:
        """``send``, for a batch encoded already (``wire.batch_message``)."""
        return self._write(message, deadline)

    def _write(self, data: bytes, deadline: float) -> bool:
        view = memoryview(data)
        while view:
            try:
                written = os.write(self.command_fd, view)
                view = view[written:]
            except BlockingIOError:
                wait = deadline - time.monotonic()
                if wait <= 0:
                    return False
                select.select([], [self.command_fd], [], wait)
            except OSError:  # EPIPE: nothing reads the other end, the process has ended
                self.epipe = True
                return False
        return True

    def read_answers(self, deadline: float, owed: int) -> tuple[list, list, dict] | None:
        """The answers in by ``deadline`` (see ``receive``), waiting for some."""
        while True:
            wait = max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([self.reply_fd], [], [], wait)
            if not ready:
                return [], [], {}
            answers = self.receive(owed)
            if answers is None or answers[0]:
                return answers

    def receive(self, owed: int | None = None) -> tuple[list, list, dict] | None:
        """Read the pipe, which is readable -> (codes, seconds, {position: (kind, message)}) of
        the complete answers in; None if the pipe has ended (``eof`` is then set: the process is
        gone, and ``death`` tells how), or if the process wrote something else, or more answers
        than the ``owed`` ones (default: one for each command not answered yet).

        What came before the end of the pipe is read first: garbage followed by an exit is
        garbage. An answer cut short by the end of the pipe is not (a process killed while
        writing leaves one); it is left unread, and the end is read next."""
        try:
            chunk = os.read(self.reply_fd, 1 << 16)
        except OSError:
            chunk = b""
        if not chunk:
            self.eof = True
            return None
        self.buffer += chunk
        decoded = decode_answers(self.buffer, len(self.expected) if owed is None else owed)
        if decoded is None:
            return None
        used, codes, seconds, faults = decoded
        del self.buffer[:used]
        self.answered += len(codes)
        return codes, seconds, faults

    def started(self) -> int:
        """How many commands the bot process has begun, over its life."""
        return int.from_bytes(self.progress[0:8], sys.byteorder)  # the host writes a native "Q"

    def ended(self) -> bool:
        """Whether the process has ended (reaped here, with the CPU time it used)."""
        if self.process.returncode is not None:
            return True
        try:
            pid, status, usage = os.wait4(self.process.pid, os.WNOHANG)
        except ChildProcessError:  # (reaped already: Popen knows how it ended)
            return self.process.poll() is not None
        if not pid:
            return False
        self.process.returncode = os.waitstatus_to_exitcode(status)
        self.cpu_used = usage.ru_utime + usage.ru_stime
        return True

    def death(self) -> tuple[str, str]:
        """How the process ended -> (fault kind, message), once its pipes have ended or it is
        known to be gone: its exit code or signal, ``cpu`` for its CPU-time limit (SIGXCPU, or
        the SIGKILL of the hard limit a second later, for a bot that ignores SIGXCPU). Its pipes
        close a moment before it can be reaped: this waits for that moment."""
        ending = time.monotonic() + ENDING_SECONDS
        while not self.ended():
            if time.monotonic() >= ending:  # it closed them itself, and goes on
                return "crash", PIPES_CLOSED
            time.sleep(0.002)
        code = bubblewrap.exit_code(self.process.returncode, self.wrapped)
        limit = self.cpu
        if limit and (
            -code == signal.SIGXCPU or (-code == signal.SIGKILL and (self.cpu_used or 0.0) >= limit)
        ):
            return "cpu", out_of_cpu(-code, limit)
        return "crash", process_ended(code)

    def kill(self) -> None:
        try:  # the bot process and anything it started (the filter keeps them in its group)
            os.killpg(self.process.pid, signal.SIGKILL)
        except OSError:  # the group is gone, or not there: at least the process itself
            if self.process.poll() is None:
                self.process.kill()
        try:
            self.process.wait(timeout=ENDING_SECONDS)
        except subprocess.TimeoutExpired:  # held in the kernel: reaped by whoever outlives it
            pass
        for fd in (self.command_fd, self.reply_fd):
            try:
                os.close(fd)
            except OSError:
                pass
        self.progress.close()
