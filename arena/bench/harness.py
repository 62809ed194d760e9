"""``arena bench``: decisions per second of the bare engines and of whole runs, in one sitting.

The engine figure is random legal play with no harness (``bench.engines``). The harness figure is a
real tournament — four seeded random bots, the referee with its time limit, TrueSkill updates and
SQLite storage with records — run with ``--jobs 1`` and ``--jobs 2``, with the bots inside the game
workers (``--isolation shared``) and each in its own process (``--isolation process``, with the
bubblewrap sandbox when it works here and without it, and what starting one bot process costs
either way: ``bench.startup``). Each figure is the median of ``repeats`` measurements.

The two isolation modes are run in turn, round by round, and a ratio of process isolation to the
shared mode (of decisions a second, or of CPU time a decision) is the median of the rounds' own
ratios, printed with their range: on a shared machine the load drifts over a sitting, and a ratio
of two medians measured minutes apart says as much about that drift as about arena. (The ratio of
``--jobs 2`` to ``--jobs 1`` is still one of medians.) Each run's CPU time a decision (all its
processes) is printed too, for process isolation only without the sandbox (under bubblewrap part
of the bot processes' time is not counted): on a machine whose cores are busy with other work, the
two modes' decisions a second compare the load more than arena, while the CPU time a decision
moves much less.
"""

from __future__ import annotations

import resource
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from arena.bench.engines import bench_games, measure
from arena.bench.startup import bot_start_line
from arena.execution.process import bubblewrap, wire
from arena.execution.process.bubblewrap import SandboxSettings
from arena.plugins.loading import Registry, load_registry
from arena.ratings.trueskill import environment_for
from arena.store.database import Store
from arena.tournament.plan import GamePlan, Tournament
from arena.tournament.run import run_tournament

BENCH_BOTS = """
import arena


class BenchRandom(arena.Bot):
    def act(self, observation):
        legal = observation.legal_actions
        return legal[self.rng.randrange(len(legal))]


@arena.hookimpl
def arena_register_bots(register):
    for i in range(1, 5):
        register(BenchRandom, name=f"random-{i}")
"""


def _random_registry(folder: Path) -> Registry:
    """Four seeded random bots, from a real bot file so that they can run in their own processes."""
    (folder / "bench_random.py").write_text(BENCH_BOTS, encoding="utf-8")
    return load_registry(bots_dir=folder, entry_points=False)


class Rate(NamedTuple):
    decisions_per_s: float
    games_per_s: float
    # CPU time of every process of the run (this one, the workers, the bot processes) per
    # decision: what the run costs a machine whose cores are busy with other work too, where
    # the time a run takes says more about the others than about arena. (Short of part of the
    # bot processes' under bubblewrap: see _paired_rates.)
    cpu_us_per_decision: float


def _cpu_seconds() -> float:
    """This process's CPU time and that of its children that have ended: the workers, and the
    bot processes, which the run reaps itself (``execution.descendants``) if no one else does."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def harness_rate(
    game_name: str,
    games: int,
    jobs: int,
    records: bool = True,
    seed: int = 1,
    isolation: str = "shared",
    sandbox: str = "auto",
) -> Rate:
    """Decisions/s, games/s and CPU µs per decision of one full run of four random bots
    (``sandbox``: ``--sandbox``)."""
    with tempfile.TemporaryDirectory() as folder:
        registry = _random_registry(Path(folder))
        game_class = registry.games[game_name].cls
        plan = GamePlan(
            game_name,
            game_class.default_players,
            [f"random-{i}" for i in range(1, 5)],
            environment=environment_for(game_class),
        )
        tournament = Tournament(
            [plan], games_per_game=games, seed=str(seed), records=records, isolation=isolation
        )
        store = Store(Path(folder) / "bench.db")
        start = time.perf_counter()
        cpu = _cpu_seconds()
        summary = run_tournament(
            tournament, registry, store, jobs=jobs, resume=False, sandbox=SandboxSettings(sandbox)
        )
        seconds = time.perf_counter() - start
        cpu = _cpu_seconds() - cpu
        store.close()
    decisions = max(1, summary.decisions)
    return Rate(decisions / seconds, summary.games_played / seconds, cpu / decisions * 1e6)


def run_bench(
    games: int = 300, repeats: int = 5, harness: bool = True, echo: Callable = print
) -> dict:
    figures: dict = {}
    if harness:
        echo(f"Observations for bot processes diffed in: {wire.implementation()}")
    for game_class in bench_games():
        game = game_class()
        row = measure(game, games, repeats=repeats)
        figures[(game.name, "engine")] = row["decisions_per_s"]
        echo(
            f"{game.name:<20} engine          {row['decisions_per_s']:>10,.0f} decisions/s"
            f"  {row['games_per_s']:>8,.1f} games/s"
            f"  ({row['decisions_per_game']:.0f} decisions/game)"
        )
        if not harness:
            continue
        # Runs long enough (about two seconds) that starting the workers does not count.
        run_games = max(games, int(row["games_per_s"]))
        for jobs in (1, 2):
            _paired_rates(game.name, run_games, jobs, repeats, figures, echo)
        echo(
            f"{game.name:<20} --jobs 2 / --jobs 1 = "
            f"{figures[(game.name, 'jobs2')] / figures[(game.name, 'jobs1')]:.2f}×"
        )
    if harness:
        echo(bot_start_line(repeats=max(5, repeats * 3)))
    return figures


def _paired_rates(name: str, run_games: int, jobs: int, repeats: int, figures: dict, echo) -> None:
    """The shared mode with ``jobs`` workers and ``--isolation process`` (under bubblewrap if it
    works here, and without any sandbox), round by round: each ratio to the shared mode is the
    median of the rounds' own ratios, each taken within seconds, so that a machine whose load
    drifts during the sitting moves both sides of a ratio alike."""
    sandboxes = ["bwrap", "none"] if bubblewrap.active(SandboxSettings()) else ["none"]
    shared, isolated = _rounds(name, run_games, jobs, repeats, sandboxes)
    dps = statistics.median(rate.decisions_per_s for rate in shared)
    cpu = statistics.median(rate.cpu_us_per_decision for rate in shared)
    figures[(name, f"jobs{jobs}")] = dps
    figures[(name, f"cpu-jobs{jobs}")] = cpu
    echo(
        f"{name:<20} run --jobs {jobs}     {dps:>10,.0f} decisions/s"
        f"  {statistics.median(rate.games_per_s for rate in shared):>8,.1f} games/s"
        f"  ({dps / figures[(name, 'engine')]:.2f}× engine)"
        f"  CPU {cpu:.1f} µs a decision"
    )
    for sandbox in sandboxes:
        rates = isolated[sandbox]
        ratios = sorted(p.decisions_per_s / s.decisions_per_s for p, s in zip(rates, shared))
        ratio = statistics.median(ratios)
        process_dps = statistics.median(rate.decisions_per_s for rate in rates)
        figures[(name, f"process{jobs}-{sandbox}")] = process_dps
        figures[(name, f"ratio{jobs}-{sandbox}")] = ratio
        if sandbox == sandboxes[0]:
            figures[(name, f"process{jobs}")] = process_dps
        spread = f", {ratios[0]:.2f}–{ratios[-1]:.2f}" if len(ratios) > 1 else ""
        # (Under bubblewrap the bot processes end inside their PID namespace, which takes
        # part of their CPU time with it: only the runs without a sandbox count it all.)
        cpu_text = ""
        if sandbox == "none":
            process_cpu = statistics.median(rate.cpu_us_per_decision for rate in rates)
            speed = statistics.median(
                s.cpu_us_per_decision / p.cpu_us_per_decision for p, s in zip(rates, shared)
            )
            cpu_text = (
                f"  CPU {process_cpu:.1f} µs a decision ({speed:.2f}× the shared mode's speed)"
            )
        echo(
            f"{name:<20} --isolation process --jobs {jobs} --sandbox {sandbox:<5}"
            f" {process_dps:>10,.0f} decisions/s  ({ratio:.2f}× the shared mode{spread}){cpu_text}"
        )


def _rounds(
    name: str, run_games: int, jobs: int, repeats: int, sandboxes: list[str]
) -> tuple[list[Rate], dict[str, list[Rate]]]:
    """``repeats`` rounds of one shared-mode run and one process-isolation run in each sandbox
    (half as many games: a quarter of the shared mode's rate or more takes two seconds or more,
    and starting the four bot processes, about 0.2 s, counts for a tenth at most). Every other
    round runs them in the reverse order, so that no position in a round is always first."""
    shared: list[Rate] = []
    isolated: dict[str, list[Rate]] = {sandbox: [] for sandbox in sandboxes}
    order = [None, *sandboxes]  # None: the shared mode
    for r in range(repeats):
        for sandbox in order if r % 2 == 0 else order[::-1]:
            if sandbox is None:
                shared.append(harness_rate(name, run_games, jobs, seed=r))
            else:
                rate = harness_rate(
                    name, run_games // 2, jobs, seed=r, isolation="process", sandbox=sandbox
                )
                isolated[sandbox].append(rate)
    return shared, isolated
