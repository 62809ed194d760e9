"""The PettingZoo environments against the bare engines: random legal play in both.

``python -m arena.bench.envs [GAMES]`` prints, per game, the engine's decisions per second
(as ``arena.bench.engines``), the environment's steps per second (``env.last()``, a random action
from the mask, ``env.step``: what a learning loop does at least) and their ratio ("cost"), and
the engine's decisions per second when it also builds the acting seat's ``Observation`` (what the
environment read its vector and mask from before the engines wrote them themselves:
``State.write_observation``), with the environment's cost against that, and when it also does
what the environment asks of it at every step (``legal_numbers`` and ``write_observation``:
"+ vector, mask"), with the environment's own cost against that (the wrapper's bookkeeping, the
arrays handed out, the random choice from the mask). All in CPU time, the best of five runs.
The first line says whether the environment's observations are written by the C extension or in
pure Python (``ARENA_PURE_PYTHON_ENVS=1``).
Needs ``arena[rl]``.
"""

from __future__ import annotations

import random
import sys
import time
from array import array

from arena.envs import observations, pettingzoo_env
from arena.envs.games import make_game
from arena.games.base import TERMINAL

CASES = (
    ("twenty-down", {}),
    ("twenty-down", {"variant": "brostedt"}),
    ("how-low-can-you-go", {"players": 2}),
    ("how-low-can-you-go", {}),
    ("how-low-can-you-go", {"players": 7}),
    ("how-low-can-you-go", {"players": 10}),
)


def engine_playout(game, games: int, seed: int = 1, observe: str = "") -> tuple[int, float]:
    """Random legal play on the bare engine, as ``arena.bench.engines.random_playout``. With
    ``observe="observation"``, the acting seat's ``Observation`` is also built at each decision
    (what an environment reading it would do); with ``observe="vector"``, the engine does what
    the environment asks of it at a step: the legal actions' numbers (``legal_numbers``) and the
    acting seat's vector (``write_observation``) into a fresh array. Returns (decisions, CPU
    seconds)."""
    rng = random.Random(seed)
    randrange = rng.randrange
    decisions = 0
    encoding = game.encoding()
    zeros = array("f", bytes(4 * encoding.observation_size))
    start = time.process_time()
    for g in range(games):
        state = game.new_state(seed=f"{seed}-{g}")
        while (seat := state.current_player()) != TERMINAL:
            if observe == "observation":
                state.observation(seat)
            elif observe == "vector":
                state.legal_numbers(encoding)
                state.write_observation(encoding, seat, zeros[:])
            state.apply_legal(randrange(len(state.legal_actions())))
            decisions += 1
    return decisions, time.process_time() - start


def env_playout(env, games: int, seed: int = 1) -> tuple[int, float]:
    """Play ``games`` games with random masked actions; return (decisions, CPU seconds)."""
    rng = random.Random(seed)
    steps = 0
    start = time.process_time()
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
    return steps, time.process_time() - start


def measure(name: str, params: dict, games: int, repeats: int = 5) -> dict:
    """The best rate of each over ``repeats`` alternating runs, in CPU time: on a shared machine
    the best run is the one least disturbed by other jobs, for the engine and the environment
    alike."""
    game = make_game(name, **params)
    env = pettingzoo_env(game)
    engine, observed, vector, wrapped = [], [], [], []
    for r in range(repeats):
        decisions, seconds = engine_playout(game, games, seed=r + 1)
        engine.append(decisions / seconds)
        decisions, seconds = engine_playout(game, games, seed=r + 1, observe="observation")
        observed.append(decisions / seconds)
        decisions, seconds = engine_playout(game, games, seed=r + 1, observe="vector")
        vector.append(decisions / seconds)
        steps, seconds = env_playout(env, games, seed=r + 1)
        wrapped.append(steps / seconds)
    variant = f", {game.variant}" if game.variant else ""
    return {
        "game": f"{game.name} ({game.players} players{variant})",
        "engine": max(engine),
        "observed": max(observed),
        "vector": max(vector),
        "env": max(wrapped),
    }


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    games = int(args[0]) if args else 100
    print(f"The environment's observations written in: {observations.implementation()}")
    print(
        f"{'game':34} {'engine decisions/s':>19} {'+ observation':>14} {'+ vector, mask':>15}"
        f" {'env steps/s':>12} {'cost':>6} {'vs + obs.':>9} {'own cost':>9}"
    )
    for name, params in CASES:
        row = measure(name, params, games)
        print(
            f"{row['game']:34} {row['engine']:19,.0f} {row['observed']:14,.0f}"
            f" {row['vector']:15,.0f} {row['env']:12,.0f} {row['engine'] / row['env']:5.1f}x"
            f" {row['observed'] / row['env']:8.1f}x {row['vector'] / row['env']:8.1f}x"
        )


if __name__ == "__main__":
    main()
