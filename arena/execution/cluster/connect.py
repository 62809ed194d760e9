"""Ray itself: importing it lazily, joining or starting an instance, what the cluster holds."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass

from arena.execution.workers import WorkerError

INSTALL_HINT = "pip install 'arena[ray]'"
NOT_INSTALLED = f"--backend ray needs Ray, which is not installed: {INSTALL_HINT}"


def import_ray():
    """The ``ray`` module, or a one-line ``WorkerError`` saying how to install it."""
    try:
        import ray
    except ImportError:
        raise WorkerError(
            f"--backend ray needs Ray, which is not installed: {INSTALL_HINT}"
        ) from None
    return ray


def ray_installed() -> bool:
    import importlib.util

    return importlib.util.find_spec("ray") is not None


@dataclass
class Session:
    """This process's connection to Ray, for one run (``close`` disconnects, and ends a local
    instance it started)."""

    where: str
    started: bool

    @classmethod
    def open(cls, address: str | None, folder: str) -> Session:
        """Join the cluster at ``address`` (``auto``: the one ``ray start`` began on this
        machine; None: ``$RAY_ADDRESS`` if set), else start a local instance. ``folder`` is
        shipped to every node and each worker of the run starts in it (Ray takes a folder to
        upload only when joining)."""
        ray = import_ray()
        if ray.is_initialized():
            raise WorkerError(
                "this process is connected to Ray already: arena joins the cluster itself (to "
                "ship the bot files), so give it the address and disconnect first"
            )
        address = address or os.environ.get("RAY_ADDRESS") or None
        if address:
            _check_reachable(address)
        settings = {"runtime_env": {"working_dir": folder}, "logging_level": logging.ERROR}
        try:
            if address:
                ray.init(address=address, **settings)
            else:
                ray.init(address="local", include_dashboard=False, **settings)
        except (ConnectionError, ValueError, RuntimeError) as exc:
            where = f"at {address}" if address else "on this machine"
            hint = " (a cluster with token authentication: docs/cluster.md)" if address else ""
            raise WorkerError(
                f"cannot start or reach Ray {where}: {_one_line(exc)}{hint}"
            ) from None
        return cls(f"the cluster at {address}" if address else "a local Ray instance", True)

    def close(self) -> None:
        if self.started:
            import_ray().shutdown()


def cluster_size() -> tuple[float, int, float]:
    """(CPUs of the cluster, nodes alive with CPUs, the CPUs of its smallest such node)."""
    ray = import_ray()
    cpus = [node["Resources"].get("CPU", 0.0) for node in ray.nodes() if node.get("Alive")]
    cpus = [c for c in cpus if c > 0]
    return sum(cpus), len(cpus), min(cpus, default=0.0)


def _check_reachable(address: str, timeout: float = 10.0) -> None:
    """A ``HOST:PORT`` address that accepts a connection, else a one-line ``WorkerError``: Ray
    itself retries an unreachable one for many minutes without a word (``auto`` and ``ray://``
    addresses are left to Ray)."""
    import socket

    host, colon, port = address.rpartition(":")
    if not colon or not port.isdigit() or "://" in address:
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as exc:
        raise WorkerError(
            f"cannot reach Ray at {address}: {exc.strerror or _one_line(exc)} (is the head "
            "started, and is that its GCS port? docs/cluster.md)"
        ) from None


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
