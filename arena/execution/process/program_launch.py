"""Starts a bot program under the limits of a bot's own process, then becomes it.

Run as ``python -I -S .../program_launch.py`` (inside the bubblewrap sandbox when there is one, its
memory limit already set by the parent): it sets the CPU-time limit and the process cap, installs
the signal filter of ``execution.process.sandbox`` (which the program inherits through ``exec``:
it may signal nobody but itself) and executes the program named in its configuration, in the
environment given there (not arena's). A bot's
Python process does the same to itself before importing the bot (``execution.process.bot_host``).

It is run as a file, without ``site`` and without importing ``arena`` (which would cost a
restarted program a third of a second): it loads ``sandbox.py`` alone, beside it.
"""

from __future__ import annotations

import ctypes
import importlib.util
import json
import os
import resource
import signal
import sys

LAUNCH_ENV = "ARENA_PROGRAM_LAUNCH"
PATH = os.path.abspath(__file__)


def _sandbox():
    spec = importlib.util.spec_from_file_location(
        "arena_program_sandbox", os.path.join(os.path.dirname(PATH), "sandbox.py")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    config = json.loads(os.environ.pop(LAUNCH_ENV))
    processes = int(config.get("processes", 0))
    try:  # die with the parent (``execution.child_process.die_with_parent``)
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    if not processes and os.getppid() == 1:  # (its parent died already; sandboxed: pid 1 is it)
        os._exit(1)
    if config.get("cpu"):
        seconds = int(config["cpu"])
        resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))
    if processes > 1:  # (``bubblewrap.confine``)
        resource.setrlimit(resource.RLIMIT_NPROC, (processes, processes))
    _sandbox().signal_only_self(no_processes=processes == 1)
    argv = config["argv"]
    try:
        os.execve(argv[0], argv, config["env"])
    except OSError as exc:
        print(f"arena: cannot execute {argv[0]}: {exc}", file=sys.stderr)
        os._exit(127)


if __name__ == "__main__":
    main()
