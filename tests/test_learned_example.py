"""examples/learned_bot: the pipeline end to end, at a toy size (a few games of training, not the
strength: the README reports the real run). Needs ``arena[rl]``: skipped without it, except
under ``CI``."""

from __future__ import annotations

import importlib.util
import sys

from conftest import REPO
from test_envs import need

from arena.games import TwentyDown
from arena.plugins.loading import load_registry
from arena.referee.inline import play_game

EXAMPLE = REPO / "examples" / "learned_bot"


def load(stem: str):
    spec = importlib.util.spec_from_file_location(f"learned_example_{stem}", EXAMPLE / f"{stem}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_train_save_and_field_the_policy_as_an_arena_bot(tmp_path, monkeypatch):
    need("pettingzoo")
    import numpy as np

    train = load("train")
    weights, bias, games = train.train(seconds=60, seed=1, max_games=3)
    assert games == 3
    assert np.abs(weights).sum() > 0  # it learned something from the three games
    rank, wins = train.evaluate(weights, bias, games=2)
    assert 1 <= rank <= 4 and 0 <= wins <= 1
    policy = tmp_path / "policy.npz"
    np.savez_compressed(policy, weights=weights, bias=bias)

    monkeypatch.setenv("ARENA_LEARNED_POLICY", str(policy))
    registry = load_registry([REPO / "bots", EXAMPLE / "bot"], entry_points=False)
    learned = registry.bot("learned-td")
    assert learned.plays("twenty-down") and not learned.plays("how-low-can-you-go")
    seats = ("learned-td", "random", "random", "random")
    outcome = play_game(
        TwentyDown(start_points=5), [registry.bot(b).create for b in seats], seats, "learned"
    )
    assert sum(outcome.faults) == 0, outcome.fault_log


def test_without_a_policy_file_the_bot_is_not_registered_and_says_why(tmp_path, monkeypatch):
    """Before, it registered nothing silently: `arena run ... --bots learned-td` said only
    "unknown bot 'learned-td'"."""
    need("numpy")
    monkeypatch.setenv("ARENA_LEARNED_POLICY", str(tmp_path / "none.npz"))
    registry = load_registry([REPO / "bots", EXAMPLE / "bot"], entry_points=False)
    assert "learned-td" not in {b.name for b in registry.bots.values()}
    (error,) = registry.errors  # the training script is not taken for a bot file
    assert error.source.endswith("learned_bot.py")
    assert "none.npz" in error.message and "train.py" in error.message
