"""Shared fixtures of the harness tests: bot files in a temporary ``bots/``, a tiny game, the CLI.

Every harness test runs in its own temporary working directory (``leaderboard/`` and ``bots/`` are
found in the current directory), with ``ARENA_BOTS_DIR`` unset, so no test can touch the
repository's ``leaderboard/`` or pick up the repository's ``bots/`` by accident.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.games.base import Game, GameResult, Observation, State, competition_ranks

REPO = Path(__file__).resolve().parent.parent

# --- the optional C extensions ------------------------------------------------------------------


def require_c_extension(module, missing: str) -> None:
    """Skip the test where the C extension ``module`` is not built (None), or fail it when
    ``ARENA_REQUIRE_C_EXTENSION=1`` says every extension must be (where a compiler exists)."""
    if module is None:
        if os.environ.get("ARENA_REQUIRE_C_EXTENSION") == "1":
            pytest.fail(f"ARENA_REQUIRE_C_EXTENSION=1 but {missing}")
        pytest.skip(missing)


# --- bot files ------------------------------------------------------------------------------------

RANDOM_BOT = """
import arena


class RandomBot(arena.Bot):
    name = "random"

    def act(self, observation):
        legal = observation.legal_actions
        return legal[self.rng.randrange(len(legal))]


@arena.hookimpl
def arena_register_bots(register):
    register(RandomBot)
"""

FIRST_BOT = """
import arena


class First(arena.Bot):
    name = "first"

    def act(self, observation):
        return observation.legal_actions[0]


@arena.hookimpl
def arena_register_bots(register):
    register(First)
"""

# Plays Twenty Down only: the bot "asked for a game it does not play".
TD_ONLY_BOT = """
import arena


class TdOnly(arena.Bot):
    name = "td-only"
    games = {"twenty-down"}

    def act(self, observation):
        return observation.legal_actions[-1]


@arena.hookimpl
def arena_register_bots(register):
    register(TdOnly)
"""

STANDARD_BOTS = {"random_bot.py": RANDOM_BOT, "first_bot.py": FIRST_BOT, "td_only.py": TD_ONLY_BOT}


def bot_file(name: str, body: str, header: str = "") -> str:
    """The source of a bot file registering one bot ``name`` whose ``act`` runs ``body``."""
    return (
        "import arena\n"
        + textwrap.dedent(header).strip()
        + "\n\n\nclass TestBot(arena.Bot):\n"
        + f"    name = {name!r}\n\n"
        + "    def act(self, observation):\n"
        + textwrap.indent(textwrap.dedent(body).strip(), " " * 8)
        + "\n\n\n@arena.hookimpl\ndef arena_register_bots(register):\n    register(TestBot)\n"
    )


def plugin_bots(registry) -> set[str]:
    """The names of the bots a registry got from bot files and plugins, not the bundled ones
    (``arena.plugins.baseline``, registered wherever arena is installed)."""
    from arena.plugins.loading import BUNDLED

    return {name for name, spec in registry.bots.items() if spec.source != BUNDLED}


def write_bots(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for filename, source in files.items():
        (folder / filename).write_text(textwrap.dedent(source), encoding="utf-8")
    return folder


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    """Run in an empty temporary folder with no plugin environment variables.

    The harness test modules use it for every test (``pytestmark``); engine tests need not.
    """
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.delenv("ARENA_BOTS_DIR", raising=False)
    monkeypatch.delenv("ARENA_TRACE_PLUGINS", raising=False)
    before = {m for m in sys.modules if m.startswith("arena_bots.")}
    yield
    for module in [m for m in sys.modules if m.startswith("arena_bots.") and m not in before]:
        del sys.modules[module]


@pytest.fixture
def bots_dir(tmp_path) -> Path:
    """A temporary bot folder with ``random``, ``first`` (every game) and ``td-only``."""
    return write_bots(tmp_path / "bots", STANDARD_BOTS)


@pytest.fixture
def db_path(tmp_path) -> Path:
    return tmp_path / "results" / "arena.db"


# --- the command line -----------------------------------------------------------------------------


class Cli:
    def __init__(self):
        self.runner = CliRunner()

    def __call__(self, *args, env: dict | None = None, input: str | None = None):
        from arena.cli import app

        return self.runner.invoke(app, [str(a) for a in args], env=env, input=input)


@pytest.fixture
def cli() -> Cli:
    return Cli()


def assert_one_line_error(result, *fragments: str, code: int = 2) -> str:
    """The command failed with ``code`` and exactly one line on stderr, no traceback."""
    assert result.exit_code == code, (result.exit_code, result.output, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    line = lines[0]
    assert line.startswith("arena: error: "), line
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in line, (fragment, line)
    return line


def leaderboard_json(cli: Cli, db: Path) -> dict:
    result = cli("leaderboard", "--db", db, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def count_games(db: Path, game: str | None = None) -> int:
    with sqlite3.connect(db) as con:
        if game is None:
            return con.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        return con.execute("SELECT COUNT(*) FROM games WHERE game=?", (game,)).fetchone()[0]


# --- a tiny game for the referee: exact, fast, fully predictable --------------------------------


class TallyObservation(Observation):
    fields = ("game", "seat", "legal_actions", "scores", "turn")


class TallyState(State):
    """Each seat in turn picks a number below ``choices``, ``rounds`` times; highest total wins."""

    def __init__(self, game: TallyGame, chance):
        self.game = game
        self.chance = chance
        self.history = []
        self.turn = 0
        self.scores = [0] * game.players
        self.total_turns = game.players * game.params["rounds"]

    def current_player(self) -> int:
        return -1 if self.turn >= self.total_turns else self.turn % self.game.players

    def legal_actions(self) -> list:
        return list(range(self.game.params["choices"])) if not self.is_terminal() else []

    def is_terminal(self) -> bool:
        return self.turn >= self.total_turns

    def observation(self, seat: int) -> TallyObservation:
        obs = TallyObservation()
        obs.game = self.game.name
        obs.seat = seat
        obs.legal_actions = self.legal_actions() if seat == self.current_player() else []
        obs.scores = tuple(self.scores)
        obs.turn = self.turn
        return obs

    def result(self) -> GameResult:
        return GameResult(
            scores=tuple(self.scores), ranks=competition_ranks([-s for s in self.scores])
        )

    def clone(self):  # pragma: no cover - not needed by the referee
        raise NotImplementedError

    def _apply(self, action) -> None:
        self.scores[self.turn % self.game.players] += action
        self.turn += 1


class TallyGame(Game):
    name = "tally"
    min_players = 2
    max_players = 6
    default_players = 4
    parameters = {"rounds": 3, "choices": 10}
    state_class = TallyState


@pytest.fixture
def tally():
    return TallyGame


def record_of(outcome, game_class) -> dict:
    """The full JSON record of a played game, whatever compact form the outcome keeps it in."""
    record = outcome.record
    if isinstance(record, bytes | bytearray):
        from arena.games.record import expand

        record = expand(bytes(record), {game_class.name: game_class})
    return record
