"""A bot that is a program in any language, spoken to in JSON lines (``docs/protocol.md``).

``ProgramPlayer`` is the bot object the referee sees for one seat of one game, in every mode: in
a game worker, called by the referee (``--isolation shared``) or by the worker's program host
(``--isolation process``, ``execution.process.program_host``). It takes a program process from
its bot's ``ProgramPool`` when it is created, says ``start``, asks ``act`` for each decision and
says ``end``, then gives the process back: a program plays many games in its life, one at a time
(one process per seat in play).
The referee times every call as for any bot (``referee.clock``); a program that answers late,
ends, closes its output or writes what is not a message of the protocol is killed, and the fault
raised here (``referee.faults.ProgramFault``) says which kind it is. A seat whose program was
killed gets a fresh process for its next decision, told the game's ``start`` again.

Each program runs under the limits of a bot's own process: the memory limit (set before anything
is executed), the CPU-time limit, the bubblewrap sandbox and the signal filter
(``execution.process.program_launch`` installs the last inside the sandbox, then executes the
program), in its own process group, killed with whatever it started.
"""

from __future__ import annotations

import fcntl
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

from arena.execution.child_process import child_environment
from arena.execution.process import bubblewrap
from arena.execution.process.bubblewrap import SandboxSettings
from arena.execution.process.program_launch import LAUNCH_ENV
from arena.execution.process.program_launch import PATH as LAUNCHER
from arena.plugins.manifests import Manifest
from arena.protocol import messages
from arena.protocol.requests import RequestWriter, TextMemo, answer_index
from arena.referee.faults import ProgramFault, out_of_cpu, process_ended

STARTUP_SECONDS = 10.0  # for the hello (the referee's clock may end the wait sooner)
ENDING_SECONDS = 1.0  # for the exit status once its output has ended
WRITE_SECONDS = 1.0  # for a message to go into a program that does not read
SANDBOX_FOLDER = "/tmp/program"  # where a sandboxed program runs (its /tmp is its own)
F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)
PIPE_BYTES = 1 << 20  # of its input pipe: a batch of requests (Linux lets anyone set a MiB)
PROGRAM = "its program"
# How every fault message of a program that ended begins (``death``): what it wrote on its
# standard error may say why.
ENDED = (f"{PROGRAM} ended", f"{PROGRAM} was ", f"{PROGRAM} closed its output")


@dataclass(frozen=True)
class ProgramLimits:
    move_time: float = 1.0
    memory: int = 0  # bytes of address space; 0: none
    cpu: int | None = None  # CPU seconds over the program's life
    sandbox: SandboxSettings = field(default_factory=SandboxSettings)
    stderr: int | None = subprocess.DEVNULL  # None: the program's errors go to arena's stderr


class IllegalAnswer:
    """An action a program named that is not a legal one: the referee finds it among none."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __repr__(self) -> str:
        return messages.dumps(self.value).decode().strip()[:80] if _plain(self.value) else "?"


def _plain(value) -> bool:
    return value is None or isinstance(value, str | int | float | list | dict | bool)


class ProgramProcess:
    """One running program: lines in, lines out, killed on any breach."""

    def __init__(self, manifest: Manifest, limits: ProgramLimits, on_line=None):
        self.limits = limits
        self.on_line = on_line  # told (direction, line) of every line: ``arena check-bot``
        sandboxed = bubblewrap.active(limits.sandbox)
        argv = manifest.argv()
        # an empty folder of its own: in the sandbox's private /tmp, else one removed as it ends
        self.folder = None if sandboxed else tempfile.mkdtemp(prefix="arena-program-")
        config = {
            "argv": argv,
            "cpu": limits.cpu,
            "processes": bubblewrap.process_cap() if sandboxed else 0,
            "env": program_environment(manifest, self.folder or SANDBOX_FOLDER),
        }
        command = [sys.executable, "-I", "-S", LAUNCHER]
        if sandboxed:
            files, exact = manifest.visible()
            command = bubblewrap.wrap(
                command, files, limits.sandbox, exact, (), SANDBOX_FOLDER, limits.memory
            )
        try:
            self.process = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=limits.stderr,
                start_new_session=True,  # its own process group: killed with whatever it started
                preexec_fn=bubblewrap.limit_memory(limits.memory),
                env=child_environment(LAUNCH_ENV, config),
                cwd=self.folder,
                bufsize=0,
            )
        except OSError:
            if self.folder is not None:
                shutil.rmtree(self.folder, ignore_errors=True)
            raise
        self.wrapped = sandboxed
        self.stdin = self.process.stdin.fileno()
        self.stdout = self.process.stdout.fileno()
        os.set_blocking(self.stdin, False)
        try:  # a batch of requests in one write, without waiting for the program to read
            fcntl.fcntl(self.stdin, F_SETPIPE_SZ, PIPE_BYTES)
        except OSError:
            pass  # (a smaller pipe: the batch goes in a few writes)
        self.buffer = bytearray()
        self.queued = bytearray()  # lines for it, written with the next request (``say``)
        self.alive = True

    # --- lines -------------------------------------------------------------------------------
    def send(self, message: dict) -> None:
        data = messages.dumps(message)
        if self.on_line is not None:
            self.on_line("arena", data)
        self.write(data)

    def write(self, data: bytes) -> None:
        """Lines for the program, all at once, after the lines queued for it; ProgramFault if
        it does not take them."""
        if self.queued:
            data = bytes(self.queued + data)
            self.queued.clear()
        view = memoryview(data)
        deadline = time.monotonic() + WRITE_SECONDS
        while view:
            try:
                view = view[os.write(self.stdin, view) :]
            except BlockingIOError:
                wait = deadline - time.monotonic()
                if wait <= 0:
                    raise ProgramFault("timeout", "it does not read its input") from None
                select.select([], [self.stdin], [], wait)
            except OSError:  # EPIPE: it closed its input, or it has ended
                raise self.fault(self.death()) from None

    def receive(self, seconds: float, limit: float | None = None) -> dict:
        """The next message it writes within ``seconds``; ProgramFault if none comes (said to
        be ``limit`` seconds late, by default ``seconds``)."""
        deadline = time.monotonic() + seconds
        buffer = self.buffer
        while True:
            end = buffer.find(b"\n")
            if end >= 0:
                line = bytes(buffer[: end + 1])
                del buffer[: end + 1]
                if self.on_line is not None:
                    self.on_line("bot", line)
                if not line.strip():
                    continue
                try:
                    return messages.parse_line(line)
                except messages.ProtocolError as exc:
                    raise self.fault(("crash", f"it wrote {exc}")) from None
            if len(buffer) > messages.MAX_LINE:
                raise self.fault(
                    ("crash", f"it wrote a line longer than {messages.MAX_LINE} bytes")
                )
            wait = deadline - time.monotonic()
            if wait <= 0 or not select.select([self.stdout], [], [], wait)[0]:
                if self.process.poll() is not None:  # ended, its output held by its children
                    raise self.fault(self.death())
                late = seconds if limit is None else limit
                raise self.fault(("timeout", f"no answer within {late:g} s"))
            try:
                chunk = os.read(self.stdout, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                raise self.fault(self.death())
            buffer += chunk

    def surplus(self) -> bool:
        """Whether it wrote a line nobody asked for (one read, without waiting, so that a line
        written late is not taken for the answer to the next request)."""
        if not self.buffer.strip() and select.select([self.stdout], [], [], 0)[0]:
            try:
                self.buffer += os.read(self.stdout, 1 << 16)
            except OSError:
                pass  # (the next read finds out how it ended)
        return bool(self.buffer.strip())

    def fault(self, what: tuple[str, str]) -> ProgramFault:
        """The fault ``what`` (kind, message); the program is killed."""
        self.kill()
        return ProgramFault(*what)

    def death(self) -> tuple[str, str]:
        """How the program ended, once its output has: by its exit status."""
        try:
            code = self.process.wait(timeout=ENDING_SECONDS)
        except subprocess.TimeoutExpired:
            return "crash", f"{PROGRAM} closed its output"
        code = bubblewrap.exit_code(code, self.wrapped)
        limit = self.limits.cpu
        if limit and -code == signal.SIGXCPU:
            return "cpu", out_of_cpu(-code, limit)
        return "crash", process_ended(code, PROGRAM)

    def kill(self) -> None:
        if not self.alive:
            return
        self.alive = False
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except OSError:
            if self.process.poll() is None:
                self.process.kill()
        try:
            self.process.wait(timeout=ENDING_SECONDS)
        except subprocess.TimeoutExpired:
            pass
        for stream in (self.process.stdin, self.process.stdout):
            try:
                stream.close()
            except OSError:
                pass
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)


def program_environment(manifest: Manifest, folder: str) -> dict[str, str]:
    """A program's environment: not arena's (no secret of the user's shell reaches it), only
    ``PATH``, ``LANG``, ``HOME`` (its build folder, else ``folder``) and its manifest's ``env``."""
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "LANG": os.environ.get("LANG", "C.UTF-8"),
        "HOME": str(manifest.cache()) if manifest.build is not None else folder,
    }
    return {**env, **dict(manifest.env)}


class ProgramPool:
    """The program of one bot in this process: one process serves every seat of the bot here,
    each seat's game named by its ``id``; a killed one is replaced when next needed."""

    def __init__(self, manifest: Manifest, limits: ProgramLimits, on_line=None):
        self.manifest = manifest
        self.limits = limits
        self.on_line = on_line
        self.current: ProgramProcess | None = None
        self.greeted: ProgramProcess | None = None  # the process whose hello was read
        self.verified: dict = {}  # observation classes checked by the request writers
        self.memo = TextMemo()  # the JSON text of what the seats' observations share
        self.ids = 0  # the last id given to a seat's game
        self.requests = 0  # the number of the last request to act
        self.hello: dict | None = None  # the first program's hello (``arena check-bot``)
        # Whether the messages that are not answered (start, end) wait in the program's queue
        # for the next write (a game worker's host: a batch's lines go in one write).
        self.deferring = False
        self.fields: frozenset | None = None  # those its hello asked for (the compact form)

    def process(self) -> ProgramProcess:
        """The live program, started (and greeted) if there is none."""
        process = self.current
        if process is None or not process.alive:
            process = self.spawn()
        if self.greeted is not process:
            try:
                answer = process.receive(STARTUP_SECONDS)
                problems = messages.check_hello(answer)
                if problems:
                    raise process.fault(("crash", f"its hello is wrong: {problems[0]}"))
            except BaseException:
                process.kill()
                raise
            self.greeted = process
            self.fields = messages.fields_wanted(answer)
            if self.hello is None:
                self.hello = answer
        return process

    def spawn(self) -> ProgramProcess:
        """Start the program and greet it, without waiting for its answer (``process`` does)."""
        self.close()
        try:
            process = self.current = ProgramProcess(self.manifest, self.limits, self.on_line)
        except OSError as exc:  # no process to be had (no memory, a program it may not run)
            raise ProgramFault("crash", f"its program cannot start: {exc}") from None
        try:
            process.send({**messages.hello(), "settings": dict(self.manifest.settings)})
        except ProgramFault:
            pass  # (``process`` finds it dead)
        return process

    def say(self, process: ProgramProcess, message: dict) -> None:
        """Tell the program a message it does not answer: now, or queued (``deferring``)."""
        if not self.deferring:
            process.send(message)
            return
        data = messages.dumps(message)
        if process.on_line is not None:
            process.on_line("arena", data)
        process.queued += data

    def next_request(self) -> int:
        self.requests += 1
        return self.requests

    def factory(self, wait: bool = True) -> ProgramPlayer:
        self.ids += 1
        return ProgramPlayer(self, self.ids, wait)

    def started_factory(self):
        """A factory of players that do not wait for the program's hello (their first message
        does), with the program started now if it is not running; if it cannot start, a factory
        raising why."""
        if self.current is None or not self.current.alive:
            try:
                self.spawn()
            except ProgramFault as exc:
                error = exc

                def cannot_start():
                    raise error

                return cannot_start
        return lambda: self.factory(wait=False)

    def ready_factory(self):
        """``factory``, with the program started now, off the referee's clock (a program may
        take longer to start than to move); if it cannot start, a factory raising why."""
        try:
            self.process()
        except ProgramFault as exc:
            error = exc

            def cannot_start():
                raise error

            return cannot_start
        return self.factory

    def close(self) -> None:
        if self.current is not None:
            self.current.kill()
            self.current = None


class ProgramPlayer:
    """The bot object of one seat of one game whose bot is a program (see the module's text)."""

    _arena_seed = ""
    # Seconds left in the seat's time bank, set by the referee before each decision: None unless
    # the run uses --time-bank. (The one place a request's ``time`` is read from.)
    _arena_bank: float | None = None

    def __init__(self, pool: ProgramPool, key: int, wait: bool = True):
        self.pool = pool
        self.id = key
        self.told: ProgramProcess | None = None  # the process told this game's start
        self.begin: dict | None = None
        self.writer = RequestWriter(pool.verified, pool.memo)
        if wait:
            pool.process()  # a program that cannot start: this seat cannot be created

    bank_total: float | None = None  # the game's time bank (``info.time_bank``)

    def time(self) -> dict:
        return messages.time_left(*self._limits())

    def _limits(self) -> tuple[float, float | None]:
        """This decision's move time and what is left of its seat's bank: as the bot host sets
        it (``--isolation process``), else from the referee's clock in this process."""
        move, bank = self.pool.limits.move_time, self._arena_bank
        if bank is None and self.bank_total is not None:
            from arena.referee.watchdog import time_left

            left = time_left()
            bank = max(0.0, left - move) if left != float("inf") else self.bank_total
        return move, bank

    def start(self, info) -> None:
        self.bank_total = getattr(info, "time_bank", None)
        whole = messages.time_left(self.pool.limits.move_time, self.bank_total)  # (a full bank)
        self.begin = messages.start(self.id, info, self._arena_seed, whole)
        self._ask(None)

    def act(self, observation):
        request = self.pool.next_request()
        line, legal = self.writer.line(self.id, observation, self.time(), request, self.pool.fields)
        answer = self._ask(line)
        try:
            messages.answer_for(answer, self.id, request)
        except messages.ProtocolError as exc:
            self.pool.close()
            raise ProgramFault("crash", f"it wrote {exc}") from None
        if answer.get("type") == "error":
            message = str(answer.get("message", ""))[:200]
            raise ProgramFault("exception", f"it answered an error: {message}")
        try:
            index = answer_index(answer, legal)
        except messages.ProtocolError as exc:
            self.pool.close()
            raise ProgramFault("crash", f"it wrote {exc}") from None
        except ValueError:
            return IllegalAnswer(messages.named(answer))
        return observation.legal_actions[index]

    def end(self, result) -> None:
        if self.told is not None and self.told.alive:
            self._ask(messages.end(self.id, result))

    def _ask(self, request: dict | bytes | None) -> dict | None:
        """Send ``request`` (a message, or the line of an ``act``, which is answered) to the
        program, which is told this game's start first if it does not know it (a fresh one); on
        any failure the program is killed."""
        try:
            process = self.pool.process()
            if process is not self.told:
                self.told = process
                if self.begin is not None:
                    self.pool.say(process, self.begin)
            if request is None:
                return None
            if not isinstance(request, bytes) and self.pool.deferring:
                self.pool.say(process, request)  # (its host looks for surplus lines)
                return None
            if process.surplus():
                raise process.fault(("crash", "it wrote a message nobody asked for"))
            if not isinstance(request, bytes):
                process.send(request)
                return None
            if process.on_line is not None:
                process.on_line("arena", request)
            process.write(request)
            # (the referee's clock, when there is one, ends the wait first)
            move_time, bank = self._limits()
            return process.receive(move_time + (bank or 0.0) + 0.05, move_time + (bank or 0.0))
        except BaseException:  # a fault, or the referee's clock: the program is killed, and
            try:  # started again at once (it starts while the game goes on)
                self.pool.spawn()
            except ProgramFault:
                pass  # (its next decision says why)
            raise


class ProgramPools:
    """The pools of the program bots played in this process (made on first use, per process: a
    forked game worker starts its own programs)."""

    def __init__(self, limits: ProgramLimits):
        self.limits = limits
        self.pools: dict[str, ProgramPool] = {}
        self.pid = os.getpid()

    def factory(self, name: str, manifest: Manifest):
        if self.pid != os.getpid():  # a copy in a forked process: its programs are not ours
            self.pools, self.pid = {}, os.getpid()
        pool = self.pools.get(name)
        if pool is None:
            pool = self.pools[name] = ProgramPool(manifest, self.limits)
        return pool.ready_factory()

    def close(self) -> None:
        if self.pid == os.getpid():
            for pool in self.pools.values():
                pool.close()
        self.pools = {}

    def __reduce__(self):
        return ProgramPools, (self.limits,)
