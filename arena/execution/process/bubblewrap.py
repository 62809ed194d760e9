"""The bubblewrap sandbox around a bot's process and a bot file's loading process (Linux).

``--isolation process`` starts each bot (and each loading of a bot file) as ``python -m …``. With
``bwrap`` (Debian's ``bubblewrap``, the sandbox Flatpak uses) that command runs in namespaces of
its own, where it sees:

- read-only, the Python installation (``sys.prefix`` and the base installation), the ``arena``
  package itself (not the rest of a checkout), the user's site-packages, the system libraries
  (``/usr``, ``/lib*``, ``/etc/ld.so.cache``, ``/etc/localtime``) and the bot's own folder;
- a private, empty ``/tmp``; a fresh ``/proc`` of a PID namespace of its own (no other process
  of the machine, nor their command lines, nor their pipes); a minimal, read-only ``/dev`` with
  an empty ``/dev/shm`` (``/tmp`` and ``/dev/shm`` at most ``TMPFS_MIB`` each);
- no network at all (an empty network namespace: not even 127.0.0.1 reaches anything);
- uid and gid 65534 (nobody) inside a user namespace of its own, even when arena runs as root.

Nothing else exists there: not the results database, not ``leaderboard/``, not the rest of the
checkout or of the user's files. Folders named in ``SandboxSettings.hidden`` (the database's
folder) are covered by an empty tmpfs should they lie inside one of those paths.

The memory limit (``RLIMIT_AS``) is set in the child before ``bwrap`` is executed, so it holds
from the first byte, before the bot file is imported. The number of processes is capped inside
(``process_cap``): a bot may not multiply its memory limit by starting processes without end.

``bwrap`` is looked for on ``PATH`` and tried once per process (``probe``, cached): a run forks
its workers after the check, so they inherit it. Without it, or where user namespaces are off,
the bot processes run as before (the memory limit still before import, the seccomp filter of
``sandbox``) and ``describe`` says what is missing.
"""

from __future__ import annotations

import functools
import os
import resource
import shutil
import site
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

NOBODY = 65534
PROCESS_CAP = 16  # tasks (processes and threads) in one sandbox, its init and the host included
PROBE_SECONDS = 10.0
# Each private tmpfs (/tmp, /dev/shm) holds at most this: its files are the machine's memory,
# which RLIMIT_AS does not count (bubblewrap 0.8+; older ones mount them unbounded).
TMPFS_MIB = 256
MODES = ("auto", "bwrap", "none")
ENV = "ARENA_SANDBOX"  # the default of --sandbox
INSTALL_HINT = "apt-get install bubblewrap"


class SandboxError(Exception):
    """``--sandbox bwrap`` was asked for and cannot be had; one line for the user."""


@dataclass(frozen=True)
class SandboxSettings:
    """How bot processes are sandboxed: ``mode`` (``auto``: bubblewrap if it works; ``bwrap``:
    bubblewrap or an error; ``none``) and folders they must never see, even inside a path the
    sandbox shows (the database's folder)."""

    mode: str = "auto"
    hidden: tuple[str, ...] = ()


def default_mode() -> str:
    mode = os.environ.get(ENV, "auto").strip().lower() or "auto"
    return mode if mode in MODES else "auto"


def bwrap_path() -> str | None:
    return shutil.which("bwrap")


def process_cap() -> int:
    """Processes (and threads) one sandboxed bot may have. As root the kernel ignores
    ``RLIMIT_NPROC`` (real uid 0 stays uid 0 under the user namespace's mapping), so a sandboxed
    bot of a root run may start no process at all (1: the seccomp filter refuses ``fork``)."""
    return 1 if os.geteuid() == 0 else PROCESS_CAP


@functools.cache
def probe(bwrap: str | None) -> str | None:
    """None if ``bwrap`` runs Python here with every protection; else why not (one line)."""
    if bwrap is None:
        return "bubblewrap not found"
    command = _bwrap_arguments(bwrap, [], ()) + [sys.executable, "-I", "-S", "-c", "pass"]
    try:
        done = subprocess.run(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            timeout=PROBE_SECONDS,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bubblewrap does not run ({type(exc).__name__})"
    if done.returncode != 0:
        why = done.stderr.decode(errors="replace").strip().splitlines()
        return f"bubblewrap does not work here ({why[-1] if why else done.returncode})"
    return None


@functools.cache
def sizes_tmpfs(bwrap: str | None) -> bool:
    """Whether this ``bwrap`` bounds a tmpfs (``--size``, bubblewrap 0.8 and later)."""
    if bwrap is None:
        return False
    try:
        done = subprocess.run(
            [bwrap, "--help"], capture_output=True, timeout=PROBE_SECONDS, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return b"--size" in done.stdout + done.stderr


def active(settings: SandboxSettings) -> bool:
    """Whether bot processes run under bubblewrap with these settings; SandboxError if ``bwrap``
    is required and does not work."""
    if settings.mode == "none":
        return False
    problem = probe(bwrap_path())
    if problem is not None and settings.mode == "bwrap":
        raise SandboxError(f"--sandbox bwrap: {problem} ({INSTALL_HINT})")
    return problem is None


def describe(settings: SandboxSettings, memory_mib: int) -> str:
    """The one line saying which protections bot processes have."""
    memory = f"memory {memory_mib} MiB before import"
    if active(settings):
        cap = process_cap()
        processes = "no processes of its own" if cap == 1 else f"≤ {cap} processes"
        return (
            f"sandbox: bubblewrap (no network, private /proc, no view of the database, "
            f"uid {NOBODY}, {memory}, {processes}), seccomp signals"
        )
    why = "--sandbox none" if settings.mode == "none" else probe(bwrap_path())
    return (
        f"sandbox: none ({why}): {memory}, seccomp signals; missing: no network, private /proc, "
        f"no view of the database, unprivileged uid, process cap ({INSTALL_HINT})"
    )


def wrap(
    command: list[str],
    files: list[str],
    settings: SandboxSettings,
    exact: list[str] = (),
    writable: list[str] = (),
    folder: str | None = None,
    memory: int = 0,
) -> list[str]:
    """``command`` (a ``python -m …`` of arena) as bubblewrap runs it, seeing ``files`` (the bot
    files, and their folders) besides Python and arena; ``exact``, files or folders shown as
    themselves alone (never their folder), and ``writable``, folders it may write into; it runs
    in ``folder`` (made empty, writable, in its private ``/tmp``; default ``/tmp`` itself). Each
    of its tmpfs folders holds at most ``TMPFS_MIB``, and no more than its ``memory`` limit."""
    args = _bwrap_arguments(bwrap_path() or "bwrap", files, settings.hidden, memory)
    if folder is not None:
        args[args.index("--chdir") + 1] = folder
        args += ["--dir", folder]
    for path in exact:
        for name in {os.path.abspath(path), os.path.realpath(path)}:
            args += ["--ro-bind", os.path.realpath(path), name]
    for path in writable:
        for name in {os.path.abspath(path), os.path.realpath(path)}:
            args += ["--bind", os.path.realpath(path), name]
    return args + command


def start(
    command: list[str], files: list[str], settings: SandboxSettings, memory: int, **popen
) -> tuple[subprocess.Popen, bool]:
    """(the process running ``command``, whether it is sandboxed): under bubblewrap if
    ``settings`` say so, with the memory limit (bytes) set before anything is executed, and its
    output nowhere (a bot prints into the void: arena's output is arena's)."""
    wrapped = active(settings)
    process = subprocess.Popen(
        wrap(command, files, settings, memory=memory) if wrapped else command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own process group: killed with whatever it started
        preexec_fn=limit_memory(memory),
        **popen,
    )
    return process, wrapped


def confine(processes: int) -> None:
    """In the sandboxed process, before any bot code: at most ``processes`` tasks (0: no cap;
    1: none but this one and its threads, by the seccomp filter)."""
    if processes > 1:
        resource.setrlimit(resource.RLIMIT_NPROC, (processes, processes))


def limit_memory(limit: int):
    """A ``preexec_fn`` setting the address-space limit (bytes; 0: none) before ``exec``."""

    def preexec() -> None:
        if limit > 0:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return preexec


def exit_code(code: int, wrapped: bool) -> int:
    """A wrapped process's exit code as Popen would give the bot's own: ``bwrap`` exits with
    128 + the signal that killed what it ran."""
    if wrapped and 128 < code < 128 + 65:
        return -(code - 128)
    return code


def _bwrap_arguments(
    bwrap: str, files: list[str], hidden: tuple[str, ...], memory: int = 0
) -> list[str]:
    args = [bwrap, "--unshare-user", "--uid", str(NOBODY), "--gid", str(NOBODY)]
    # --new-session is left out: the bot's process group, which the worker kills, must stay the
    # one Popen's start_new_session made (a new session is also a new group). That session has
    # no terminal, and the seccomp filter refuses TIOCSTI anyway.
    args += ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"]
    # Files written in the sandbox's own folders are memory: /tmp and /dev/shm are bounded,
    # /dev itself read-only (its nodes still work).
    cap = TMPFS_MIB << 20 if memory <= 0 else min(TMPFS_MIB << 20, memory)
    size = ["--size", str(cap)] if sizes_tmpfs(bwrap) else []
    args += ["--die-with-parent", "--proc", "/proc", "--dev", "/dev"]
    args += [*size, "--tmpfs", "/dev/shm", "--remount-ro", "/dev", *size, "--tmpfs", "/tmp"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
    binds = _visible_folders(files)
    for folder in binds:
        args += ["--ro-bind", folder, folder]
    for etc in ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/localtime"):
        args += ["--ro-bind-try", etc, etc]
    for folder in hidden:
        folder = os.path.realpath(folder)
        if any(_inside(folder, b) for b in binds):
            args += [*size, "--tmpfs", folder]
    for file in files:  # the files themselves, even inside a hidden folder
        real = os.path.realpath(file)
        args += ["--ro-bind", real, real]
    return args + ["--chdir", "/tmp"]


def _visible_folders(files: list[str]) -> list[str]:
    """The folders bound read-only, outermost only, in order."""
    import arena

    wanted = {"/usr", str(Path(arena.__file__).resolve().parent)}
    for prefix in (sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix):
        wanted.add(prefix)
    wanted.add(os.path.dirname(sys.executable))
    user_site = site.getusersitepackages() if site.ENABLE_USER_SITE else None
    if user_site:
        wanted.add(user_site)
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if not os.path.islink(top):
            wanted.add(top)
    wanted.update(os.path.dirname(os.path.realpath(f)) for f in files)
    # (and the folder it was found in, should the file be a symlink to another)
    wanted.update(os.path.dirname(os.path.abspath(f)) for f in files)
    found = [p for p in wanted if p and os.path.isdir(p)]
    # both the path as named and where it leads (a symlinked prefix is used by either name)
    real = sorted({os.path.abspath(p) for p in found} | {os.path.realpath(p) for p in found})
    real = [p for p in real if p != "/"]
    outermost: list[str] = []
    for path in real:  # sorted: a folder comes right before what it holds
        if not any(_inside(path, kept) for kept in outermost):
            outermost.append(path)
    return outermost


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")
