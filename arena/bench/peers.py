"""arena's engines beside OpenSpiel's C++ card games driven from Python, in one sitting.

``arena bench --peers`` (or ``python -m arena.bench.peers [GAMES] [REPEATS]``) plays random legal
games with each engine — arena's two games, OpenSpiel's euchre, hearts and oh_hell — and prints
decisions per second, the median of ``repeats`` measurements taken in turn (engine after engine,
repeat after repeat, so that a noisy machine slows them all alike), with each engine's ratio to
euchre.

Every engine is driven by the same loop: ask for the legal actions, pick one with
``Random.randrange``, apply it. A decision is a player's move; dealing is timed but not counted:
arena's deals are chance events inside its engine, and OpenSpiel's chance nodes (one per card
dealt) are sampled from ``chance_outcomes()`` by their probabilities. Each measurement plays whole
games until it has made ``DECISIONS_PER_GAME_ARG`` × ``games`` decisions, so that a short game
(euchre: about 22 decisions) is measured as long as a long one (Twenty Down: about 350).
Needs OpenSpiel (``pip install 'arena[rl]'``).
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable

from tabulate import tabulate

from arena.games.base import TERMINAL, Game

PEERS = (
    ("euchre", "OpenSpiel euchre (C++, via Python)"),
    ("hearts", "OpenSpiel hearts"),
    ("oh_hell", "OpenSpiel oh_hell"),
)
ARENA_GAMES = (
    ("twenty-down", "arena Twenty Down"),
    ("how-low-can-you-go", "arena How Low Can You Go?"),
)
DECISIONS_PER_GAME_ARG = 200
MISSING = "arena bench --peers needs OpenSpiel: pip install 'arena[rl]'"


def arena_playout(game: Game, decisions: int, seed: int = 1) -> tuple[int, float]:
    """Whole random legal games of an arena engine until ``decisions``; (decisions, seconds).
    The loop of ``arena.bench.engines.random_playout``."""
    rng = random.Random(seed)
    randrange = rng.randrange
    made = 0
    g = 0
    start = time.perf_counter()
    while made < decisions:
        state = game.new_state(seed=f"{seed}-{g}")
        g += 1
        while state.current_player() != TERMINAL:
            state.apply_legal(randrange(len(state.legal_actions())))
            made += 1
    return made, time.perf_counter() - start


def openspiel_playout(game, decisions: int, seed: int = 1) -> tuple[int, float]:
    """Whole random legal games of a ``pyspiel`` game until ``decisions``; (decisions, seconds)."""
    rng = random.Random(seed)
    randrange = rng.randrange
    uniform = rng.random
    made = 0
    start = time.perf_counter()
    while made < decisions:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                chosen = outcomes[-1][0]  # (if rounding leaves the draw unspent)
                left = uniform()
                for action, probability in outcomes:
                    left -= probability
                    if left < 0:
                        chosen = action
                        break
                state.apply_action(chosen)
            else:
                legal = state.legal_actions()
                state.apply_action(legal[randrange(len(legal))])
                made += 1
    return made, time.perf_counter() - start


def _engines(pyspiel) -> list[tuple[str, Callable[[int, int], tuple[int, float]]]]:
    from arena.plugins.loading import load_games

    classes = load_games(entry_points=False).game_classes()
    engines = []
    for name, title in PEERS:
        game = pyspiel.load_game(name)
        engines.append((title, lambda n, seed, game=game: openspiel_playout(game, n, seed)))
    for name, title in ARENA_GAMES:
        game = classes[name]()
        engines.append((title, lambda n, seed, game=game: arena_playout(game, n, seed)))
    return engines


def measure_peers(games: int = 300, repeats: int = 5) -> list[tuple[str, float]] | None:
    """(engine, median decisions/s) of every engine, OpenSpiel's first; None without OpenSpiel."""
    try:
        import pyspiel
    except ImportError:
        return None
    engines = _engines(pyspiel)
    decisions = DECISIONS_PER_GAME_ARG * games
    rates: dict[str, list[float]] = {title: [] for title, _ in engines}
    for r in range(repeats):
        for title, playout in engines:
            made, seconds = playout(decisions, r + 1)
            rates[title].append(made / seconds)
    return [(title, statistics.median(values)) for title, values in rates.items()]


def peers_table(rows: list[tuple[str, float]]) -> str:
    """The table of the issue: decisions/s and the ratio to euchre (the first row)."""
    euchre = rows[0][1]
    return tabulate(
        [(title, f"{rate:,.0f}", f"{rate / euchre:.2f}×") for title, rate in rows],
        headers=["engine", "decisions/s", "× euchre"],
        tablefmt="github",
        colalign=("left", "right", "right"),
    )


def run_peers(games: int = 300, repeats: int = 5, echo: Callable = print) -> list | None:
    rows = measure_peers(games, repeats)
    if rows is None:
        echo(MISSING)
        return None
    echo(
        f"Random legal play, {DECISIONS_PER_GAME_ARG * games:,} decisions a measurement, "
        f"median of {repeats}:"
    )
    echo(peers_table(rows))
    return rows


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    run_peers(int(args[0]) if args else 300, int(args[1]) if len(args) > 1 else 5)


if __name__ == "__main__":
    main()
