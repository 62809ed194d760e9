"""The search bots, on budgets in iterations only, play exactly the games they always did: any
speed-up of the engines, of determinization or of playouts must leave every decision unchanged."""

from __future__ import annotations

import hashlib

import pytest
from test_search_bots import load_bot_module, make_bot

from arena.games.how_low import HowLowCanYouGo
from arena.games.twenty_down import TwentyDown

# sha256 of every action of the games below, in order (regenerate only for a deliberate change of
# the bots' play, and say so in the commit).
GOLDEN = {
    "twenty-down": "76e0318f9e50a391185968033de8e17b5a36fc4476fd53adcdbf401e175a97a3",
    "how-low-can-you-go-4": "debd8fb9dd5078b55380a1be5bb996a6ac3773b4fc876e1a27e480f00d0e7838",
    "how-low-can-you-go-7": "1fc41c0d32224b3387e53977e92283c24d4561fb269d63f9c492a9ab730bacbc",
}

CASES = {
    "twenty-down": lambda: (TwentyDown(), load_bot_module("td_search").TwentyDownSearch),
    "how-low-can-you-go-4": lambda: (
        HowLowCanYouGo(players=4),
        load_bot_module("hl_search").HowLowSearch,
    ),
    "how-low-can-you-go-7": lambda: (
        HowLowCanYouGo(players=7),
        load_bot_module("hl_search").HowLowSearch,
    ),
}


def play_digest(game, cls, seeds, iterations) -> str:
    digest = hashlib.sha256()
    for seed in seeds:
        state = game.new_state(seed)
        bots = [
            make_bot(cls, game, seat, seed, move_time=1e6, iterations=iterations, time_budget=1e9)
            for seat in range(game.players)
        ]
        while not state.is_terminal():
            seat = state.current_player()
            action = bots[seat].act(state.observation(seat))
            digest.update(repr(action).encode())
            state.apply_action(action)
        digest.update(repr(state.result()).encode())
    return digest.hexdigest()


@pytest.mark.parametrize("case", sorted(CASES))
def test_search_bots_on_iteration_budgets_play_the_games_they_always_did(case):
    game, cls = CASES[case]()
    assert (
        play_digest(game, cls, seeds=[f"golden-{i}" for i in range(4)], iterations=8)
        == GOLDEN[case]
    )
