"""Random legal play with no harness at all: how fast the bare engines run.

``python -m arena.bench.engines`` (or ``arena bench --engine``) prints decisions per second and
games per second for each game, the median of several repeats.
"""

from __future__ import annotations

import random
import statistics
import time

from arena.games.base import TERMINAL, Game
from arena.plugins.loading import load_games


def bench_games() -> list[type[Game]]:
    """The games measured: the bundled ones, found through the registry like any game."""
    return list(load_games(entry_points=False).game_classes().values())


def random_playout(game: Game, games: int, seed: int = 1) -> tuple[int, float]:
    """Play ``games`` random legal games; return (decisions, seconds)."""
    rng = random.Random(seed)
    randrange = rng.randrange
    decisions = 0
    start = time.perf_counter()
    for g in range(games):
        state = game.new_state(seed=f"{seed}-{g}")
        while state.current_player() != TERMINAL:
            # apply_legal: the engine's fast path, the one the referee and search bots use.
            state.apply_legal(randrange(len(state.legal_actions())))
            decisions += 1
    return decisions, time.perf_counter() - start


def measure(game: Game, games: int, repeats: int = 5, seed: int = 1) -> dict:
    rates = []
    game_rates = []
    for r in range(repeats):
        decisions, seconds = random_playout(game, games, seed + r)
        rates.append(decisions / seconds)
        game_rates.append(games / seconds)
    return {
        "game": game.name,
        "players": game.players,
        "decisions_per_s": statistics.median(rates),
        "games_per_s": statistics.median(game_rates),
        "decisions_per_game": decisions / games,
    }


def main(argv: list[str] | None = None) -> None:
    import sys

    args = sys.argv[1:] if argv is None else argv
    games = int(args[0]) if args else 300
    for game_class in bench_games():
        row = measure(game_class(), games)
        print(
            f"{row['game']:<20} {row['players']}p  {row['decisions_per_s']:>10,.0f} decisions/s"
            f"  {row['games_per_s']:>8,.1f} games/s  {row['decisions_per_game']:.0f} decisions/game"
        )


if __name__ == "__main__":
    main()
