"""Loading bot files without importing them into arena's own process (``--isolation process``).

To learn which bots a file registers, its code must run: its imports, its module body and its
``arena_register_bots`` hook. In the shared mode arena runs them itself. With ``--isolation
process`` no bot code may run in the process that keeps the results: a file could end that process
at import (``os._exit``), hang it, or look around in it. So a fresh *loading process*
(``python -m arena.probe``), under the limits of a bot process (the memory limit, the signal
filter, no access to other processes' memory), imports the files one at a time and reports on a
pipe, as JSON lines, what each registered (each bot's name, games and settings, as text) or why it
failed. Arena's process rebuilds the registry from the reports, in the same order and with the same
errors as loading the files itself, with stand-in classes that carry a name and games only: the
bots' code runs only in their own processes (``arena.bothost``).

A file that ends its loading process, or does not finish loading within ``LOAD_SECONDS``, is a
load error naming it; a new loading process goes on with the next file. What the loading process
writes is checked as hostile input. A bot file may not register games in this mode: a game's
engine runs inside arena. Installed entry points are imported by arena itself, as in the shared
mode: they are installed packages, not files dropped into a folder.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

from .bot import Bot
from .plugins import (
    BotSpec,
    Loader,
    Registry,
    _loading_guard,
    bot_files,
    check_declared_games,
    load_entry_points,
    load_file,
)

CONFIG_ENV = "ARENA_PROBE"
LOAD_SECONDS = 30.0  # for one file, as long as a bot process may take to start
MAX_REPORT = 1 << 20  # bytes of one report line
MAX_TEXT = 200  # characters of a name, a game or a setting shown


class LoadedElsewhere(Bot):
    """What arena's process knows of a bot loaded by the loading process: its name and games.
    Its code runs only in a bot process of its own, which loads the file again."""

    def act(self, observation):
        raise RuntimeError(f"bot {self.name!r} runs only in its own process (--isolation process)")


class _Text(str):
    """A setting's value as the loading process showed it: printed as it is, not quoted again."""

    def __repr__(self) -> str:
        return str(self)


def load_registry_isolated(
    bots_dir=None, entry_points: bool = True, memory_mib: int = 1024, seconds: float = LOAD_SECONDS
) -> Registry:
    """``plugins.load_registry``, with the bot files imported only by loading processes."""
    with _loading_guard():  # a real Ctrl-C interrupts the wait
        return _load_registry_isolated(bots_dir, entry_points, memory_mib, seconds)


def _load_registry_isolated(bots_dir, entry_points: bool, memory_mib: int, seconds: float):
    from . import builtin_plugins

    registry = Registry()
    loader = Loader(registry)
    loader.add_plugin(builtin_plugins, "arena (bundled)")
    paths = bot_files(bots_dir)
    for path, report in zip(paths, _reports(paths, memory_mib, seconds), strict=True):
        _register(loader, path, report)
    if entry_points:
        load_entry_points(loader)
    check_declared_games(loader)
    return registry


def _register(loader: Loader, path: Path, report: dict | str) -> None:
    source = str(path)
    if isinstance(report, str):
        loader.error(source, report)
        return
    for message in report["errors"]:
        loader.error(source, message)
    if report["games"]:
        loader.error(
            source,
            f"registers the game(s) {', '.join(report['games'])}: with --isolation process a bot "
            "file may register bots only (a game's engine runs inside arena)",
        )
    origin = ("file", str(path.resolve()))
    pending = []
    for bot in report["bots"]:
        games = None if bot["games"] is None else frozenset(bot["games"])
        cls = type(bot["name"], (LoadedElsewhere,), {"name": bot["name"], "games": games})
        settings = tuple((key, _Text(value)) for key, value in bot["settings"])
        pending.append(("bot", BotSpec(bot["name"], cls, settings, source, origin)))
    loader.commit(source, pending)


def _reports(paths: list[Path], memory_mib: int, seconds: float) -> list[dict | str]:
    """One report per file: what it registered (a dict) or why it could not be loaded (a str)."""
    reports: list[dict | str | None] = [None] * len(paths)
    start = 0
    while start < len(paths):
        reports[start:] = _run_loading_process(paths[start:], memory_mib, seconds)
        start = next((i for i, r in enumerate(reports) if r is None), len(paths))
    return reports  # type: ignore[return-value]


def _run_loading_process(paths: list[Path], memory_mib: int, seconds: float) -> list:
    """Reports for ``paths`` until the loading process fails; None for the files it did not get
    to. It always reports on the first file, if only why that could not be loaded."""
    reports: list = [None] * len(paths)
    read_fd, write_fd = os.pipe()
    config = {"paths": [str(p) for p in paths], "result_fd": write_fd, "memory": memory_mib}
    package_root = str(Path(__file__).resolve().parent.parent)
    env = dict(os.environ)
    env[CONFIG_ENV] = json.dumps(config)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "arena.probe"],
            pass_fds=(write_fd,),
            env=env,
            stdin=subprocess.DEVNULL,
            start_new_session=True,  # its own process group: killed with whatever it started
        )
    finally:
        os.close(write_fd)
    current: int | None = None  # the file being loaded
    following = 0  # the next file to begin
    buffer = b""
    try:
        with os.fdopen(read_fd, "rb", buffering=0) as pipe:
            deadline = time.monotonic() + seconds
            while following < len(paths) or current is not None:
                line, buffer, why = _next_line(pipe, buffer, deadline, seconds)
                message = None if line is None else _parse(line, current, following, len(paths))
                if message is None:
                    if line is not None:
                        why = "its loading process wrote something else than its report"
                    if current is not None:
                        reports[current] = why or _ended(process)
                    elif following == 0:  # not even the first file begun
                        reports[0] = f"could not be loaded: {why or _ended(process)}"
                    return reports  # (between two files: a new loading process goes on)
                if "bots" not in message:
                    current = message["file"]
                    deadline = time.monotonic() + seconds
                else:
                    reports[current] = message
                    current, following = None, current + 1
            return reports
    finally:
        _stop(process)


def _next_line(pipe, buffer: bytes, deadline: float, seconds: float) -> tuple:
    """(a complete line or None, what is left, why None: "" for an ended pipe, else the reason)."""
    while b"\n" not in buffer:
        if len(buffer) > MAX_REPORT:
            return None, b"", "its loading process wrote a report too long to be one"
        wait = deadline - time.monotonic()
        if wait <= 0 or not select.select([pipe], [], [], wait)[0]:
            return None, b"", f"did not finish loading within {seconds:g} s"
        chunk = pipe.read(1 << 16)
        if not chunk:
            return None, b"", ""
        buffer += chunk
    line, _, rest = buffer.partition(b"\n")
    return line, rest, ""


def _parse(line: bytes, current: int | None, following: int, files: int) -> dict | None:
    """The report, if it is one the loading process could honestly write now; None otherwise:
    a file begins (``{"file": i}``, the next one) or the file begun ends (what it registered)."""
    try:
        message = json.loads(line)
    except ValueError:
        return None
    if not isinstance(message, dict) or type(message.get("file")) is not int:
        return None
    index = message["file"]
    if "bots" not in message:
        begins = current is None and index == following < files and len(message) == 1
        return message if begins else None
    if index != current or set(message) != {"file", "bots", "games", "errors"}:
        return None
    if not (_texts(message["errors"], 1000) and _texts(message["games"], MAX_TEXT)):
        return None
    bots = message["bots"]
    if not isinstance(bots, list) or not all(_plausible_bot(b) for b in bots):
        return None
    return message


def _texts(values, longest: int) -> bool:
    return isinstance(values, list) and all(
        isinstance(v, str) and 0 < len(v) <= longest for v in values
    )


def _plausible_bot(bot) -> bool:
    if not isinstance(bot, dict) or set(bot) != {"name", "games", "settings"}:
        return False
    name, games, settings = bot["name"], bot["games"], bot["settings"]
    return (
        isinstance(name, str)
        and 0 < len(name.strip()) <= MAX_TEXT
        and name.isprintable()
        and (games is None or _texts(games, MAX_TEXT))
        and isinstance(settings, list)
        and all(
            isinstance(s, list) and len(s) == 2 and _texts(s, MAX_TEXT) and s[0].isidentifier()
            for s in settings
        )
    )


def _ended(process: subprocess.Popen) -> str:
    try:
        code = process.wait(timeout=1.0)
    except subprocess.TimeoutExpired:
        return "closed its report without finishing it"
    if code < 0:
        try:
            how = f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            how = f"was killed by signal {-code}"
    else:
        how = f"ended (exit code {code})"
    return f"its loading process {how} while loading it"


def _stop(process: subprocess.Popen) -> None:
    try:  # the loading process and anything a bot file started
        os.killpg(process.pid, signal.SIGKILL)
    except OSError:
        if process.poll() is None:
            process.kill()
    process.wait()


# --- the loading process ----------------------------------------------------------------------


def _show(value) -> str:
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__}>"
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 3] + "..."


def _load(path: str) -> dict:
    registry = Registry()
    load_file(Loader(registry), Path(path))
    return {
        "bots": [
            {
                "name": spec.name,
                "games": None if spec.games is None else sorted(spec.games),
                "settings": [[key, _show(value)] for key, value in spec.settings],
            }
            for spec in registry.bots.values()
        ],
        "games": sorted(registry.games),
        "errors": [error.message for error in registry.errors],
    }


def main() -> None:
    from .lifeline import die_with_parent
    from .sandbox import no_memory_access, signal_only_self

    config = json.loads(os.environ.pop(CONFIG_ENV))
    die_with_parent()
    out = int(config["result_fd"])
    # A bot file's prints must not reach the report pipe, nor the run's own output.
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    signal_only_self()  # before any bot file runs: it may not signal arena
    no_memory_access()
    limit = int(config["memory"]) * 1024 * 1024
    if limit > 0:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    def send(message: dict) -> None:
        data = (json.dumps(message, separators=(",", ":")) + "\n").encode()
        view = memoryview(data)
        while view:
            view = view[os.write(out, view) :]

    for index, path in enumerate(config["paths"]):
        send({"file": index})
        send({"file": index, **_load(path)})


if __name__ == "__main__":
    main()
