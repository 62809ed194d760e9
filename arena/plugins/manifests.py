"""Bots in any language: ``bots/<name>.toml`` manifests, found beside the Python bot files.

A manifest names a program that speaks the JSON-lines protocol (``docs/protocol.md``)::

    name = "js-random"
    games = ["twenty-down", "how-low-can-you-go"]
    command = ["node", "random.js"]
    build = ["cc", "-O2", "-o", "{cache}/bot", "bot.c"]   # optional, run once per change
    [settings]                                              # optional, sent in the hello
    depth = 2

``{python}`` is the Python running arena (for ``{python} -m arena.protocol bot.py:MyBot``),
``{dir}`` the manifest's folder and ``{cache}`` the folder the build writes to (under
``$ARENA_CACHE_DIR``, default ``~/.cache/arena``, named by a digest of the manifest and the files
it names: a changed source builds again, an unchanged one never). Arguments naming a file of the
manifest's folder become absolute paths. A manifest that cannot start (no such program, a failed
build) is a load error with the reason, as a broken bot file is. The program itself runs only in
``execution.process.program_bot``.
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.bot import Bot
from arena.plugins.names import name_problem

CACHE_ENV = "ARENA_CACHE_DIR"
# A build's limits are its own, not a run's --bot-memory and --bot-cpu: a build happens when the
# bots are loaded (by `arena bots`, `arena check-bot` or a run, before any run's options apply),
# once for every run after it, and a compiler needs more than a bot (cc1plus and rustc pass 1 GiB).
BUILD_SECONDS = 300.0  # wall-clock and CPU time
BUILD_MEMORY = 4 << 30  # bytes of address space
BUILD_SYSTEM_FILES = ("/etc/alternatives",)  # (Debian's /usr/bin/cc leads there)
KNOWN_KEYS = {"name", "games", "command", "build", "settings", "sources", "env"}


class ManifestError(Exception):
    """A manifest that cannot be used; the message is one line."""


@dataclass(frozen=True)
class Manifest:
    path: str  # the manifest file, absolute
    name: str
    games: tuple[str, ...] | None
    command: tuple[str, ...]  # as written, placeholders included
    build: tuple[str, ...] | None
    settings: tuple[tuple[str, Any], ...]
    sources: tuple[str, ...]  # files of its folder whose change means a new version
    version: str = ""  # ``digest()``, read once by ``read_manifest``
    env: tuple[tuple[str, str], ...] = ()  # variables its program is given, besides the few

    @property
    def folder(self) -> Path:
        return Path(self.path).parent

    def digest(self) -> str:
        """Of the manifest and every file it names: the build's cache key, the bot's version."""
        if self.version:
            return self.version
        digest = hashlib.sha256(Path(self.path).read_bytes())
        for name in self.sources:
            digest.update(name.encode() + b"\0")
            digest.update(hashlib.sha256((self.folder / name).read_bytes()).digest())
        return digest.hexdigest()[:16]

    def cache(self) -> Path:
        root = Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "arena")
        return root / "programs" / f"{self.name}-{self.digest()}"

    def argv(self) -> list[str]:
        """The command to run, resolved: ready for ``exec``."""
        return _resolve(self, self.command, which=True)

    def visible(self) -> tuple[list[str], list[str]]:
        """What a sandbox around the program must show, as (files shown with their folder, paths
        shown as themselves alone): the manifest, its sources, its own build folder and its
        program; never the rest of its folder nor the folder above."""
        exact = [self.path, *(str(self.folder / name) for name in self.sources)]
        exact = [p for p in exact if os.path.exists(p)]  # (``check-bot`` of a bare command)
        if self.build is not None:
            exact.append(str(self.cache()))
        first = self.argv()[0]
        with_folder = []
        if os.path.exists(first):
            if any(_inside(first, p) for p in (*exact, str(self.folder))):
                exact.append(first)
            else:  # an interpreter installed outside /usr (its libraries beside it)
                with_folder.append(first)
        return with_folder, exact


class ProgramBot(Bot):
    """What the registry knows of a manifest's bot: a name, games and its manifest. It plays only
    through ``execution.process.program_bot``, which starts its program."""

    manifest: Manifest | None = None

    def act(self, observation):
        raise RuntimeError(f"bot {self.name!r} is a program: it plays through its manifest")


def manifest_files(folders: list[Path]) -> list[Path]:
    return [
        path
        for folder in folders
        if folder.is_dir()
        for path in sorted(folder.glob("*.toml"))
        if path.name[0] not in "_."
    ]


def read_manifest(path: Path) -> Manifest:
    """The manifest in ``path``; ManifestError (one line) if it is not a valid one."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ManifestError(f"not a readable TOML file: {exc}") from None
    unknown = sorted(set(data) - KNOWN_KEYS)
    if unknown:
        raise ManifestError(f"unknown key(s) {', '.join(unknown)} (known: {sorted(KNOWN_KEYS)})")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ManifestError("name must be a non-empty string")
    problem = name_problem(name)
    if problem is not None:
        raise ManifestError(problem)
    games = data.get("games")
    if games is not None and not (
        isinstance(games, list) and games and all(isinstance(g, str) for g in games)
    ):
        raise ManifestError("games must be a list of game names")
    command = _argv(data.get("command"), "command")
    build = _argv(data["build"], "build") if "build" in data else None
    settings = data.get("settings", {})
    if not isinstance(settings, dict):
        raise ManifestError("settings must be a table")
    try:
        json.dumps(settings)
    except (TypeError, ValueError):
        raise ManifestError("settings must be JSON values (no dates or times)") from None
    env = data.get("env", {})
    if not (isinstance(env, dict) and all(isinstance(v, str) for v in env.values())):
        raise ManifestError("env must be a table of strings (variables for its program)")
    manifest = Manifest(
        str(path.resolve()),
        name,
        None if games is None else tuple(games),
        command,
        build,
        tuple(sorted(settings.items())),
        (),
    )
    sources = data.get("sources")
    if sources is None:
        sources = _named_files(manifest)
    elif not (isinstance(sources, list) and all(isinstance(s, str) for s in sources)):
        raise ManifestError("sources must be a list of file names")
    outside = [s for s in sources if not _inside(str(manifest.folder / s), str(manifest.folder))]
    if outside:  # (each source is shown in the sandbox: never a file the folder does not hold)
        raise ManifestError(f"sources must be files of its folder, not {', '.join(outside)}")
    missing = [s for s in sources if not (manifest.folder / s).is_file()]
    if missing:
        raise ManifestError(f"no such source file(s): {', '.join(missing)}")
    manifest = Manifest(**{**manifest.__dict__, "sources": tuple(sources)})
    try:
        version = manifest.digest()
    except OSError as exc:
        raise ManifestError(f"cannot read its files: {exc}") from None
    return Manifest(**{**manifest.__dict__, "version": version, "env": tuple(sorted(env.items()))})


def _inside(path: str, folder: str) -> bool:
    path, folder = os.path.realpath(path), os.path.realpath(folder)
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _argv(value: Any, key: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = value.split()
    if not (isinstance(value, list) and value and all(isinstance(v, str) for v in value)):
        raise ManifestError(f"{key} must be a list of strings (the program and its arguments)")
    return tuple(value)


def _named_files(manifest: Manifest) -> list[str]:
    """The files of the manifest's folder its command and build name (``bot.py:Class``, as
    ``python -m arena.protocol`` takes it, names ``bot.py``)."""
    found = []
    for arg in (*manifest.command, *(manifest.build or ())):
        name = _file_part(manifest.folder, arg)
        if "{" not in arg and name is not None and name not in found:
            found.append(name)
    return found


def _file_part(folder: Path, arg: str) -> str | None:
    """The file of ``folder`` an argument names: itself, or what comes before a ``:``."""
    for name in (arg, arg.rpartition(":")[0]):
        if name and (folder / name).is_file() and _inside(str(folder / name), str(folder)):
            return name
    return None


def _resolve(manifest: Manifest, argv: tuple[str, ...], which: bool) -> list[str]:
    folder = manifest.folder
    values = {
        "python": sys.executable,
        "dir": str(folder),
        "cache": str(manifest.cache()) if "{cache}" in "".join(argv) else "",
    }
    resolved = []
    for i, arg in enumerate(argv):
        try:
            arg = arg.format(**values)
        except (KeyError, IndexError, ValueError):
            raise ManifestError(
                f"unknown placeholder in {arg!r} (known: {{python}}, {{dir}}, {{cache}})"
            ) from None
        named = _file_part(folder, arg) if i else None
        if (folder / arg).exists() and not os.path.isabs(arg) and (i or "/" in arg):
            arg = str(folder / arg)
        elif named is not None and not os.path.isabs(named):  # bot.py:Class
            arg = str(folder / named) + arg[len(named) :]
        elif i == 0 and which and "/" not in arg:
            found = shutil.which(arg)
            if found is None:
                raise ManifestError(f"program {arg!r} not found on PATH")
            arg = found
        resolved.append(arg)
    return resolved


def prepare(manifest: Manifest) -> None:
    """Build the program if the manifest has a build step and its build is not cached; check
    that the program exists. ManifestError (one line) if it cannot start."""
    if manifest.build is not None:
        _build(manifest)
    program = manifest.argv()[0]
    if not os.path.isfile(program):
        raise ManifestError(f"program {program!r} does not exist")
    if not os.access(program, os.X_OK):
        raise ManifestError(f"program {program!r} is not executable")


def _build(manifest: Manifest) -> None:
    cache = manifest.cache()
    stamp = cache / ".built"
    if stamp.is_file():
        if stamp.read_text().strip() == _output_digest(cache):
            return
        shutil.rmtree(cache, ignore_errors=True)  # changed since it was built: built again
    cache.mkdir(parents=True, exist_ok=True)
    argv = _resolve(manifest, manifest.build or (), which=True)
    command, preexec = _build_sandbox(manifest, argv, cache)
    try:
        done = subprocess.run(
            command,
            cwd=manifest.folder,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=BUILD_SECONDS,
            preexec_fn=preexec,
            env=_build_environment(cache),
        )
    except subprocess.TimeoutExpired:
        raise ManifestError(f"build did not finish within {BUILD_SECONDS:g} s") from None
    except OSError as exc:
        raise ManifestError(f"build cannot run: {exc}") from None
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).decode(errors="replace").strip().splitlines()
        why = lines[0] if lines else "no output"
        raise ManifestError(f"build failed (exit {done.returncode}): {why[:200]}")
    stamp.write_text(_output_digest(cache) + "\n")


def _build_sandbox(manifest: Manifest, argv: list[str], cache: Path):
    """(the build's command, its ``preexec_fn``): under bubblewrap when it works, seeing the
    system read-only, its manifest's folder read-only and writing only into its own cache
    folder, without network; always under the build's memory and CPU-time limits."""
    from arena.execution.process import bubblewrap

    def limits() -> None:
        bubblewrap.limit_memory(BUILD_MEMORY)()
        resource.setrlimit(resource.RLIMIT_CPU, (int(BUILD_SECONDS), int(BUILD_SECONDS) + 1))

    settings = bubblewrap.SandboxSettings(bubblewrap.default_mode())
    if not bubblewrap.active(settings):
        return argv, limits
    shown = [str(manifest.folder)] + [p for p in BUILD_SYSTEM_FILES if os.path.exists(p)]
    command = bubblewrap.wrap(argv, [argv[0]], settings, shown, [str(cache)], memory=BUILD_MEMORY)
    chdir = command.index("--chdir")  # (into its folder, not the sandbox's empty /tmp)
    command[chdir + 1] = str(manifest.folder)
    return command, limits


def _build_environment(cache: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", os.defpath),
        "LANG": os.environ.get("LANG", "C.UTF-8"),
        "HOME": str(cache),
        "TMPDIR": "/tmp",
    }


def _output_digest(cache: Path) -> str:
    """Of every file the build wrote (but ``.built``, which holds it)."""
    digest = hashlib.sha256()
    for path in sorted(cache.rglob("*")):
        if path.is_file() and path.name != ".built":
            digest.update(str(path.relative_to(cache)).encode() + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def bot_class(manifest: Manifest) -> type[ProgramBot]:
    attributes = {"name": manifest.name, "manifest": manifest, "__module__": __name__}
    if manifest.games is not None:
        attributes["games"] = frozenset(manifest.games)
    return type(f"Program_{manifest.name.replace('-', '_')}", (ProgramBot,), attributes)


def load_manifest(path: Path) -> tuple[str, Any, tuple[str, str]]:
    """(name, the bot's class, its origin) for the loader; ManifestError if it cannot start."""
    manifest = read_manifest(path)
    prepare(manifest)
    return manifest.name, bot_class(manifest), ("manifest", manifest.path)


def is_program(spec: Any) -> bool:
    """Whether a registered bot (``BotSpec``) is a manifest's program."""
    return isinstance(spec.cls, type) and issubclass(spec.cls, ProgramBot)
