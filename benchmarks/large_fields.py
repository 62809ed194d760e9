"""1,000 bots (one class registered 1,000 times) at How Low Can You Go? with 10 seats and at
Twenty Down: when the first results are stored, how long --games 2000 takes, the peak memory.

    python benchmarks/large_fields.py [--bots 1000] [--games 2000] [--jobs 2]
"""

from __future__ import annotations

import argparse

from arena.bench.fields import large_field


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=1000)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--pairing", default="random")
    args = parser.parse_args()
    for game, players in (("how-low-can-you-go", 10), ("twenty-down", 4)):
        large_field(game, players, args.bots, args.games, args.jobs, args.pairing)


if __name__ == "__main__":
    main()
