"""A child process of the run ends with its parent; apart from ``workers`` so that a bot's own
process need not import ``multiprocessing`` to use it (every bot process starts by importing)."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path


def die_with_parent(orphan_check: bool = True) -> None:
    """Ask Linux to kill this process when its parent dies (a ``kill -9`` of the run leaves no
    orphans behind). Elsewhere a no-op: orphans then end when their pipes close.
    ``orphan_check``: a parent of pid 1 means it has died already (not so in a PID namespace,
    whose pid 1 is the parent)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    if orphan_check and os.getppid() == 1:  # the parent died before we asked
        os._exit(1)


def child_environment(variable: str, config: dict) -> dict[str, str]:
    """The environment of a fresh ``python -m arena.<module>`` child (a bot process, a loading
    process): this one, with ``config`` as JSON in ``variable`` and this arena importable first."""
    env = dict(os.environ)
    env[variable] = json.dumps(config)
    package_root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    return env
