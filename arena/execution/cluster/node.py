"""What a Ray worker runs: a chunk of the schedule, played by the local game workers.

A task builds the run's ``PlayContext`` once per Ray worker process (kept by ``NodeSpec.key``)
and plays its chunk with the backend a local run with ``--jobs 1`` would use: a forked game
worker with the bots inside it (``SharedWorkers``), or with each bot in a process of its own
(``IsolatedBots``). So a bot that crashes or hangs is diagnosed, blamed and recorded exactly as
in a local run, and the Ray worker itself survives it. Only the bots a chunk seats are loaded, on
first use: one that cannot be loaded on this node is answered as such, naming the node, and the
parent stops the run with that one line.
"""

from __future__ import annotations

import socket
from dataclasses import replace
from pathlib import Path

from arena.execution.backend import IsolatedBots, SharedWorkers
from arena.execution.cluster.staging import NodeBot, NodeSpec
from arena.execution.context import PlayContext, ScheduledGame
from arena.plugins.loading import BotSpec, Registry, load_bot_alone
from arena.referee.interrupt import Interrupt

# This Ray worker's contexts, by ``NodeSpec.key`` (a worker process serves one run's tasks: its
# runtime environment is the run's folder of bot files). Private to this module.
_contexts: dict[str, PlayContext] = {}
_KEEP = 4


class Unloadable(Exception):
    """A bot that cannot be loaded on this node: (bot, message)."""


def play_chunk(spec: NodeSpec, items: list[ScheduledGame], excluded: dict[str, str]) -> tuple:
    """``("played", node, outcomes)``, or ``("unloadable", node, bot, message)``."""
    node = node_name()
    context = context_for(spec)
    try:
        _load_seated(context, spec, {name for item in items for name in item.seats})
    except Unloadable as exc:
        return ("unloadable", node, *exc.args)
    if spec.isolation == "process":
        backend = IsolatedBots(context, 1)
        backend.excluded = dict(excluded)
    else:
        backend = SharedWorkers(context, 1)
    with backend:
        outcomes = [outcome for _, outcome in backend.outcomes(items)]
    return ("played", node, outcomes)


def node_name() -> str:
    """The node as its cluster knows it (its IP address), and its host name."""
    try:
        import ray

        address = ray.util.get_node_ip_address()
    except Exception:  # (outside Ray: in a test of this module)
        address = ""
    host = socket.gethostname()
    return f"{address} ({host})" if address else host


def context_for(spec: NodeSpec) -> PlayContext:
    """The run's context in this worker, its registry empty until bots are seated."""
    context = _contexts.get(spec.key)
    if context is None:
        import pickle

        if len(_contexts) >= _KEEP:
            _contexts.clear()
        context = PlayContext(
            Registry(),
            pickle.loads(spec.games),
            move_time=spec.move_time,
            time_bank=spec.time_bank,
            max_faults=spec.max_faults,
            records=spec.records,
            bot_memory=spec.bot_memory,
            bot_cpu=spec.bot_cpu,
            sandbox=spec.sandbox,
            interrupt=Interrupt(),
        )
        _contexts[spec.key] = context
    return context


def _load_seated(context: PlayContext, spec: NodeSpec, names: set[str]) -> None:
    """Load the bots of ``names`` not loaded yet into the context's registry."""
    bots = context.registry.bots
    missing = sorted(name for name in names if name not in bots)
    if not missing:
        return
    if spec.isolation == "process":
        loaded = _check_isolated([spec.bots[n] for n in missing if n in spec.bots], spec)
    else:
        loaded = {}
    for name in missing:
        node_bot = spec.bots.get(name)
        if node_bot is None:
            raise Unloadable(name, "it was not loaded from a file, a module or an entry point")
        if spec.isolation == "process":
            bots[name] = loaded[name]
            continue
        try:
            found = load_bot_alone(_here(node_bot.origin), node_bot.plugin_name)
        except Exception as exc:  # whatever the file raised, it cannot play here
            raise Unloadable(name, _one_line(exc)) from None
        bots[name] = replace(found, name=name, registered_as=_registered_as(node_bot))


def _check_isolated(node_bots: list[NodeBot], spec: NodeSpec) -> dict[str, BotSpec]:
    """The bots of files, loaded here as ``--isolation process`` loads them (in sandboxed
    loading processes, never in this one), each file alone (an old version registers the name
    its current version does); a bot of a module or entry point as it is."""
    from arena.execution.process.sandboxed_loading import load_registry_isolated

    found = {}
    for node_bot in node_bots:
        origin = _here(node_bot.origin)
        if origin[0] == "file":
            folder = str(Path(origin[1]).parent)
            registry = load_registry_isolated([folder], entry_points=False, sandbox=spec.sandbox)
            spec_here = registry.bots.get(node_bot.plugin_name)
            if spec_here is None:
                errors = [e.message for e in registry.errors]
                raise Unloadable(
                    node_bot.name, "; ".join(errors) or "its file registers no such bot"
                )
        else:
            spec_here = BotSpec(node_bot.plugin_name, object, origin=origin)
        found[node_bot.name] = replace(
            spec_here, name=node_bot.name, origin=origin, registered_as=_registered_as(node_bot)
        )
    return found


def _here(origin: tuple[str, str]) -> tuple[str, str]:
    """An origin with a shipped file's path made absolute: Ray starts the worker in the folder."""
    kind, where = origin
    return (kind, str(Path.cwd() / where)) if kind == "file" else origin


def _registered_as(node_bot: NodeBot) -> str | None:
    return node_bot.plugin_name if node_bot.plugin_name != node_bot.name else None


def _one_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__
