"""What counts as a fault, how it is described, and the book of faults and forfeits of one game.

Every way a bot can fail is classified and described here, once, for every mode: in this process,
in a bot's own process (``execution.process.bot_host``), and by a game worker that sees a bot's
process die, hang or forge what it sends. Every fault message is written in this module.

An ``exception`` fault carries the traceback of what the bot raised (``Fault.detail``, at most
``MAX_TRACEBACK`` characters, the innermost frames kept): it travels after the one-line message,
following its first newline, until the ``FaultBook`` splits it off. The game's record keeps the
one line; the database keeps both (``arena faults``).
"""

from __future__ import annotations

import random
import signal
import traceback
from dataclasses import dataclass
from typing import Any

from arena.referee.watchdog import MoveTimeout

NO_ANSWER = object()  # what a bot "returned" when its call raised
MAX_TRACEBACK = 4000  # characters of an exception's traceback kept with its fault


@dataclass(frozen=True, slots=True)
class Fault:
    seat: int
    decision: int  # 0 for start(), -1 for end(), else the game's decision number
    kind: str  # "exception", "illegal", "timeout", "crash", "memory", "cpu"
    message: str
    detail: str = ""  # the traceback of an exception (not part of the game's record)

    def to_json(self) -> dict:
        return {
            "seat": self.seat,
            "decision": self.decision,
            "kind": self.kind,
            "message": self.message,
        }


class ProgramFault(Exception):
    """What a bot program did wrong (``execution.process.program_bot``), with its fault kind:
    ``crash`` (it ended, closed its output, wrote what is not a message of the protocol),
    ``timeout``, ``cpu`` or ``exception`` (it answered an error)."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


def describe(exc: BaseException) -> str:
    """An exception in one line: its type and the start of its message."""
    text = str(exc).strip().splitlines()
    detail = f": {text[0][:200]}" if text and text[0] else ""
    return f"{type(exc).__name__}{detail}"


def with_traceback(exc: BaseException, message: str) -> str:
    """``message``, then on the next lines the traceback of ``exc`` from the bot's own frames
    (the referee's frame that called it is left out), bounded to ``MAX_TRACEBACK``."""
    try:
        tb = exc.__traceback__
        text = "".join(traceback.format_exception(type(exc), exc, tb.tb_next if tb else None))
    except BaseException:  # a hostile exception: its message is enough
        return message
    if len(text) > MAX_TRACEBACK:
        text = "...\n" + text[-MAX_TRACEBACK:]
    return f"{message}\n{text.rstrip()}"


def split_detail(message: str) -> tuple[str, str]:
    """(the one-line message, the traceback after it, if any)."""
    line, _, detail = message.partition("\n")
    return line, detail


def _safe_repr(value: Any) -> str:
    try:
        text = repr(value)
    except BaseException:
        text = f"<unprintable {type(value).__name__}>"
    return text if len(text) <= 80 else text[:77] + "..."


def classify(exc: BaseException, answer: Any, move_time: float) -> tuple[str, str]:
    """The fault kind and message of what a bot's call raised (``answer``: what it returned,
    ``NO_ANSWER`` if nothing). Call it while the deadline is still armed: describing an exception
    runs the bot's own ``__str__``, which may never return."""
    try:
        if isinstance(exc, MoveTimeout):
            return "timeout", f"no answer within {move_time:g} s"
        if isinstance(exc, ProgramFault):
            return exc.kind, str(exc)
        if isinstance(exc, ValueError) and answer is not NO_ANSWER:
            return "illegal", f"{_safe_repr(answer)} is not a legal action"
        if isinstance(exc, MemoryError):
            return "memory", describe(exc)
        return "exception", with_traceback(exc, describe(exc))
    except BaseException:
        return "exception", f"{type(exc).__name__} (its message could not be read)"


# What a game worker blames on a bot process (``execution.process.isolated_play``).
FORGERY = "it wrote to arena's side of its pipes itself; its process was killed"
LOST = "its bot object was lost"
UNDESCRIBED = ("exception", "a fault it did not describe")
PIPES_CLOSED = "its pipes to arena closed but its process did not end; it was killed"
# Why a bot cannot run in a process of its own (every seat of it forfeits with a ``crash``).
DID_NOT_START = "it did not start"
STOPPED_AT_ONCE = "it stopped at once"


def cannot_start_alone(bot: str, why: str) -> str:
    return f"bot {bot!r} cannot start in its own process: {why}"


def not_from_a_file(bot: str, source: str) -> str:
    return (
        f"bot {bot!r} ({source}) was not loaded from a file or an entry point, "
        "so it cannot run in its own process"
    )


def not_created(message: str) -> str:
    """The message of a bot whose creation faulted (``message``: that fault's)."""
    return f"could not be created: {message}"


def in_start(message: str) -> str:
    return f"in start(): {message}"


def in_end(message: str) -> str:
    return f"in end(): {message}"


def not_legal(index: object) -> str:
    """The message of an answer from a bot's process that is no index of a legal action."""
    return f"answer {index!r} is not a legal action"


def late(seconds: float, move_time: float) -> str:
    """The message of an answer that came, but past the time limit."""
    return f"answered after {seconds:.3f} s (limit {move_time:g} s)"


def past_bank(seconds: float, move_time: float, bank: float) -> str:
    """The message of a decision that took longer than its move time and its seat's time bank."""
    if bank <= 0.0:
        return f"took {seconds:.3f} s, past its move time ({move_time:g} s); its time bank is empty"
    return (
        f"took {seconds:.3f} s, past its move time ({move_time:g} s) and the {bank:.3f} s left "
        "in its time bank"
    )


def unresponsive(move_time: float) -> str:
    """The message of a bot whose process had to be killed to stop its decision."""
    return f"no answer within {move_time:g} s and could not be interrupted; its process was killed"


def late_answer(seconds: float, move_time: float) -> str:
    """The message of a decision the game worker saw its bot's process run past the time limit
    (``seconds``: at least as long as it saw it run)."""
    return f"still deciding after {seconds:.3f} s by arena's clock (limit {move_time:g} s)"


_EXCLUDED = " is excluded from the rest of this run: "


def excluded(bot: str, deaths: int) -> str:
    """Why a bot's remaining seats of the run forfeit: its processes kept failing."""
    return f"bot {bot!r}{_EXCLUDED}its process failed {deaths} times"


def is_exclusion(message: str) -> bool:
    """Whether a fault's message is that of an excluded bot (``excluded``)."""
    return message.startswith("bot ") and _EXCLUDED in message


def killed_by(signum: int) -> str:
    """``killed by SIGSEGV``: how a process that a signal ended is described."""
    try:
        return f"killed by {signal.Signals(signum).name}"
    except ValueError:
        return f"killed by signal {signum}"


def process_ended(exitcode: int | None, process: str = "its process") -> str:
    """How a process ended, by its exit code (negative: the signal): ``its process ended (exit
    code 3)``, ``its process was killed by SIGKILL``."""
    if exitcode is not None and exitcode < 0:
        return f"{process} was {killed_by(-exitcode)}"
    return f"{process} ended (exit code {exitcode})"


def out_of_cpu(signum: int, limit: int) -> str:
    """The message of a bot whose process was killed for its CPU-time limit."""
    return f"its process was {killed_by(signum)}: it used up its CPU-time limit of {limit} s"


class FaultBook:
    """The faults and forfeits of one game's seats."""

    __slots__ = ("faults", "forfeited", "log", "max_faults")

    def __init__(self, n: int, max_faults: int):
        self.faults = [0] * n
        self.forfeited = [False] * n  # by seat, changed in place (the referee's loop reads it)
        self.log: list[Fault] = []
        self.max_faults = max_faults

    def fault(self, seat: int, decision: int, kind: str, message: str) -> None:
        """A fault in play or in ``start()``: ``max_faults`` of them forfeit the game."""
        self.faults[seat] += 1
        self.log.append(Fault(seat, decision, kind, *split_detail(message)))
        if self.faults[seat] >= self.max_faults:
            self.forfeited[seat] = True

    def forfeit(self, seat: int, decision: int, kind: str, message: str) -> None:
        """A fault that forfeits the game at once (a bot that cannot be created, a dead process)."""
        self.fault(seat, decision, kind, message)
        self.forfeited[seat] = True

    def fault_at_end(self, seat: int, kind: str, message: str) -> None:
        """A fault in ``end()``: counted, but it cannot forfeit a game already over."""
        self.faults[seat] += 1
        self.log.append(Fault(seat, -1, kind, *split_detail(in_end(message))))


class Fallback:
    """The referee's own generator for fallback actions, seeded only when first needed."""

    __slots__ = ("seed", "rng")

    def __init__(self, seed: str):
        self.seed = seed
        self.rng: random.Random | None = None

    def choose(self, n: int) -> int:
        if self.rng is None:
            self.rng = random.Random(self.seed)
        return self.rng.randrange(n)
