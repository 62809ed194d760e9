"""Decisions per second of a bot program (JSON lines) against the Python bot it copies, under
``--isolation process``: the Node.js random bot of ``examples/protocol`` against ``random``.

``random-js`` speaks the compact form of the protocol (it asks for no observation field, and
answers by index); ``random-js-whole``, the same program, gets every request whole (its
manifest's setting ``compact = false``), as a bot that reads the observation does.
Also measured: the same Python ``random`` bot run as a program through ``arena.protocol``
(``random-py``), to judge one protocol for every out-of-process bot, Python ones too.

Every seat of every game is the measured bot (so every decision is one of its), the games are
played by ``arena``'s process backend with ``--jobs`` workers, and the figures are printed:

    python benchmarks/protocol_speed.py [--games 400] [--jobs 2] [--game twenty-down] [--skip-py]
                                        [--isolation process|shared|both]

Each line gives the decisions per second of wall-clock time and the CPU time of every process
of the run (this one, the workers, the bots' processes and programs) per decision: on a machine
other jobs share, the first moves with their load, the second far less.

The goal (issue 17): the Node.js bot sustains at least half the decisions per second of the
Python one. Also printed: the shared mode (``--isolation shared``), where the program is still a
process of its own but the Python bot is called directly.
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

from arena.execution.backend import make_backend
from arena.execution.context import PlayContext, ScheduledGame
from arena.plugins.loading import load_registry

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "protocol"
RANDOM_BOT = (
    Path(__file__).resolve().parents[1] / "arena" / "plugins" / "baseline" / "random_bot.py"
)


def cpu_seconds() -> float:
    """This process's CPU time and its children's (once they have ended and been waited for)."""
    mine = resource.getrusage(resource.RUSAGE_SELF)
    theirs = resource.getrusage(resource.RUSAGE_CHILDREN)
    return mine.ru_utime + mine.ru_stime + theirs.ru_utime + theirs.ru_stime


def decisions_per_second(
    registry, game_name: str, bot: str, games: int, isolation: str, jobs: int
) -> tuple[float, int]:
    rate, decisions, _ = measured(registry, game_name, bot, games, isolation, jobs)
    return rate, decisions


def measured(
    registry, game_name: str, bot: str, games: int, isolation: str, jobs: int
) -> tuple[float, int, float]:
    """(decisions per second, decisions, CPU seconds of every process per decision)."""
    game = registry.games[game_name].cls()
    context = PlayContext(registry, {game_name: game})
    schedule = [
        ScheduledGame(i, game_name, f"bench/{i}", (bot,) * game.players, i) for i in range(games)
    ]
    decisions = 0
    cpu = cpu_seconds()
    began = time.perf_counter()
    with make_backend(context, isolation, jobs) as backend:
        for _, outcome in backend.outcomes(schedule):
            decisions += outcome.decisions
            if any(outcome.faults):
                raise SystemExit(f"{bot} faulted: {outcome.fault_log[0]}")
    wall = time.perf_counter() - began
    return decisions / wall, decisions, (cpu_seconds() - cpu) / max(1, decisions)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--game", default="twenty-down")
    parser.add_argument("--bot", default="random-js", help="the program bot measured")
    parser.add_argument("--isolation", choices=("process", "shared", "both"), default="both")
    parser.add_argument("--skip-py", action="store_true", help="do not measure random-py")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        random_py = Path(folder) / "random-py.toml"
        random_py.write_text(
            'name = "random-py"\ncommand = ["{python}", "-m", "arena.protocol", '
            f'"{RANDOM_BOT}:RandomBot"]\n'
        )
        (Path(folder) / "random-js-whole.toml").write_text(
            'name = "random-js-whole"\n'
            f'command = ["node", "{EXAMPLES / "random.js"}"]\n'
            "[settings]\ncompact = false\n"
        )
        registry = load_registry([EXAMPLES, Path(folder)], entry_points=False)
        measure(registry, args)


def measure(registry, args) -> None:
    modes = ("process", "shared") if args.isolation == "both" else (args.isolation,)
    for isolation in modes:
        rates = {}
        for bot in ("random", args.bot, "random-js-whole", "random-py")[: 4 - args.skip_py]:
            rate, decisions, cpu = measured(
                registry, args.game, bot, args.games, isolation, args.jobs
            )
            rates[bot] = rate
            print(
                f"{args.game} --isolation {isolation:<7} {bot:<15} {decisions:>8,} decisions"
                f" {rate:>10,.0f} decisions/s {cpu * 1e6:>7.1f} µs CPU each"
            )
        ratio = rates[args.bot] / rates["random"]
        goal = " (goal: >= 0.5)" if isolation == "process" else ""
        print(f"  {args.bot} / random = {ratio:.2f}{goal}")
        print(f"  random-js-whole / random = {rates['random-js-whole'] / rates['random']:.2f}")
        if "random-py" in rates:
            print(f"  random-py / random = {rates['random-py'] / rates['random']:.2f}")


if __name__ == "__main__":
    main()
