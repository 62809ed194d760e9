"""Finding bots and games: bot files in ``bots/``, installed entry points, the bundled games.

One ``load_registry()`` builds a ``Registry`` of everything registered through the two hooks.
Nothing a plugin does can stop the others from loading: a file that fails to import, has no hook
or raises in its hook becomes a one-line ``LoadError`` naming the file. A bot is a ``*.py`` file
or a package (a folder with an ``__init__.py``, importing its own modules relatively). A bot name
registered by two plugins is an error naming both, and neither is fielded; a plugin may replace
a bundled bot (``arena.plugins.baseline``) by registering its name.
Set ``ARENA_TRACE_PLUGINS=1`` to print every file and hook as it is loaded.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import importlib
import importlib.util
import inspect
import os
import signal
import sys
import threading
import traceback
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pluggy

from arena import hookspecs
from arena.bot import Bot
from arena.games.base import Game
from arena.plugins.manifests import ManifestError, load_manifest, manifest_files
from arena.plugins.names import name_problem
from arena.referee.interrupt import Interrupt

HOOK_NAMES = ("arena_register_bots", "arena_register_games")
BUNDLED = "arena (bundled)"  # the source of the bundled games and bots
BOTS_DIR_ENV = "ARENA_BOTS_DIR"
TRACE_ENV = "ARENA_TRACE_PLUGINS"
# How long one bot file may take to import here, as in a sandboxed loading process
# (``arena.execution.process.sandboxed_loading.LOAD_SECONDS``).
IMPORT_SECONDS = 30.0


class UnknownNameError(LookupError):
    """A bot or game name that is not registered; the message suggests the closest one."""


@dataclass(frozen=True)
class LoadError:
    source: str
    message: str

    def __str__(self) -> str:
        return f"{self.source}: {self.message}"


@dataclass(frozen=True)
class BotSpec:
    """One registered bot: a class, the settings it is made with, and where it came from."""

    name: str
    cls: type
    settings: tuple[tuple[str, Any], ...] = ()
    source: str = ""
    # How a fresh process loads this bot alone: ("file", path of the file or package folder),
    # ("entry-point", name) or ("module", the bundled plugin module's name).
    origin: tuple[str, str] | None = None
    # The name its plugin registers it under, when it is stored under another: ``name@2``, a
    # later version of the bot (``tournament.versions``).
    registered_as: str | None = None

    @property
    def plugin_name(self) -> str:
        return self.registered_as or self.name

    @property
    def by_default(self) -> bool:
        """Fielded by a run that does not name its bots (False: only when named)."""
        return bool(getattr(self.cls, "by_default", True))

    @property
    def games(self) -> frozenset[str] | None:
        games = getattr(self.cls, "games", None)
        return None if games is None else frozenset(games)

    def plays(self, game_name: str) -> bool:
        games = self.games
        return games is None or game_name in games

    def create(self) -> Any:
        bot = self.cls(**dict(self.settings))
        return bot


@dataclass(frozen=True)
class GameSpec:
    name: str
    cls: type[Game]
    source: str = ""


@dataclass
class Registry:
    bots: dict[str, BotSpec] = field(default_factory=dict)
    games: dict[str, GameSpec] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)
    errors: list[LoadError] = field(default_factory=list)
    # A bot's plain name and ``name@N`` → the name its current (or fielded) version is stored
    # under (``tournament.versions``); empty until versions are applied.
    bot_aliases: dict[str, str] = field(default_factory=dict)

    def game(self, name: str) -> GameSpec:
        key = self.aliases.get(name, name)
        if key in self.games:
            return self.games[key]
        raise UnknownNameError(_unknown("game", name, list(self.games) + list(self.aliases)))

    def bot(self, name: str) -> BotSpec:
        """The bot a user names: a plain name is its current version, ``name@N`` version N."""
        name = self.bot_aliases.get(name, name)
        if name in self.bots:
            return self.bots[name]
        known = {*self.bots, *self.bot_aliases}
        # (listed once: 'random', not also 'random@1', the same bot by its version's name)
        shown = [n for n in known if self.bot_aliases.get(n) != n.rpartition("@")[0]]
        raise UnknownNameError(_unknown("bot", name, sorted(known), shown))

    def bots_for(self, game_name: str) -> list[BotSpec]:
        return [b for b in self.bots.values() if b.plays(game_name)]

    def default_bots_for(self, game_name: str) -> list[BotSpec]:
        """The bots a run fields for the game when it names none: not those only named."""
        return [b for b in self.bots_for(game_name) if b.by_default]

    def game_classes(self) -> dict[str, type[Game]]:
        return {name: spec.cls for name, spec in self.games.items()}


def unknown_name(kind: str, name: str, known: list[str]) -> str:
    """``unknown bot 'rndom'; did you mean 'random'? (known: ...)``: one line for every command."""
    return _unknown(kind, name, known)


def _unknown(kind: str, name: str, known: list[str], shown: list[str] | None = None) -> str:
    """The message; ``shown``: the names listed, if not every ``known`` one (the closest known
    name is suggested all the same)."""
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.5)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    shown = known if shown is None else shown
    listing = ", ".join(sorted(shown)) if shown else "none are loaded"
    return f"unknown {kind} {name!r}{hint} (known: {listing})"


def default_bots_dirs() -> list[Path]:
    """``$ARENA_BOTS_DIR`` (several folders joined with ``:``), else ``./bots``."""
    value = os.environ.get(BOTS_DIR_ENV)
    return [Path(p) for p in value.split(os.pathsep) if p] if value else [Path("bots")]


def _trace(message: str) -> None:
    if os.environ.get(TRACE_ENV):
        print(f"[arena plugins] {message}", file=sys.stderr)


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, SyntaxError):
        return f"syntax error at line {exc.lineno}: {exc.msg}"
    text = str(exc).strip().splitlines()
    detail = text[0] if text else ""
    return f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__


def _where(exc: BaseException, path: str) -> str:
    """The line of the plugin file where ``exc`` was raised, if it was raised there."""
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if frame.filename == path:
            return f" (line {frame.lineno})"
    return ""


def _import_file(path: Path) -> Any:
    """Import a bot file, or a bot package (a folder with an ``__init__.py``)."""
    # Named after the file and its folder, so that two folders may hold files of the same name.
    folder = hashlib.sha1(str(path.resolve().parent).encode()).hexdigest()[:8]
    module_name = f"arena_bots.{path.stem}_{folder}"
    if path.is_dir():  # its modules import each other relatively: ``from . import helpers``
        # (``from . import x`` imports the parent package first: it must exist)
        sys.modules.setdefault("arena_bots", _bots_namespace())
        spec = importlib.util.spec_from_file_location(
            module_name, path / "__init__.py", submodule_search_locations=[str(path)]
        )
    else:
        spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    # Registered before running so that classes defined in the file can be pickled by reference.
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(module_name, None)
        raise
    return module


def _bots_namespace() -> Any:
    namespace = types.ModuleType("arena_bots", "the bot files and packages arena loaded")
    namespace.__path__ = []
    return namespace


def load_bot_alone(origin: tuple[str, str], name: str) -> BotSpec:
    """Load one bot, and nothing else, from where it was found: what a bot's own process does."""
    kind, where = origin
    registry = Registry()
    loader = Loader(registry)
    if kind == "manifest":
        load_manifest_file(loader, Path(where))
        plugin = None
    elif kind == "file":
        plugin = _import_file(Path(where))
    elif kind == "module":
        plugin = importlib.import_module(where)
    else:
        from importlib import metadata  # here: it costs a bot process's start a quarter of its time

        matches = [ep for ep in metadata.entry_points(group="arena") if ep.name == where]
        if not matches:
            raise LookupError(f"no entry point {where!r} in the group arena")
        plugin = matches[0].load()
    if plugin is not None:
        loader.add_plugin(plugin, where, origin)
    if name not in registry.bots:
        problems = "; ".join(str(e) for e in registry.errors) or "it does not register it"
        raise LookupError(f"{where}: no bot {name!r} ({problems})")
    return registry.bots[name]


def _hook_functions(plugin: Any) -> dict[str, Any]:
    found = {}
    for name in dir(plugin):
        if not name.startswith("arena_"):
            continue
        value = getattr(plugin, name, None)
        if callable(value) and hasattr(value, "arena_impl"):
            found[name] = value
    return found


class Loader:
    """Collects registrations from one plugin at a time, so every error names its source."""

    def __init__(self, registry: Registry, interrupt: Interrupt | None = None):
        self.registry = registry
        # Set by the loading's SIGINT handler: a real Ctrl-C, not a bot file's KeyboardInterrupt.
        self.interrupt = interrupt or Interrupt()
        self.pm = pluggy.PluginManager("arena")
        self.pm.add_hookspecs(hookspecs)
        self.contested: dict[str, list[str]] = {}  # bot names registered twice: by whom

    def add_plugin(self, plugin: Any, source: str, origin: tuple[str, str] | None = None) -> None:
        hooks = _hook_functions(plugin)
        for name in hooks:
            if name not in HOOK_NAMES:
                close = difflib.get_close_matches(name, HOOK_NAMES, n=1)
                hint = f"; did you mean {close[0]}?" if close else ""
                self.error(source, f"unknown hook {name}{hint}")
                return
        if not hooks:
            self.error(source, "no @arena.hookimpl arena_register_bots or arena_register_games")
            return
        try:
            self.pm.register(plugin, name=source)
        except Exception as exc:
            self.error(source, _one_line(exc))
            return
        # A hook may do anything, even sys.exit(); only a real Ctrl-C stops loading.
        for name, function in hooks.items():
            _trace(f"{source}: calling {name}")
            pending: list[tuple[str, Any]] = []
            register = self._bot_register if name == "arena_register_bots" else self._game_register
            try:
                function(
                    register=lambda *a, **kw: pending.append(register(source, origin, *a, **kw))
                )
            except BaseException as exc:
                self.interrupt.pass_on(exc)  # only a real Ctrl-C stops loading
                self.error(source, f"{name} raised {_one_line(exc)}{_where(exc, source)}")
                pending.clear()
                continue
            self.commit(source, pending)

    def error(self, source: str, message: str) -> None:
        _trace(f"{source}: {message}")
        self.registry.errors.append(LoadError(source, message))

    def _bot_register(
        self, source: str, origin, cls: Any = None, name: str | None = None, **settings
    ):
        if not (inspect.isclass(cls) and issubclass(cls, Bot)):
            raise TypeError(f"register() takes a subclass of arena.Bot, not {cls!r}")
        name = name or getattr(cls, "name", "") or ""
        if not isinstance(name, str) or not name.strip():
            raise TypeError(f"bot class {cls.__name__} has no name")
        problem = name_problem(name)
        if problem is not None:
            raise TypeError(problem)
        if not callable(getattr(cls, "act", None)):
            raise TypeError(f"bot {name!r} has no act(observation) method")
        games = getattr(cls, "games", None)
        if games is not None and (
            isinstance(games, str) or not all(isinstance(g, str) for g in games)
        ):
            raise TypeError(f"bot {name!r}: games must be a set of game names")
        return ("bot", BotSpec(name, cls, tuple(sorted(settings.items())), source, origin))

    def _game_register(self, source: str, origin, cls: Any = None):
        if not (inspect.isclass(cls) and issubclass(cls, Game) and cls.name):
            raise TypeError(f"register() takes a named subclass of arena's Game, not {cls!r}")
        return ("game", GameSpec(cls.name, cls, source))

    def _commit_bot(self, source: str, spec: BotSpec) -> None:
        """A name registered twice is an error naming both sources, and neither is fielded (the
        one that sorts first would otherwise win silently); a bundled bot yields to a plugin."""
        registry = self.registry
        other = registry.bots.get(spec.name)
        if spec.name in self.contested or (other is not None and other.source != BUNDLED):
            sources = self.contested.setdefault(spec.name, [other.source] if other else [])
            sources.append(source)
            registry.bots.pop(spec.name, None)
            self.error(
                source,
                f"bot name {spec.name!r} is registered by {' and by '.join(sources)}; "
                "neither is loaded: rename one",
            )
            return
        if other is not None:
            _trace(f"{source}: bot {spec.name} replaces the bundled one")
        registry.bots[spec.name] = spec
        _trace(f"{source}: bot {spec.name}")

    def commit(self, source: str, pending: list[tuple[str, Any]]) -> None:
        """Register what one hook call registered, unless a name is taken (an error then)."""
        registry = self.registry
        for kind, spec in pending:
            if kind == "bot":
                self._commit_bot(source, spec)
            else:
                other = registry.games.get(spec.name)
                if other is not None or spec.name in registry.aliases:
                    self.error(source, f"game name {spec.name!r} is already registered")
                    continue
                registry.games[spec.name] = spec
                for alias in spec.cls.aliases:
                    if alias not in registry.games and alias not in registry.aliases:
                        registry.aliases[alias] = spec.name
                _trace(f"{source}: game {spec.name}")


@contextlib.contextmanager
def _loading_guard():
    """While plugins load: their prints go to stderr (stdout may carry JSON), and a real Ctrl-C
    is told apart from a KeyboardInterrupt raised by plugin code (the ``Interrupt`` yielded)."""
    interrupt = Interrupt()

    def on_interrupt(signum, frame):
        interrupt.requested = True
        raise KeyboardInterrupt

    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, on_interrupt) if in_main else None
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield interrupt
    finally:
        if in_main:
            signal.signal(signal.SIGINT, previous)


def load_registry(
    bots_dir: str | Path | Sequence[str | Path] | None = None,
    entry_points: bool = True,
    load_files: Callable[[Loader, list[Path]], None] | None = None,
) -> Registry:
    """Load the bundled games, every bot file in the folder(s) ``bots_dir`` (default
    ``default_bots_dirs()``) and every ``arena`` entry point. ``load_files`` registers the bot
    files (default: each imported here, ``load_file``;
    ``arena.execution.process.sandboxed_loading``: elsewhere)."""
    from arena.plugins import builtin as builtin_plugins

    with _loading_guard() as interrupt:
        return _load_registry(bots_dir, entry_points, builtin_plugins, load_files, interrupt)


def load_games(entry_points: bool = True) -> Registry:
    """The bundled games and those of installed plugins (``entry_points``), without importing any
    bot file: for commands that only need to know the games (their names and aliases)."""
    return load_registry(bots_dir=[], entry_points=entry_points)


def _load_here(loader: Loader, paths: list[Path]) -> None:
    for path in paths:
        load_file(loader, path)


def _load_registry(
    bots_dir, entry_points: bool, builtin_plugins, load_files, interrupt: Interrupt
) -> Registry:
    registry = Registry()
    loader = Loader(registry, interrupt)
    loader.add_plugin(builtin_plugins, BUNDLED, builtin_plugins.ORIGIN)
    (load_files or _load_here)(loader, bot_files(bots_dir))
    for path in manifest_files(_folders(bots_dir)):
        load_manifest_file(loader, path)
    if entry_points:
        load_entry_points(loader)
    check_declared_games(loader)
    return registry


def check_declared_games(loader: Loader) -> None:
    """A warning for each bot that names, in ``games``, a game nobody registered (a typo, most
    likely: the bot is still loaded, for the games that exist)."""
    registry = loader.registry
    for spec in registry.bots.values():
        unknown = sorted(g for g in spec.games or () if g not in registry.games)
        if unknown:
            names = ", ".join(repr(g) for g in unknown)
            loader.error(
                spec.source,
                f"bot {spec.name!r} names the game(s) {names}, which no plugin registers "
                f"(games: {', '.join(sorted(registry.games))})",
            )


def bot_files(bots_dir: str | Path | Sequence[str | Path] | None = None) -> list[Path]:
    """The bot files of the folder(s) ``bots_dir`` (default ``default_bots_dirs()``), in the order
    they are loaded: each folder's ``*.py`` files and packages (sub-folders with an
    ``__init__.py``) by name, leaving out those starting with ``_`` or ``.``."""
    folders = _folders(bots_dir)
    return [
        path
        for folder in folders
        if folder.is_dir()
        for path in sorted(folder.iterdir())
        if path.name[0] not in "_." and _is_bot(path)
    ]


def _folders(bots_dir: str | Path | Sequence[str | Path] | None) -> list[Path]:
    if bots_dir is None:
        return default_bots_dirs()
    if isinstance(bots_dir, str | Path):
        return [Path(bots_dir)]
    return [Path(f) for f in bots_dir]


def load_manifest_file(loader: Loader, path: Path) -> None:
    """Register the program bot of a manifest (``plugins.manifests``), or record why it cannot
    start (an invalid manifest, no such program, a failed build)."""
    source = str(path)
    _trace(f"loading {source}")
    try:
        name, cls, origin = load_manifest(path)
    except ManifestError as exc:
        loader.error(source, f"cannot start: {exc}")
        return
    spec = BotSpec(name, cls, tuple(cls.manifest.settings), source, origin)
    loader.commit(source, [("bot", spec)])


def _is_bot(path: Path) -> bool:
    if path.is_dir():
        return (path / "__init__.py").is_file()
    return path.suffix == ".py"


class ImportTimeout(BaseException):
    """A bot file still importing after ``IMPORT_SECONDS`` (a BaseException: a file's ``except
    Exception`` around its waiting does not keep it)."""


@contextlib.contextmanager
def _import_time_limit(seconds: float):
    """``ImportTimeout`` raised in the importing code after ``seconds``; no limit off the main
    thread, or when someone else's timer is set (the file then imports for as long as it takes)."""
    usable = (
        threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, None)
        and signal.getitimer(signal.ITIMER_REAL)[0] == 0
    )
    if not usable:
        yield
        return

    def on_alarm(signum, frame):
        raise ImportTimeout(f"did not finish loading within {seconds:g} s")

    signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)


def load_file(loader: Loader, path: Path) -> None:
    """Import one bot file and register what its hooks register, or record why not."""
    source = str(path)
    _trace(f"loading {source}")
    try:
        with _import_time_limit(IMPORT_SECONDS):
            module = _import_file(path)
    except ImportTimeout as exc:
        loader.error(source, str(exc))
        return
    except BaseException as exc:  # a bot file may even call sys.exit() at import
        loader.interrupt.pass_on(exc)
        loader.error(source, f"failed to import: {_one_line(exc)}{_where(exc, source)}")
        return
    loader.add_plugin(module, source, ("file", str(path.resolve())))


def load_entry_points(loader: Loader) -> None:
    """Every plugin installed in the entry-point group ``arena``."""
    import importlib.metadata

    for ep in importlib.metadata.entry_points(group="arena"):
        source = f"entry point {ep.name} ({ep.value})"
        try:
            plugin = ep.load()
        except BaseException as exc:
            loader.interrupt.pass_on(exc)
            loader.error(source, f"failed to import: {_one_line(exc)}")
            continue
        loader.add_plugin(plugin, source, ("entry-point", ep.name))
