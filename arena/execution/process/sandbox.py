"""A bot process may signal nobody but itself (``--isolation process``, Linux x86-64 and arm64).

A bot runs as the same user as arena, so without this it could ``os.kill`` its game worker (its
parent), the run itself, or any other bot process, and the run could not blame it. A seccomp
filter, installed before the bot's file is imported and inherited by anything it starts, makes
every way of sending a signal fail with ``EPERM`` unless the target is this very process:

- ``kill``, ``tkill``, ``tgkill`` and the ``rt_*sigqueueinfo`` calls must name this process
  (``kill(0, ...)`` and process groups are refused too);
- ``fcntl`` may not make another process the owner of a file (``F_SETOWN``, ``F_SETOWN_EX``) nor
  choose the signal it gets (``F_SETSIG``), and ``ioctl`` may not do the same (``FIOSETOWN``,
  ``SIOCSPGRP``), change the terminal's foreground group or type into it (``TIOCSTI``);
- ``pidfd_open``, ``pidfd_getfd``, ``pidfd_send_signal``, ``ptrace``, ``process_vm_readv``,
  ``process_vm_writev`` and ``process_madvise`` are refused outright: no reaching into another
  process's memory or files that way;
- ``memfd_create`` is refused: a memory file is memory that ``--bot-memory`` (``RLIMIT_AS``)
  counts only where it is mapped, and a bot could write gigabytes into one;
- ``prlimit64`` and the ``sched_set*`` calls may change only this process (a CPU limit set on the
  worker would kill it); ``setpriority``, ``ioprio_set``, ``migrate_pages`` and ``move_pages``
  are refused; so are ``setsid`` and ``setpgid``, so that whatever the bot starts stays in its
  process group, which the worker kills with it.

A consequence for bot writers: a bot can start processes, but cannot signal them (nor can they
signal themselves), so it cannot stop them early; they end when the bot's process does.

The bot then meets a ``PermissionError``, a fault like any other. Everything else is allowed:
this is a guard against one bot spoiling the run, not a sandbox for code that attacks the machine.
The game workers and the bot processes also make themselves non-dumpable (``no_memory_access``),
so that a process of the same user cannot read their memory through ``/proc/PID/mem`` (a root
process still can).
"""

from __future__ import annotations

import ctypes
import os
import platform

_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_DUMPABLE = 4
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
_RET_ALLOW = 0x7FFF0000
_RET_EPERM = 0x00050000 | 1
_LD_ABS_W = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_JSET = 0x45  # BPF_JMP | BPF_JSET | BPF_K
_RET_EAGAIN = 0x00050000 | 11
_RET_ENOSYS = 0x00050000 | 38
_CLONE3 = 435  # the same number on both machines
_CLONE_THREAD = 0x00010000
_RET = 0x06  # BPF_RET | BPF_K
_NR, _ARCH, _ARG0, _ARG1 = 0, 4, 16, 24  # offsets in struct seccomp_data (arguments' low words)
_X32_BIT = 0x40000000  # x86-64's x32 system calls: refused, arena never makes them

# machine -> audit arch, and the numbers of the calls the filter looks at
_SYSCALLS = {
    "x86_64": {
        "arch": 0xC000003E,
        # the first argument must be this process: kill, tkill, tgkill, rt_(tg)sigqueueinfo
        "own_pid_only": (62, 200, 234, 129, 297),
        # refused: pidfd_send_signal, pidfd_open, pidfd_getfd, ptrace, process_vm_readv/writev,
        # process_madvise
        "refused": (424, 434, 438, 101, 310, 311, 440)
        # ... and setpriority, ioprio_set, migrate_pages, move_pages (they take any process of
        # the user), setsid, setpgid (a bot's children stay in its process group, which the
        # worker kills with it)
        + (141, 251, 256, 279, 112, 109)
        # ... and memfd_create: a memory file's pages count against RLIMIT_AS only when mapped,
        # so writing to one took memory past --bot-memory without end; and for the same reason
        # System V shared memory: shmget, shmat (a segment outlives its process without a sandbox)
        + (319, 29, 30),
        # the first argument must be 0 or this process: prlimit64, sched_setparam,
        # sched_setscheduler, sched_setaffinity, sched_setattr (a CPU limit or a starved
        # schedule set on the worker would stop it, and the run could not blame the bot)
        "self_only": (302, 142, 144, 203, 314),
        "fcntl": 72,
        "ioctl": 16,
        "clone": 56,
        "fork": (57, 58),  # fork, vfork
    },
    "aarch64": {
        "arch": 0xC00000B7,
        "own_pid_only": (129, 130, 131, 138, 240),
        "refused": (424, 434, 438, 117, 270, 271, 440)
        + (140, 30, 238, 239, 157, 154)
        + (279, 194, 196),
        "self_only": (261, 118, 119, 122, 274),
        "fcntl": 25,
        "ioctl": 29,
        "clone": 220,
        "fork": (),  # (no fork nor vfork call: glibc's fork is clone)
    },
}
# fcntl commands that make the kernel signal another process later: F_SETOWN, F_SETSIG,
# F_SETOWN_EX (a file's owner gets SIGIO, or any chosen signal, when it becomes ready)
_FCNTL_REFUSED = (8, 10, 15)
# ioctl requests: FIOSETOWN and SIOCSPGRP (the same, for sockets), TIOCSPGRP (the terminal's
# foreground group, which Ctrl-C signals), TIOCSTI (typing into the user's terminal)
_IOCTL_REFUSED = (0x8901, 0x8902, 0x5410, 0x5412)


class _Instruction(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_ushort),
        ("jt", ctypes.c_ubyte),
        ("jf", ctypes.c_ubyte),
        ("k", ctypes.c_uint32),
    ]


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_Instruction))]


def supported() -> bool:
    return platform.system() == "Linux" and platform.machine() in _SYSCALLS


def filter_program(
    machine: str, pid: int, no_processes: bool = False
) -> list[tuple[int, int, int, int]]:
    """The BPF program as (code, jump if true, jump if false, constant) rows. ``no_processes``:
    new threads only, no new process (``fork``, ``vfork`` and a ``clone`` without
    ``CLONE_THREAD`` fail with ``EAGAIN``, as at a process limit; ``clone3``, whose flags a filter
    cannot read, with ``ENOSYS``, so that the C library falls back to ``clone``)."""
    calls = _SYSCALLS[machine]
    # Rows with labels for jump targets ("next" is the row after), resolved below.
    program: list = [
        (_LD_ABS_W, None, None, _ARCH),
        (_JEQ, "next", "refuse", calls["arch"]),  # another architecture's system call table
        (_LD_ABS_W, None, None, _NR),
        (_JGE, "refuse", "next", _X32_BIT),
    ]
    program += [(_JEQ, "check pid", "next", nr) for nr in calls["own_pid_only"]]
    program += [(_JEQ, "refuse", "next", nr) for nr in calls["refused"]]
    program += [(_JEQ, "check self", "next", nr) for nr in calls["self_only"]]
    if no_processes:
        program += [(_JEQ, "too many", "next", nr) for nr in calls["fork"]]
        program += [(_JEQ, "no such call", "next", _CLONE3)]
        program += [(_JEQ, "check clone", "next", calls["clone"])]
    program += [
        (_JEQ, "check fcntl", "next", calls["fcntl"]),
        (_JEQ, "check ioctl", "next", calls["ioctl"]),
        (_RET, None, None, _RET_ALLOW),
        *(
            [
                "check clone",
                (_LD_ABS_W, None, None, _ARG0),
                (_JSET, "allow", "too many", _CLONE_THREAD),
            ]
            if no_processes
            else []
        ),
        "check pid",
        (_LD_ABS_W, None, None, _ARG0),
        (_JEQ, "allow", "refuse", pid & 0xFFFFFFFF),
        "check self",
        (_LD_ABS_W, None, None, _ARG0),
        (_JEQ, "allow", "next", 0),
        (_JEQ, "allow", "refuse", pid & 0xFFFFFFFF),
        "check fcntl",
        (_LD_ABS_W, None, None, _ARG1),
        *[(_JEQ, "refuse", "next", cmd) for cmd in _FCNTL_REFUSED],
        (_RET, None, None, _RET_ALLOW),
        "check ioctl",
        (_LD_ABS_W, None, None, _ARG1),
        *[(_JEQ, "refuse", "next", request) for request in _IOCTL_REFUSED],
        "allow",
        (_RET, None, None, _RET_ALLOW),
        "refuse",
        (_RET, None, None, _RET_EPERM),
    ]
    if no_processes:  # (jumps go forward only: these after every row that jumps to them)
        program += ["too many", (_RET, None, None, _RET_EAGAIN)]
        program += ["no such call", (_RET, None, None, _RET_ENOSYS)]
    labels, rows = {}, []
    for entry in program:
        if isinstance(entry, str):
            labels[entry] = len(rows)
        else:
            rows.append(entry)

    def jump(target, index: int) -> int:
        if target is None or target == "next":
            return 0
        return labels[target] - index - 1

    return [(code, jump(jt, i), jump(jf, i), k) for i, (code, jt, jf, k) in enumerate(rows)]


def signal_only_self(no_processes: bool = False) -> bool:
    """Install the filter on this process (for good); False where that cannot be done."""
    if not supported():
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        rows = filter_program(platform.machine(), os.getpid(), no_processes)
        instructions = (_Instruction * len(rows))(*rows)
        program = _Program(len(rows), instructions)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, ctypes.c_ulong(1), 0, 0, 0) != 0:
            return False
        arg = ctypes.cast(ctypes.byref(program), ctypes.c_void_p)
        return libc.prctl(_PR_SET_SECCOMP, ctypes.c_ulong(_SECCOMP_MODE_FILTER), arg, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def no_memory_access() -> None:
    """Make this process non-dumpable: other processes of the same user (not root) can then
    neither ptrace it nor read ``/proc/PID/mem``. For the game workers, which hold game states."""
    if platform.system() != "Linux":
        return
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_DUMPABLE, ctypes.c_ulong(0), 0, 0, 0)
    except (OSError, AttributeError):
        pass
