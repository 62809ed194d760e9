"""What every node needs to play a run's games, gathered in the parent.

Ray ships a folder to every node (the runtime environment's ``working_dir``) and starts the run's
workers in it. ``stage`` copies each bot file or package the registry loaded from a file (old
versions from their stored source included) into such a folder, one sub-folder each, and describes
every bot by where it now is in that folder (or by its module or entry point, which the nodes'
own installation provides). The games travel as objects, pickled here: a game a bot file
registers is pickled by value, since its file is a bot file's module, not importable on a node.
The tournament file itself stays here: the parent reads it and sends what it decided (the
schedule, the games' parameters, the referee's settings).
"""

from __future__ import annotations

import hashlib
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from arena.execution.context import PlayContext
from arena.execution.process.bubblewrap import SandboxSettings
from arena.execution.workers import WorkerError

BOTS_FOLDER = "bots"


@dataclass(frozen=True)
class NodeBot:
    """A bot as a node loads it: ``origin`` as in ``BotSpec``, a file's path relative to the
    shipped folder."""

    name: str  # the stored name (``name@2``)
    plugin_name: str  # the name its plugin registers
    origin: tuple[str, str]


@dataclass(frozen=True)
class NodeSpec:
    """Everything a Ray worker needs to build the run's ``PlayContext`` (``node.context_for``)."""

    key: str  # identifies the run's context in a worker's cache
    isolation: str
    bots: dict[str, NodeBot]
    games: bytes  # cloudpickle of {game name: Game}
    move_time: float
    time_bank: float | None
    max_faults: int
    records: bool
    bot_memory: int
    bot_cpu: int | None
    sandbox: SandboxSettings
    programs: tuple[str, ...] = ()  # program bots (manifests): not played on a cluster yet

    def refuse_programs(self, games) -> None:
        """A one-line error if any of ``games`` seats a program bot."""
        if not self.programs:
            return
        seated = {name for game in games for name in game.seats}.intersection(self.programs)
        if seated:
            raise WorkerError(
                f"{min(seated)}: a program bot (bots/*.toml) cannot play with --backend ray yet;"
                " run it with the local backend"
            )


def stage(context: PlayContext, isolation: str, folder: Path, cloudpickle) -> NodeSpec:
    """Copy the bot files into ``folder`` and describe the run for the nodes."""
    bots = {}
    programs: list[str] = []
    copied: dict[str, str] = {}
    for name, spec in context.registry.bots.items():
        if spec.origin is None:
            continue  # (registered by code, not by a file: it cannot be fielded on a cluster)
        kind, where = spec.origin
        if kind == "manifest":
            programs.append(name)  # (not shipped: a game seating it is refused, ``seated``)
            continue
        if kind == "file":
            if where not in copied:
                copied[where] = _copy(Path(where), folder, len(copied))
            where = copied[where]
        bots[name] = NodeBot(name, spec.plugin_name, (kind, where))
    games = _pickled_games(context.games, cloudpickle)
    digest = hashlib.sha256(games)
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            digest.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes())
    digest.update(
        repr((sorted(bots.items()), isolation, context.move_time, context.time_bank)).encode()
    )
    return NodeSpec(
        key=digest.hexdigest()[:16],
        isolation=isolation,
        bots=bots,
        games=games,
        move_time=context.move_time,
        time_bank=context.time_bank,
        max_faults=context.max_faults,
        records=context.records,
        bot_memory=context.bot_memory,
        bot_cpu=context.bot_cpu,
        sandbox=context.sandbox,
        programs=tuple(programs),
    )


def staging_folder() -> tempfile.TemporaryDirectory:
    return tempfile.TemporaryDirectory(prefix="arena-ray-")


def _copy(source: Path, folder: Path, number: int) -> str:
    """Copy a bot file or package folder to ``bots/<number>/`` of ``folder``; its relative path."""
    relative = Path(BOTS_FOLDER) / str(number) / source.name
    target = folder / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, target)
    except OSError as exc:
        raise WorkerError(f"{source}: cannot be copied for the cluster ({exc.strerror})") from None
    return str(relative)


def _pickled_games(games: dict, cloudpickle) -> bytes:
    """The game objects; the classes of bot files' modules (``arena_bots.*``) by value."""
    modules = {type(game).__module__ for game in games.values()}
    by_value = [m for m in modules if m == "arena_bots" or m.startswith("arena_bots.")]
    for name in by_value:
        cloudpickle.register_pickle_by_value(sys.modules[name])
    try:
        return cloudpickle.dumps(dict(games))
    finally:
        for name in by_value:
            cloudpickle.unregister_pickle_by_value(sys.modules[name])
