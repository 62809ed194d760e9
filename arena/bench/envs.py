"""The PettingZoo environments against the bare engines: random legal play in both.

``python -m arena.bench.envs [GAMES]`` prints, per game, the engine's decisions per second
(``arena.bench.engines``), the environment's steps per second (``env.last()``, a random action
from the mask, ``env.step``: what a learning loop does at least) and their ratio. Needs
``arena[rl]``.
"""

from __future__ import annotations

import random
import statistics
import sys
import time

from arena.bench.engines import random_playout
from arena.envs import pettingzoo_env
from arena.envs.games import make_game

CASES = (("twenty-down", {}), ("how-low-can-you-go", {}), ("how-low-can-you-go", {"players": 8}))


def env_playout(env, games: int, seed: int = 1) -> tuple[int, float]:
    """Play ``games`` games with random masked actions; return (decisions, seconds)."""
    rng = random.Random(seed)
    steps = 0
    start = time.perf_counter()
    for g in range(games):
        env.reset(seed=seed * 100_003 + g)
        for _agent in env.agent_iter():
            obs, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = obs["action_mask"].nonzero()[0]
            env.step(int(legal[rng.randrange(len(legal))]))
            steps += 1
    return steps, time.perf_counter() - start


def measure(name: str, params: dict, games: int, repeats: int = 3) -> dict:
    game = make_game(name, **params)
    env = pettingzoo_env(game)
    engine, wrapped = [], []
    for r in range(repeats):
        decisions, seconds = random_playout(game, games, seed=r + 1)
        engine.append(decisions / seconds)
        steps, seconds = env_playout(env, games, seed=r + 1)
        wrapped.append(steps / seconds)
    return {
        "game": f"{game.name} ({game.players} players)",
        "engine": statistics.median(engine),
        "env": statistics.median(wrapped),
    }


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    games = int(args[0]) if args else 100
    print(f"{'game':34} {'engine decisions/s':>19} {'env steps/s':>12} {'cost':>6}")
    for name, params in CASES:
        row = measure(name, params, games)
        cost = row["engine"] / row["env"]
        print(f"{row['game']:34} {row['engine']:19,.0f} {row['env']:12,.0f} {cost:5.1f}x")


if __name__ == "__main__":
    main()
