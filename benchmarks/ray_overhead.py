"""What ``--backend ray`` costs, and what limits it: two figures in one sitting.

    python benchmarks/ray_overhead.py [SEARCH_GAMES] [WRITER_GAMES]

1. **The single writer.** However many machines play, one process rates (TrueSkill, in schedule
   order) and stores (SQLite) every game. This plays ``WRITER_GAMES`` games of each game between
   eight ``random`` bots (four different bots at every table of 4 seats, records on), keeps their
   outcomes, then runs the same tournament again into a fresh database with a backend that only
   hands those outcomes back: the run's games per CPU second (the median of three) is then what
   the parent can rate and store. Multiplied by the CPU seconds a game of search bots costs, it
   says how many cores of them one run can keep busy.
2. **Ray's overhead.** The same search-bot run (``td-search-small``'s 24 samples a decision,
   without its tight CPU cap, against ``td-heuristic``; ``SEARCH_GAMES`` games, one seed) played
   with the local backend (``--jobs`` = the cores) and with ``--backend ray`` on a local Ray
   instance of the same cores: the time to start Ray, the playing time of each, and whether the
   leaderboards are the same.

Needs ``arena[ray]`` for the second part (skipped without it).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import arena.tournament.run as tournament_run
from arena.cli import app
from arena.execution.backend import Backend

REPEATS = 3  # replays of the writer's part (each into a fresh database): the median is shown
PLAYED = re.compile(r"played (\d+) games .* in ([\d.]+) s, ([\d,]+) games/s")


class _Recording(Backend):
    """A local backend's outcomes, kept by (game, index) on their way to the parent."""

    def __init__(self, inner: Backend, kept: dict):
        super().__init__(inner.context)
        self.inner, self.kept = inner, kept

    def __enter__(self):
        self.inner.__enter__()
        return self

    def __exit__(self, *exc):
        self.inner.__exit__(*exc)

    def outcomes_by_round(self, rounds):
        for item, outcome in self.inner.outcomes_by_round(rounds):
            self.kept[item.game, item.index] = outcome
            yield item, outcome


class _Replaying(Backend):
    """The kept outcomes handed back at once: the run then measures only rating and storing."""

    def __init__(self, context, kept: dict):
        super().__init__(context)
        self.kept = kept

    def outcomes(self, schedule):
        for item in schedule:
            yield item, self.kept[item.game, item.index]


def _arena_in_process(*args: str) -> str:
    """``arena ARGS`` in this process; its stderr."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            app(list(args))
        except SystemExit as exit:
            if exit.code:
                raise RuntimeError(err.getvalue()) from None
    return err.getvalue()


# A field of eight bots (``random`` eight times): four different bots at every table, so that
# each game is a full TrueSkill update of four players.
FIELD = """
import arena
from arena.plugins.baseline.random_bot import RandomBot


@arena.hookimpl
def arena_register_bots(register):
    for i in range(1, 9):
        register(RandomBot, name=f"r{i}")
"""


def writer_rate(games: int, folder: Path) -> dict[str, float]:
    """Games per CPU second the parent rates and stores, by game (8 bots, 4 seats, records):
    CPU time, since a shared machine's wall clock says more about its other jobs."""
    kept: dict = {}
    original_backend, original_run = tournament_run._backend, tournament_run.run_tournament
    cpu: list[float] = []

    def timed_run(*args, **kwargs):
        began = time.process_time()
        try:
            return original_run(*args, **kwargs)
        finally:
            cpu.append(time.process_time() - began)

    bots = folder / "field"
    bots.mkdir()
    (bots / "field.py").write_text(FIELD)
    common = ["run", "--games", str(games), "--seed", "writer", "-q", "-j", "1"]
    common += ["--bots-dir", str(bots), "--bots", ",".join(f"r{i}" for i in range(1, 9))]
    rates = {}
    for game in ("twenty-down", "how-low-can-you-go"):
        args = [*common, "--game", game]
        try:
            tournament_run._backend = lambda context, *a: _Recording(
                original_backend(context, *a), kept
            )
            _arena_in_process(*args, "--db", str(folder / f"played-{game}.db"))
            tournament_run._backend = lambda context, *a: _Replaying(context, kept)
            tournament_run.run_tournament = timed_run
            cpu.clear()
            for repeat in range(REPEATS):
                _arena_in_process(*args, "--db", str(folder / f"rated-{game}-{repeat}.db"))
        finally:
            tournament_run._backend, tournament_run.run_tournament = original_backend, original_run
        rates[game] = games / statistics.median(cpu)
    return rates


def _run(args: list[str]) -> tuple[float, float, int, str, float]:
    """(wall seconds, playing seconds, games, leaderboard JSON, CPU seconds of the command and
    the processes it waited for) of ``arena run ARGS``. (With Ray, its workers are not this
    command's children: their CPU is not counted.)"""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "arena", "run", *args, "-q", "--format", "json"],
        capture_output=True,
        text=True,
        env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0"},
    )
    wall = time.perf_counter() - began
    if result.returncode != 0:
        raise RuntimeError(result.stderr)
    count, seconds, _ = PLAYED.search(result.stderr).groups()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, float(seconds), int(count), result.stdout, cpu


# td-search-small's 24 samples a decision, with a CPU cap it never reaches (0.05 s can be, on a
# loaded machine: a decision cut short differs from one run to the next). A bot file: it travels.
SEARCH_BOT = """
import arena
from arena.plugins.baseline.td_search import TwentyDownSearch


@arena.hookimpl
def arena_register_bots(register):
    register(TwentyDownSearch, name="td-search-24", iterations=24, time_budget=0.4)
"""


def ray_overhead(games: int, folder: Path, cores: int) -> float | None:
    """Print the local and the Ray run; the CPU seconds a game of the local run took."""
    try:
        import ray  # noqa: F401
    except ImportError:
        print("ray: not installed (pip install 'arena[ray]'): its part is skipped")
        return None
    bots = folder / "bots"
    bots.mkdir()
    (bots / "search_24.py").write_text(SEARCH_BOT)
    common = ["--game", "td", "--bots", "td-search-24,td-heuristic", "--games", str(games)]
    common += ["--seed", "ray-overhead", "--bots-dir", str(bots)]
    local = _run([*common, "--db", str(folder / "local.db"), "-j", str(cores)])
    on_ray = _run([*common, "--db", str(folder / "ray.db"), "--backend", "ray"])
    for label, (wall, seconds, count, *_) in (("local", local), ("ray", on_ray)):
        print(
            f"{label:>5}: {count} games played in {seconds:.1f} s ({count / seconds:.2f} games/s);"
            f" {wall:.1f} s in all, {wall - seconds:.1f} s of it before and after playing"
        )
    print(f"ray / local playing time: {on_ray[1] / local[1]:.2f}")
    print(f"same leaderboard: {'yes' if local[3] == on_ray[3] else 'NO'}")
    return local[4] / local[2]


def main(argv: list[str]) -> None:
    search_games = int(argv[0]) if argv else 40
    writer_games = int(argv[1]) if len(argv) > 1 else 5000
    cores = len(os.sched_getaffinity(0))
    print(f"{cores} cores; load average {os.getloadavg()[0]:.1f} at the start")
    with tempfile.TemporaryDirectory() as folder:
        rates = writer_rate(writer_games, Path(folder))
        for game, rate in rates.items():
            print(f"single writer, {game}: {rate:,.0f} games rated and stored a CPU second")
        cpu_per_game = ray_overhead(search_games, Path(folder), cores)
        if cpu_per_game:
            cores_busy = rates["twenty-down"] * cpu_per_game
            print(
                f"a Twenty Down game of td-search-24 and td-heuristic: {cpu_per_game:.2f} CPU s;"
                f" one writer keeps about {cores_busy:,.0f} cores of them busy"
            )
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main(sys.argv[1:])
