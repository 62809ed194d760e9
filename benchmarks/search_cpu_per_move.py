"""CPU time per decision of the ladder's search bots and of ``openspiel-ismcts``, measured in
the same games (the bots of each game at one table, in-process), so that the ladder compares them
at equal CPU time per move.

    python benchmarks/search_cpu_per_move.py [GAMES] [ISMCTS_SIMULATIONS]

Prints, per game and bot: decisions with a choice (more than one legal action) and the mean and
median CPU seconds each took. Needs ``arena[rl]``.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from arena.plugins.loading import load_registry
from arena.referee.inline import play_game

REPO = Path(__file__).resolve().parent.parent
TABLES = {
    "twenty-down": ("td-search-large", "td-search-small", "openspiel-ismcts", "td-heuristic"),
    "how-low-can-you-go": (
        "hl-search-large",
        "hl-search-small",
        "openspiel-ismcts",
        "hl-heuristic",
    ),
}


def timed(factory, times: list):
    def make():
        bot = factory()
        act = bot.act

        def timed_act(obs):
            start = time.process_time()
            answer = act(obs)
            if len(obs.legal_actions) > 1:
                times.append(time.process_time() - start)
            return answer

        bot.act = timed_act
        return bot

    return make


def _factory(registry, name: str, simulations: int | None):
    spec = registry.bot(name)
    if name == "openspiel-ismcts" and simulations is not None:
        return lambda: spec.cls(simulations=simulations)
    return spec.create


def main(argv: list[str]) -> None:
    games = int(argv[0]) if argv else 2
    registry = load_registry([REPO / "bots", REPO / "bots" / "search"], entry_points=False)
    simulations = int(argv[1]) if len(argv) > 1 else None
    print(f"{'game':20} {'bot':18} {'decisions':>9} {'mean CPU s':>11} {'median':>8}")
    for game_name, bots in TABLES.items():
        game = registry.game(game_name).cls()
        times = {b: [] for b in bots}
        for g in range(games):
            seats = bots[g % 4 :] + bots[: g % 4]
            factories = [timed(_factory(registry, b, simulations), times[b]) for b in seats]
            play_game(game, factories, seats, f"cpu-{g}", move_time=10.0)
        for b in bots:
            t = times[b]
            print(
                f"{game_name:20} {b:18} {len(t):9} {statistics.mean(t):11.4f} "
                f"{statistics.median(t):8.4f}"
            )


if __name__ == "__main__":
    main(sys.argv[1:])
