"""``learned-td``: the policy ``train.py`` saved, as an arena bot (Twenty Down).

    arena run --bots-dir bots --bots-dir examples/learned_bot/bot --game td \
        --bots learned-td,random --games 500

It encodes its observation with the game's own encoding (the vector it was trained on), masks the
illegal actions and plays the one the policy scores highest. The policy file is
``policy.npz`` beside this file, or the one ``ARENA_LEARNED_POLICY`` names.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

import arena
from arena.games import TwentyDown

POLICY = Path(os.environ.get("ARENA_LEARNED_POLICY", Path(__file__).with_name("policy.npz")))


class LearnedTD(arena.Bot):
    name = "learned-td"
    games = {"twenty-down"}

    def start(self, info):
        self._load(TwentyDown(variant=info.variant, **info.params))

    def _load(self, game) -> None:
        self.encoding = game.encoding()
        with np.load(POLICY) as policy:
            self.weights, self.bias = policy["weights"], policy["bias"]

    def act(self, observation):
        if not hasattr(self, "encoding"):  # act() without start(): the standard game
            self._load(TwentyDown())
        x = np.zeros(self.encoding.observation_size, np.float32)
        self.encoding.write(observation, x)
        numbers = self.encoding.legal_indices(observation)
        scores = (x @ self.weights + self.bias)[numbers]
        return observation.legal_actions[int(np.argmax(scores))]


@arena.hookimpl
def arena_register_bots(register):
    if not POLICY.exists():  # `arena bots` shows this line, and learned-td is not fielded
        raise FileNotFoundError(
            f"learned-td has no policy {POLICY}: train it first, "
            "python examples/learned_bot/train.py --minutes 8"
        )
    register(LearnedTD)
