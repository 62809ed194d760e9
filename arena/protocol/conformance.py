"""``arena check-bot``: does a program speak the protocol? It plays a few games of each game the
program declares, against ``random`` in the other seats, and reports every message that breaks
the specification (``docs/protocol.md``) and every fault, one line each.

What it checks: the hello (protocol version, a name, the games, and that they agree with the
manifest); that every line the program writes is a message of the protocol; that every action is
legal and written in record notation (a set of cards sorted by card number; arena accepts other
orders, this test does not); that answers come within the move time; that the program neither
ends nor writes unasked. The games are played under the limits of a bot's own process.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from arena.execution.process.bubblewrap import SandboxSettings
from arena.execution.process.program_bot import ENDED, ProgramLimits, ProgramPool
from arena.plugins.loading import Registry
from arena.plugins.manifests import Manifest, ManifestError, prepare, read_manifest
from arena.protocol import messages
from arena.referee.inline import play_game


@dataclass
class Report:
    name: str = ""
    problems: list[str] = field(default_factory=list)
    games: int = 0
    decisions: int = 0
    asked: int = 0  # requests to act the program got
    ended: bool = False  # the program ended or was killed (its standard error may say why)

    def add(self, problem: str) -> None:
        if problem not in self.problems:
            self.problems.append(problem)

    def add_fault(self, where: str, kind: str, message: str) -> None:
        """A fault of the program's, as one problem (and whether it says the program ended)."""
        self.ended = self.ended or (kind in ("crash", "cpu") and message.startswith(ENDED))
        self.add(f"{where}: {kind}: {message}")


class _Listener:
    """Told every line both ways: checks what the program writes against what it was asked."""

    def __init__(self, report: Report):
        self.report = report
        self.legal: list | None = None
        self.count: int | None = None

    def __call__(self, direction: str, line: bytes) -> None:
        if direction == "arena":
            message = json.loads(line)
            if message["type"] == "act":
                # (the compact form shows the legal actions only if asked for, their count always)
                self.legal = message["observation"].get("legal_actions")
                self.count = message.get("count")
                self.report.asked += 1
            return
        try:
            message = messages.parse_line(line)
        except messages.ProtocolError as exc:
            self.report.add(f"line: {exc}")
            return
        if message["type"] == "action" and ("action" in message) == ("index" in message):
            self.report.add("action: names neither an action nor an index, or both")
        elif message["type"] == "action" and "action" in message and self.legal is not None:
            action = message.get("action")
            if action not in self.legal:
                try:
                    messages.action_index(message, self.legal)
                    self.report.add(
                        f"action {json.dumps(action)}: a set of cards must be sorted by card "
                        "number (docs/records.md); arena accepts it, the check does not"
                    )
                except ValueError:
                    pass  # (a fault: reported with the game)
            self.legal = None
        known = {"type", "action", "index", "message", "protocol", "name", "games", "id",
                 "request", "fields"}  # fmt: skip
        unknown = sorted(set(message) - known)
        if unknown:
            self.report.add(f"{message['type']}: unknown key(s) {', '.join(unknown)}")


def command_manifest(command: list[str]) -> Manifest:
    """A manifest for a program named on the command line (no build, every game it declares);
    the files its arguments name (relative or absolute) are its sources, shown to it in the
    sandbox."""
    path = Path(command[0]).resolve()
    files = tuple(str(Path(arg).resolve()) for arg in command[1:] if Path(arg).is_file())
    return Manifest(str(path.parent / f"{path.stem}.toml"), path.stem, None, tuple(command),
                    None, (), files)  # fmt: skip


def load(target: list[str]) -> Manifest:
    """The manifest named, or one for the program named; ManifestError if it cannot start."""
    if len(target) == 1 and target[0].endswith(".toml"):
        manifest = read_manifest(Path(target[0]))
    else:
        manifest = command_manifest(target)
    prepare(manifest)
    return manifest


def check(
    manifest: Manifest,
    registry: Registry,
    games_each: int = 3,
    move_time: float = 1.0,
    memory: int = 1 << 30,
    sandbox: SandboxSettings | None = None,
    stderr: bool = False,
    echo=print,
) -> Report:
    """Play ``games_each`` games of every game the program declares; the report of problems."""
    report = Report(manifest.name)
    limits = ProgramLimits(move_time, memory, None, sandbox or SandboxSettings(),
                           None if stderr else subprocess.DEVNULL)  # fmt: skip
    pool = ProgramPool(manifest, limits, on_line=_Listener(report))
    try:
        try:
            pool.process()
        except Exception as exc:
            report.ended = str(exc).startswith(ENDED)
            report.add(f"hello: {exc}")
            return report
        hello = pool.hello or {}
        if not Path(manifest.path).is_file():  # a program named on the command line
            report.name = str(hello.get("name") or manifest.name)
        declared = _declared_games(manifest, hello, registry, report)
        _check_fields(hello, declared, registry, report)
        for name in declared:
            _play(name, pool, registry, games_each, move_time, report, echo)
    finally:
        pool.close()
    return report


def _declared_games(manifest: Manifest, hello: dict, registry: Registry, report: Report) -> list:
    said = list(hello.get("games", []))
    if manifest.games is not None and said and sorted(said) != sorted(manifest.games):
        report.add(f"hello: games {said} differ from the manifest's {list(manifest.games)}")
    if (
        hello.get("name") != manifest.name
        and manifest.path.endswith(".toml")
        and Path(manifest.path).is_file()
    ):
        report.add(
            f"hello: name {hello.get('name')!r} differs from the manifest's {manifest.name!r}"
        )
    wanted = list(manifest.games or said or registry.games)
    known = [registry.game(g).name for g in wanted if g in registry.games or g in registry.aliases]
    for game in wanted:
        if game not in registry.games and game not in registry.aliases:
            report.add(f"hello: unknown game {game!r} (games: {', '.join(registry.games)})")
    return known


def _check_fields(hello: dict, games: list, registry: Registry, report: Report) -> None:
    """The compact form's fields must be observation fields of one of its games."""
    wanted = messages.fields_wanted(hello)
    if not wanted:
        return
    known: set = set()
    for name in games:
        observation = registry.games[name].cls().new_state("check-bot").observation(0)
        known.update(type(observation).fields)
    unknown = sorted(wanted - known)
    if unknown:
        report.add(f"hello: fields {unknown} are no observation field of its games")


def _play(name, pool, registry, games_each, move_time, report, echo) -> None:
    game = registry.games[name].cls()
    random_bot = registry.bots["random"].create
    for number in range(games_each):
        seat = number % game.players
        factories = [random_bot] * game.players
        factories[seat] = pool.factory
        names = tuple("check" if s == seat else "random" for s in range(game.players))
        outcome = play_game(game, factories, names, f"check-bot/{name}/{number}", move_time)
        report.games += 1
        report.decisions += outcome.decisions
        for fault in outcome.fault_log:
            where = {0: "start", -1: "end"}.get(fault.decision, f"decision {fault.decision}")
            report.add_fault(f"{name} game {number + 1}, seat {seat}, {where}", fault.kind,
                             fault.message)  # fmt: skip
        echo(f"{name} game {number + 1}: seat {seat}, {outcome.decisions} decisions, "
             f"{sum(1 for f in outcome.fault_log if f.seat == seat)} fault(s)")  # fmt: skip


__all__ = ["ManifestError", "Report", "check", "load"]
