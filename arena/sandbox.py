"""A bot process may signal nobody but itself (``--isolation process``, Linux x86-64 and arm64).

A bot runs as the same user as arena, so without this it could ``os.kill`` its game worker (its
parent), the run itself, or any other bot process, and the run could not blame it. A seccomp
filter, installed before the bot's file is imported and inherited by anything it starts, makes
every way of sending a signal fail with ``EPERM`` unless the target is this very process:
``kill``, ``tkill``, ``tgkill`` and the ``rt_*sigqueueinfo`` calls are checked against this
process's id (``kill(0, ...)`` and process groups are refused too); ``pidfd_send_signal``,
``ptrace`` and ``process_vm_writev`` are refused outright. The bot then meets a
``PermissionError``, a fault like any other. Everything else is allowed: this is a guard against
one bot spoiling the run, not a sandbox for code that attacks the machine.
"""

from __future__ import annotations

import ctypes
import os
import platform

_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
_RET_ALLOW = 0x7FFF0000
_RET_EPERM = 0x00050000 | 1
_LD_ABS_W = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_RET = 0x06  # BPF_RET | BPF_K
_NR, _ARCH, _ARG0 = 0, 4, 16  # offsets in struct seccomp_data (little-endian: arg 0's low word)
_X32_BIT = 0x40000000  # x86-64's x32 system calls: refused, arena never makes them

# machine -> (audit arch, calls whose first argument must be this process, calls refused)
_SYSCALLS = {
    "x86_64": (0xC000003E, (62, 200, 234, 129, 297), (424, 101, 311)),
    "aarch64": (0xC00000B7, (129, 130, 131, 138, 240), (424, 117, 271)),
}


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


def filter_program(machine: str, pid: int) -> list[tuple[int, int, int, int]]:
    """The BPF program as (code, jump if true, jump if false, constant) rows."""
    arch, own_pid_only, refused = _SYSCALLS[machine]
    checks = len(own_pid_only) + len(refused)
    # Rows: 0 load arch, 1 arch?, 2 refuse, 3 load nr, 4 x32?, the checks, allow,
    # load the first argument, this pid?, allow, refuse.
    allow = 5 + checks
    check_pid = allow + 1
    refuse_at_end = check_pid + 3
    rows = [
        (_LD_ABS_W, 0, 0, _ARCH),
        (_JEQ, 1, 0, arch),
        (_RET, 0, 0, _RET_EPERM),  # a system call of another architecture's table
        (_LD_ABS_W, 0, 0, _NR),
        (_JGE, refuse_at_end - 5, 0, _X32_BIT),
    ]
    for nr in own_pid_only:
        rows.append((_JEQ, check_pid - len(rows) - 1, 0, nr))
    for nr in refused:
        rows.append((_JEQ, refuse_at_end - len(rows) - 1, 0, nr))
    rows += [
        (_RET, 0, 0, _RET_ALLOW),
        (_LD_ABS_W, 0, 0, _ARG0),
        (_JEQ, 0, 1, pid & 0xFFFFFFFF),
        (_RET, 0, 0, _RET_ALLOW),
        (_RET, 0, 0, _RET_EPERM),
    ]
    assert len(rows) == refuse_at_end + 1
    return rows


def signal_only_self() -> bool:
    """Install the filter on this process (for good); False where that cannot be done."""
    if not supported():
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        rows = filter_program(platform.machine(), os.getpid())
        instructions = (_Instruction * len(rows))(*rows)
        program = _Program(len(rows), instructions)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, ctypes.c_ulong(1), 0, 0, 0) != 0:
            return False
        arg = ctypes.cast(ctypes.byref(program), ctypes.c_void_p)
        return libc.prctl(_PR_SET_SECCOMP, ctypes.c_ulong(_SECCOMP_MODE_FILTER), arg, 0, 0) == 0
    except (OSError, AttributeError):
        return False
