"""arena.execution.process.sandbox: a bot process (``--isolation process``) may signal only itself."""

from __future__ import annotations

import subprocess
import sys

import pytest

from arena.execution.process import sandbox

pytestmark = pytest.mark.skipif(not sandbox.supported(), reason="Linux x86-64 or arm64 only")

# Signal 0 only checks that a signal could be sent, and the other calls set what is already set:
# nothing is harmed if the filter fails.
PROBE = r"""
import fcntl, os, resource, signal, subprocess, termios, threading
from arena.execution.process.sandbox import signal_only_self

print("installed", signal_only_self())
os.kill(os.getpid(), 0)
print("self", "allowed")
signal.signal(signal.SIGUSR1, lambda *a: print("thread signal", "allowed"))
signal.pthread_kill(threading.main_thread().ident, signal.SIGUSR1)  # the watchdog's way
def sysv_segment():
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    segment = libc.shmget(0, 4096, 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0600
    if segment < 0:
        raise OSError(ctypes.get_errno(), "shmget")
    libc.shmctl(segment, 0, None)  # IPC_RMID: no segment is left behind if it was allowed
for what, send in [
    ("parent", lambda: os.kill(os.getppid(), 0)),
    ("group", lambda: os.killpg(os.getpgrp(), 0)),
    ("everyone-in-group", lambda: os.kill(0, 0)),
    ("init", lambda: os.kill(1, 0)),
    ("file owner", lambda: fcntl.fcntl(os.pipe()[0], fcntl.F_SETOWN, os.getppid())),
    ("terminal typing", lambda: fcntl.ioctl(0, termios.TIOCSTI, b"x")),
    ("memory", lambda: os.pidfd_open(os.getppid())),
    # Each of these only reads or sets what is already there: harmless without the filter.
    ("parent's limits", lambda: resource.prlimit(os.getppid(), resource.RLIMIT_CPU)),
    ("own limits", lambda: resource.setrlimit(resource.RLIMIT_CORE, (0, 0))),
    ("parent's schedule", lambda: os.sched_setaffinity(os.getppid(), os.sched_getaffinity(0))),
    ("own schedule", lambda: os.sched_setaffinity(0, os.sched_getaffinity(0))),
    ("priority", lambda: os.setpriority(os.PRIO_PROCESS, os.getppid(), os.getpriority(os.PRIO_PROCESS, os.getppid()))),
    ("new session", lambda: os.setsid()),
    # memory outside RLIMIT_AS: a memfd's pages are counted only when mapped, never written
    ("memory file", lambda: os.memfd_create("fill")),
    ("shared memory segment", sysv_segment),
]:
    try:
        send()
        print(what, "allowed")
    except PermissionError:
        print(what, "refused")
    except OSError:  # passed the filter, stopped by the kernel's own checks (e.g. not a tty)
        print(what, "allowed")
shell = subprocess.run(["sh", "-c", f"kill -0 {os.getppid()}"], capture_output=True)
print("child process", "refused" if shell.returncode else "allowed")
"""


def test_a_filtered_process_may_signal_itself_and_nobody_else():
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    seen = dict(line.rsplit(" ", 1) for line in done.stdout.splitlines())
    assert seen == {
        "installed": "True",
        "self": "allowed",
        "thread signal": "allowed",
        "parent": "refused",
        "group": "refused",
        "everyone-in-group": "refused",
        "init": "refused",
        "file owner": "refused",
        "terminal typing": "refused",
        "memory": "refused",
        "parent's limits": "refused",
        "own limits": "allowed",
        "parent's schedule": "refused",
        "own schedule": "allowed",
        "priority": "refused",
        "new session": "refused",
        "memory file": "refused",
        "shared memory segment": "refused",
        "child process": "refused",
    }


def test_without_the_filter_the_probe_is_allowed_everything():
    """The probe itself can tell: unfiltered, signalling the parent works."""
    probe = PROBE.replace("signal_only_self()", "False")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert "parent allowed" in done.stdout and "child process allowed" in done.stdout


@pytest.mark.parametrize("machine", ["x86_64", "aarch64"])
def test_the_filter_program_jumps_stay_inside_it(machine):
    rows = sandbox.filter_program(machine, 4242)
    for index, (code, jt, jf, _) in enumerate(rows):
        if code in (0x15, 0x35):
            assert index + 1 + jt < len(rows) and index + 1 + jf < len(rows)
    assert rows[-1][0] == 0x06 and rows[-2][0] == 0x06  # it ends in returns


NO_PROCESSES = r"""
import os, subprocess, threading
from arena.execution.process.sandbox import signal_only_self

print("installed", signal_only_self(no_processes=True))
seen = []
thread = threading.Thread(target=lambda: seen.append(1))
thread.start()
thread.join()
print("thread", "allowed" if seen else "refused")
for what, start in [
    ("fork", lambda: os.fork() or os.wait()),
    ("subprocess", lambda: subprocess.run(["true"])),
]:
    try:
        if start() == 0:  # (the child of a fork that was allowed)
            os._exit(0)
        print(what, "allowed")
    except BlockingIOError:  # EAGAIN, as at a process limit
        print(what, "refused")
"""


def test_a_process_filtered_with_no_processes_may_start_threads_but_no_process():
    """The process cap of a sandboxed bot of a root run (the kernel ignores RLIMIT_NPROC there)."""
    done = subprocess.run(
        [sys.executable, "-c", NO_PROCESSES], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    seen = dict(line.rsplit(" ", 1) for line in done.stdout.splitlines())
    assert seen == {
        "installed": "True",
        "thread": "allowed",
        "fork": "refused",
        "subprocess": "refused",
    }
