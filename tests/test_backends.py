"""arena.execution.backend: every backend gives the same outcomes, in schedule order.

The leaderboard of a run does not depend on ``--jobs`` or ``--isolation`` because each backend
yields every scheduled game's outcome in the order of the schedule, and a game's outcome depends
only on its seed.
"""

from __future__ import annotations

import pytest
from conftest import FIRST_BOT, RANDOM_BOT, bot_file, write_bots

from arena.execution.backend import InProcess, IsolatedBots, SharedWorkers, make_backend
from arena.execution.context import PlayContext, ScheduledGame
from arena.games import HowLowCanYouGo, TwentyDown
from arena.plugins.loading import load_registry
from arena.tournament.schedule import round_robin

pytestmark = pytest.mark.usefixtures("isolated")

# Faults of every kind a deterministic bot makes: exceptions and illegal answers, then forfeits.
SLOPPY = bot_file(
    "sloppy",
    """
    roll = self.rng.random()
    if roll < 0.05:
        raise ValueError("boom")
    if roll < 0.1:
        return "not an action"
    return observation.legal_actions[0]
    """,
)


@pytest.fixture
def context(tmp_path) -> PlayContext:
    folder = write_bots(
        tmp_path / "bots", {"random.py": RANDOM_BOT, "first.py": FIRST_BOT, "sloppy.py": SLOPPY}
    )
    registry = load_registry(bots_dir=folder, entry_points=False)
    games = {"twenty-down": TwentyDown(), "how-low-can-you-go": HowLowCanYouGo(players=3)}
    return PlayContext(registry, games, move_time=1.0, max_faults=3, records=True)


@pytest.mark.parametrize("isolation, jobs", [("shared", 0), ("shared", 2), ("process", 1)])
def test_a_round_is_asked_for_only_once_the_round_before_is_taken(context, isolation, jobs):
    """What swiss and matchmaking rely on: the next round is drawn from every outcome before it."""
    schedule = list(round_robin("twenty-down", ["random", "first", "sloppy"], 4, 12, "rounds"))
    taken = []

    def rounds():
        for start in range(0, 12, 5):
            assert len(taken) == start  # every game of the rounds before is out already
            yield schedule[start : start + 5]

    with make_backend(context, isolation, jobs) as backend:
        for item, _ in backend.outcomes_by_round(rounds()):
            taken.append(item)
    assert taken == schedule


def _comparable(outcome):
    return (
        outcome.game,
        outcome.seed,
        outcome.bots,
        outcome.scores,
        outcome.ranks,
        outcome.faults,
        outcome.forfeits,
        outcome.decisions,
        [(f.seat, f.decision, f.kind, f.message) for f in outcome.fault_log],
    )


@pytest.mark.parametrize("game", ["twenty-down", "how-low-can-you-go"])
def test_every_backend_gives_the_same_outcomes_in_schedule_order(context, game):
    players = context.games[game].players
    schedule = list(round_robin(game, ["random", "first", "sloppy"], players, 12, "backends", True))
    seen = {}
    for backend in (InProcess(context), SharedWorkers(context, 2), IsolatedBots(context, 1)):
        with backend:
            pairs = list(backend.outcomes(schedule))
        assert [item for item, _ in pairs] == schedule, type(backend).__name__
        seen[type(backend).__name__] = [_comparable(outcome) for _, outcome in pairs]
    reference = seen.pop("InProcess")
    assert any(faults for *_, faults in reference)  # the faults are part of what is compared
    for name, outcomes in seen.items():
        assert outcomes == reference, name


@pytest.mark.parametrize(
    "isolation,jobs,expected",
    [("shared", 0, InProcess), ("shared", 2, SharedWorkers), ("process", 0, IsolatedBots)],
)
def test_make_backend_chooses_by_isolation_and_jobs(context, isolation, jobs, expected):
    backend = make_backend(context, isolation, jobs)
    assert type(backend) is expected


# A bot that refuses the seed the referee gives it: it cannot play (its seat forfeits at once).
SEEDLESS = """
import arena


class Seedless(arena.Bot):
    name = "seedless"

    def __setattr__(self, name, value):
        if name == "_arena_seed":
            raise RuntimeError("no seed for me")
        super().__setattr__(name, value)

    def act(self, observation):
        return observation.legal_actions[0]


@arena.hookimpl
def arena_register_bots(register):
    register(Seedless)
"""

# A start() that returns, but after the time limit (SIGALRM ignored: it cannot be interrupted).
LATE_START = """
import signal
import time

import arena


class LateStart(arena.Bot):
    name = "late-start"

    def start(self, info):
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        time.sleep(info.move_time + 0.3)

    def act(self, observation):
        return observation.legal_actions[0]


@arena.hookimpl
def arena_register_bots(register):
    register(LateStart)
"""


def _one_game_both_ways(tmp_path, files: dict, seats: tuple) -> list:
    """The outcome of one game of twenty-down played in this process and with every bot in its own
    process, which must be the same."""
    folder = write_bots(tmp_path / "bots", {"random.py": RANDOM_BOT, **files})
    registry = load_registry(bots_dir=folder, entry_points=False)
    assert not registry.errors
    context = PlayContext(registry, {"twenty-down": TwentyDown()}, move_time=0.2, max_faults=3)
    item = ScheduledGame(0, "twenty-down", "seated", seats, 0)
    outcomes = []
    for backend in (InProcess(context), IsolatedBots(context, 1)):
        with backend:
            ((_, outcome),) = list(backend.outcomes([item]))
        outcomes.append(outcome)
    assert _comparable(outcomes[1])[:-1] == _comparable(outcomes[0])[:-1]
    return outcomes


def test_a_bot_refusing_its_seed_forfeits_in_both_isolation_modes(tmp_path):
    """Giving a bot its seed is guarded as creating it is: the seat forfeits with an ``exception``
    fault, in its own process too (where it used to end the process: a ``crash``)."""
    seats = ("random", "seedless", "random", "random")
    for outcome in _one_game_both_ways(tmp_path, {"seedless.py": SEEDLESS}, seats):
        assert outcome.forfeits == (False, True, False, False)
        assert [(f.seat, f.decision, f.kind, f.message) for f in outcome.fault_log] == [
            (1, 0, "exception", "RuntimeError: no seed for me")
        ]


def test_a_start_returning_after_the_time_limit_is_a_timeout_in_both_isolation_modes(tmp_path):
    seats = ("late-start", "random", "random", "random")
    for outcome in _one_game_both_ways(tmp_path, {"late.py": LATE_START}, seats):
        assert outcome.forfeits == (False,) * 4
        ((seat, decision, kind, message),) = [
            (f.seat, f.decision, f.kind, f.message) for f in outcome.fault_log
        ]
        assert (seat, decision, kind) == (0, 0, "timeout")
        assert message.startswith("in start(): answered after "), message
        assert message.endswith("(limit 0.2 s)"), message
