"""arena.execution.backend: every backend gives the same outcomes, in schedule order.

The leaderboard of a run does not depend on ``--jobs`` or ``--isolation`` because each backend
yields every scheduled game's outcome in the order of the schedule, and a game's outcome depends
only on its seed.
"""

from __future__ import annotations

import pytest
from conftest import FIRST_BOT, RANDOM_BOT, bot_file, write_bots

from arena.execution.backend import InProcess, IsolatedBots, SharedWorkers, make_backend
from arena.execution.context import PlayContext
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
