"""Starts a bot program under the limits of a bot's own process, then becomes it.

Run as ``python -m arena.execution.process.program_launch`` (inside the bubblewrap sandbox when
there is one, its memory limit already set by the parent): it sets the CPU-time limit and the
process cap, installs the signal filter of ``execution.process.sandbox`` (which the program
inherits through ``exec``: it may signal nobody but itself) and executes the program named in its
configuration. A bot's Python process does the same to itself before importing the bot
(``execution.process.bot_host``).
"""

from __future__ import annotations

import json
import os
import resource
import sys

from arena.execution.child_process import die_with_parent
from arena.execution.process.bubblewrap import confine
from arena.execution.process.sandbox import signal_only_self

LAUNCH_ENV = "ARENA_PROGRAM_LAUNCH"


def main() -> None:
    config = json.loads(os.environ.pop(LAUNCH_ENV))
    processes = int(config.get("processes", 0))
    die_with_parent(orphan_check=not processes)
    if config.get("cpu"):
        seconds = int(config["cpu"])
        resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))
    confine(processes)
    signal_only_self(no_processes=processes == 1)
    argv = config["argv"]
    try:
        os.execv(argv[0], argv)
    except OSError as exc:
        print(f"arena: cannot execute {argv[0]}: {exc}", file=sys.stderr)
        os._exit(127)


if __name__ == "__main__":
    main()
