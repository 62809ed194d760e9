"""Twenty Down search playouts a second, from a mid-game position: the cycle search bots run.

    python benchmarks/td_playouts.py [PLAYOUTS] [REPEATS] [--against CHECKOUT]

Prints two figures, medians of REPEATS measurements:

- **engine playouts/s**: ``game.determinize(observation, rng)`` + ``clone()`` + random legal play
  (``apply_legal``) to the end of the deal, from one observation (deal 3, the second trick's
  leader, four cards in hand) — what any search bot built on the engine's API does for each
  sample;
- **td-search iterations/s**: one sample of the bundled search bot (``td-search``) on the same
  observation: a sampled deal and a playout of the deal for each of its legal cards.

``--against CHECKOUT`` measures another checkout of arena too (say, a ``git worktree`` of an older
commit), each measurement in a fresh process, the two in turn, so that a noisy machine slows
both alike; it prints the ratios.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

MEASURE = r"""
import json, random, sys, time
sys.path.insert(0, {checkout!r})
from arena.games.base import TERMINAL
from arena.games.twenty_down import TwentyDown
import arena.plugins.baseline.td_search as td

def position(game):
    state = game.new_state("playouts")
    rng = random.Random(1)
    while not (state.deal == 3 and state.phase == 3 and len(state.tricks) == 1
               and len(state.trick) == 0):
        state.apply_legal(rng.randrange(len(state.legal_actions())))
    return state.observation(state.current_player())

game = TwentyDown()
obs = position(game)
n = {playouts}
rng = random.Random(7)
randrange = rng.randrange
start = time.process_time()
for _ in range(n):
    state = game.determinize(obs, rng).clone()
    deal = state.deal
    while state.deal == deal and state.current_player() != TERMINAL:
        state.apply_legal(randrange(len(state.legal_actions())))
engine = n / (time.process_time() - start)
bot = td.TwentyDownSearch()
bot.rng = random.Random(5)
bot.iterations, bot.time_budget = n, 1e9
bot._game, bot._wall_cap = game, 1e9
start = time.process_time()
bot.act(obs)
search = n / (time.process_time() - start)
print(json.dumps([engine, search, len(obs.legal_actions)]))
"""


def measure(checkout: Path, playouts: int) -> list[float]:
    code = MEASURE.format(checkout=str(checkout), playouts=playouts)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main(argv: list[str]) -> None:
    against = None
    if "--against" in argv:
        i = argv.index("--against")
        against = Path(argv[i + 1]).resolve()
        del argv[i : i + 2]
    playouts = int(argv[0]) if argv else 3000
    repeats = int(argv[1]) if len(argv) > 1 else 5
    checkouts = {"this": REPO} | ({"against": against} if against else {})
    rows: dict[str, list[list[float]]] = {name: [] for name in checkouts}
    for _ in range(repeats):
        for name, path in checkouts.items():
            rows[name].append(measure(path, playouts))
    medians = {
        name: [statistics.median(r[k] for r in runs) for k in (0, 1)] for name, runs in rows.items()
    }
    legal = rows["this"][0][2]
    print(f"Twenty Down, {playouts:,} playouts a measurement, median of {repeats} (CPU time):")
    for name, (engine, search) in medians.items():
        print(
            f"  {name:<8} {checkouts[name]}: engine {engine:>9,.0f} playouts/s   "
            f"td-search {search:>9,.0f} iterations/s ({legal} legal cards)"
        )
    if against:
        this, other = medians["this"], medians["against"]
        print(
            f"  this / against: engine {this[0] / other[0]:.2f}×   "
            f"td-search {this[1] / other[1]:.2f}×"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
