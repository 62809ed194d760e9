"""Ranking quality of pairings: 100 bots of known order (the bundled heuristic, the i-th playing
a random legal move with probability i/99) played with `random` and with `matchmaking` pairing;
prints Kendall's tau between the leaderboard (mu - 3 sigma) and the known order after 5k, 20k
and 50k games.

    python benchmarks/ranking_quality.py [--game twenty-down] [--checkpoints 5000,20000,50000]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from arena.bench.fields import noisy_registry, ranking

HEURISTICS = {
    "twenty-down": ("td_heuristic.py", "TwentyDownHeuristic"),
    "how-low-can-you-go": ("hl_heuristic.py", "HowLowHeuristic"),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="twenty-down", choices=sorted(HEURISTICS))
    parser.add_argument("--bots", type=int, default=100)
    parser.add_argument("--checkpoints", default="5000,20000,50000")
    parser.add_argument("--pairings", default="random,matchmaking")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    checkpoints = [int(c) for c in args.checkpoints.split(",")]
    file, cls = HEURISTICS[args.game]
    heuristic = Path(__file__).resolve().parent.parent / "arena" / "plugins" / "baseline" / file
    with tempfile.TemporaryDirectory() as folder:
        registry = noisy_registry(Path(folder), heuristic, cls, args.bots)
        for pairing in args.pairings.split(","):
            ranking(registry, args.game, pairing, checkpoints, jobs=args.jobs)


if __name__ == "__main__":
    main()
