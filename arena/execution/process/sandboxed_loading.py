"""Loading bot files without importing them into arena's own process (``--isolation process``).

To learn which bots a file registers, its code must run: its imports, its module body and its
``arena_register_bots`` hook. In the shared mode arena runs them itself. With ``--isolation
process`` no bot code may run in the process that keeps the results: a file could end that process
at import (``os._exit``), hang it, or look around in it. So a fresh *loading process* (``python
-m arena.execution.process.sandboxed_loading``) for each file, under the limits of a bot process
(the memory limit, the signal filter, no access to other processes' memory), imports it and
reports on a pipe, as JSON lines, what it registered (each bot's name, games and settings, as
text) or why it failed. Arena's process rebuilds the registry from the reports, in the same order
and with the same errors as loading the files itself, with stand-in classes that carry a name and
games only: the bots' code runs only in their own processes (``arena.execution.process.bot_host``).

One process per file (a few at once): a file can neither forge another's report, nor end the
process while another loads, nor take memory from another. A file that ends its loading process,
or does not finish loading within ``LOAD_SECONDS``, is a load error naming it. What a loading
process writes is checked as hostile input. A bot file may not register games in this mode: a game's
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

from arena.bot import Bot
from arena.execution.child_process import child_environment
from arena.execution.process import bubblewrap
from arena.execution.process.bubblewrap import SandboxSettings
from arena.plugins.loading import BotSpec, Loader, Registry, load_file, load_registry
from arena.referee.faults import describe, process_ended

CONFIG_ENV = "ARENA_SANDBOXED_LOADING"
LOAD_SECONDS = 30.0  # for one file, as long as a bot process may take to start
PARALLEL = max(2, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 2)
POLL_SECONDS = 0.1  # how often a loading process is looked at while its pipe says nothing
MAX_REPORT = 16 << 20  # bytes of one report line
MAX_MESSAGE = 1000  # characters of an error kept (one line)
MAX_SETTING = 200  # characters of a setting's value shown


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
    bots_dir=None,
    entry_points: bool = True,
    memory_mib: int = 1024,
    seconds: float = LOAD_SECONDS,
    sandbox: SandboxSettings | None = None,
) -> Registry:
    """``plugins.load_registry``, with the bot files imported only by loading processes (under
    bubblewrap as ``sandbox`` says, as the bots' own processes)."""
    limits = (memory_mib, seconds, sandbox or SandboxSettings())

    def load_files(loader: Loader, paths: list[Path]) -> None:
        for path, report in zip(paths, _reports(paths, limits), strict=True):
            _register(loader, path, report)

    # (under its loading guard, a real Ctrl-C interrupts the wait)
    return load_registry(bots_dir, entry_points, load_files)


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


def _reports(paths: list[Path], limits: tuple) -> list[dict | str]:
    """One report per file: what it registered (a dict) or why it could not be loaded (a str).
    Each file has a loading process of its own (a file could otherwise forge the next file's
    report, end the process while the next file loads, or leave it less memory), and up to
    ``PARALLEL`` of them run at once."""
    reports: list[dict | str | None] = [None] * len(paths)
    waiting = list(reversed(range(len(paths))))
    running: dict[int, _Loading] = {}  # by the file descriptor of its report pipe
    try:
        while waiting or running:
            while waiting and len(running) < PARALLEL:
                index = waiting.pop()
                try:
                    loading = _Loading(index, paths, *limits)
                except OSError as exc:  # no process to be had (not allowed to run, no memory)
                    reports[index] = f"its loading process could not start: {describe(exc)}"
                    continue
                running[loading.fd] = loading
            now = time.monotonic()
            wait = min(POLL_SECONDS, *(max(0.0, r.deadline - now) for r in running.values()))
            ready, _, _ = select.select(list(running), [], [], wait)
            for fd in ready:
                running[fd].read()
            for fd, loading in list(running.items()):
                if loading.report is None:
                    loading.check(time.monotonic())
                if loading.report is not None:
                    reports[loading.index] = loading.report
                    loading.stop()
                    del running[fd]
    finally:
        for loading in running.values():
            loading.stop()
    return reports  # type: ignore[return-value]


class _Loading:
    """One file's loading process, and what it has written so far."""

    def __init__(
        self,
        index: int,
        paths: list[Path],
        memory_mib: int,
        seconds: float,
        sandbox: SandboxSettings,
    ):
        self.index = index
        self.seconds = seconds
        self.deadline = time.monotonic() + seconds
        self.buffer = b""
        self.report: dict | str | None = None
        self.begun = False
        self.fd, write_fd = os.pipe()
        sandboxed = bubblewrap.active(sandbox)
        config = {
            "paths": [str(paths[index].absolute())],  # (it runs in another folder)
            "result_fd": write_fd,
            "memory": memory_mib,
            "processes": bubblewrap.process_cap() if sandboxed else 0,
        }
        env = child_environment(CONFIG_ENV, config)
        try:
            self.process, self.wrapped = bubblewrap.start(
                # -P: not the working directory first on sys.path (a json.py there would do)
                [sys.executable, "-P", "-m", "arena.execution.process.sandboxed_loading"],
                [str(paths[index])],
                sandbox,
                memory_mib * 1024 * 1024,
                pass_fds=(write_fd,),
                env=env,
            )
        except BaseException:
            os.close(self.fd)
            raise
        finally:
            os.close(write_fd)

    def read(self) -> None:
        """Take in what the pipe holds: a report, or why there is none."""
        try:
            chunk = os.read(self.fd, 1 << 16)
        except OSError:
            chunk = b""
        if not chunk:  # the pipe ended: the process has ended
            self.report = _ended(self.process, self.wrapped)
            return
        self.buffer += chunk
        while self.report is None and b"\n" in self.buffer:
            line, _, self.buffer = self.buffer.partition(b"\n")
            message = _parse(line, self.begun)
            if message is None:
                self.report = "its loading process wrote something else than its report"
            elif "bots" in message:
                self.report = message
            else:
                self.begun = True
        if self.report is None and len(self.buffer) > MAX_REPORT:
            self.report = "its loading process wrote a report too long to be one"

    def check(self, now: float) -> None:
        """No report yet: the process may have ended (while something it started holds the
        pipe), or be out of time."""
        if self.process.poll() is not None:
            self.read_rest()
            if self.report is None:
                self.report = _ended(self.process, self.wrapped)
        elif now >= self.deadline:
            self.report = f"did not finish loading within {self.seconds:g} s"

    def read_rest(self) -> None:
        """What the ended process wrote before it ended (never waiting for the pipe to end)."""
        while self.report is None and select.select([self.fd], [], [], 0)[0]:
            self.read()

    def stop(self) -> None:
        _stop(self.process)
        try:
            os.close(self.fd)
        except OSError:
            pass


def _parse(line: bytes, begun: bool) -> dict | None:
    """The message, if it is one the loading process could honestly write now; None otherwise:
    the file begins (``{"file": 0}``), then what it registered."""
    try:
        message = json.loads(line)
    except Exception:  # noqa: BLE001 - a RecursionError too: whatever a hostile writer provokes
        return None
    if not isinstance(message, dict) or message.get("file") != 0:
        return None
    if not begun:
        return message if len(message) == 1 else None
    if set(message) != {"file", "bots", "games", "errors"}:
        return None
    if not (_texts(message["errors"]) and _texts(message["games"])):
        return None
    bots = message["bots"]
    if not isinstance(bots, list) or not all(_plausible_bot(b) for b in bots):
        return None
    return message


def _texts(values) -> bool:
    return isinstance(values, list) and all(isinstance(v, str) and v.strip() for v in values)


def _plausible_bot(bot) -> bool:
    if not isinstance(bot, dict) or set(bot) != {"name", "games", "settings"}:
        return False
    name, games, settings = bot["name"], bot["games"], bot["settings"]
    return (
        isinstance(name, str)
        and bool(name.strip())
        and (games is None or _texts(games))
        and isinstance(settings, list)
        and all(isinstance(s, list) and len(s) == 2 and _texts(s) for s in settings)
    )


def _ended(process: subprocess.Popen, wrapped: bool) -> str:
    try:
        code = bubblewrap.exit_code(process.wait(timeout=1.0), wrapped)
    except subprocess.TimeoutExpired:
        return "closed its report without finishing it"
    return f"{process_ended(code, 'its loading process')} while loading it"


def _stop(process: subprocess.Popen) -> None:
    try:  # the loading process and anything a bot file started
        os.killpg(process.pid, signal.SIGKILL)
    except OSError:
        if process.poll() is None:
            process.kill()
    process.wait()


# --- the loading process ----------------------------------------------------------------------


def setting_text(value) -> str:
    """A bot's setting as the loading process shows it (``tournament.versions`` fingerprints
    settings the same way, so that a bot has one fingerprint in both isolation modes)."""
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__}>"
    return text if len(text) <= MAX_SETTING else text[: MAX_SETTING - 3] + "..."


def _line(message: str) -> str:
    message = " ".join(message.split()) or "?"
    return message if len(message) <= MAX_MESSAGE else message[: MAX_MESSAGE - 3] + "..."


def _load(path: str) -> dict:
    registry = Registry()
    load_file(Loader(registry), Path(path))
    return {
        "bots": [
            {
                "name": spec.name,
                "games": None if spec.games is None else sorted(spec.games),
                "settings": [[key, setting_text(value)] for key, value in spec.settings],
            }
            for spec in registry.bots.values()
        ],
        "games": sorted(registry.games),
        "errors": [_line(error.message) for error in registry.errors],
    }


def main() -> None:
    from arena.execution.child_process import die_with_parent
    from arena.execution.process.sandbox import no_memory_access, signal_only_self

    config = json.loads(os.environ.pop(CONFIG_ENV))
    processes = int(config.get("processes", 0))
    die_with_parent(orphan_check=not processes)  # (sandboxed, its parent is the sandbox's pid 1)
    out = int(config["result_fd"])
    # A bot file's prints must not reach the report pipe, nor the run's own output.
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    bubblewrap.confine(processes)  # before any bot file runs: no process without end
    signal_only_self(no_processes=processes == 1)  # nor may it signal arena
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
