"""What the bots of a run start ends with the run (Linux), in every mode.

In the shared mode bots run inside the game workers, and a bot may start processes of its own
(``subprocess``, ``os.fork``, a daemon that leaves its session): when its worker ends, they would
live on as orphans. ``Descendants`` makes the run's process a *child subreaper*
(``PR_SET_CHILD_SUBREAPER``) while the backend plays: an orphan of any process started below it is
given to the run, not to the system's init. At the end, every child of the run's process that was
not there at the beginning is killed (``SIGKILL``) and reaped, generation after generation (a
killed process's own children then become the run's). A process cannot leave the run's subtree:
only the kernel's subreaper chain decides where orphans go.

Elsewhere (not Linux) it does nothing.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

_PR_SET_CHILD_SUBREAPER = 36
_PR_GET_CHILD_SUBREAPER = 37
GENERATIONS = 64  # rounds of killing: a chain deeper than this outlives the run


def _prctl():
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


def children(pid: int | None = None) -> set[int]:
    """The processes whose parent is ``pid`` (default: this one), zombies included."""
    pid = os.getpid() if pid is None else pid
    found = set()
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may hold spaces and parentheses, the last ")" ends it
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 1 and int(fields[1]) == pid:
            found.add(int(entry))
    return found


class Descendants:
    """A context manager: everything started below this process while inside ends at exit."""

    def __init__(self):
        self.prctl = _prctl()
        self.before: set[int] = set()
        self.was_subreaper = 0

    def __enter__(self) -> Descendants:
        if self.prctl is None:
            return self
        flag = ctypes.c_int(0)
        self.prctl(_PR_GET_CHILD_SUBREAPER, ctypes.byref(flag), 0, 0, 0)
        self.was_subreaper = flag.value
        self.prctl(_PR_SET_CHILD_SUBREAPER, ctypes.c_ulong(1), 0, 0, 0)
        self.before = children()
        return self

    def __exit__(self, *exc) -> None:
        if self.prctl is None:
            return
        for _ in range(GENERATIONS):
            left = children() - self.before
            if not left:
                break
            for pid in left:
                _kill_and_reap(pid)
        self.prctl(_PR_SET_CHILD_SUBREAPER, ctypes.c_ulong(self.was_subreaper), 0, 0, 0)


def _kill_and_reap(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
    try:
        os.waitpid(pid, 0)
    except (ChildProcessError, OSError):
        pass
