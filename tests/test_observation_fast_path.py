"""The engines' fast path for learning environments (``State.write_observation`` and
``State.legal_numbers``): at every step of random games, for every seat, the same vector and the
same legal action numbers as the encoding of the seat's own ``Observation`` — so the leak test of
``tests/test_envs.py`` holds for it too. One encoding serves every call (what it remembers between
calls is exercised), across the game, a clone played on differently, and a new game."""

from __future__ import annotations

import random
from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games import HowLowCanYouGo, TwentyDown
from arena.games.base import TERMINAL, GameError

GAMES = [
    TwentyDown(start_points=6),
    TwentyDown(variant="brostedt", start_points=5),
    HowLowCanYouGo(players=2, max_deals=3),
    HowLowCanYouGo(players=4, max_deals=3),
    HowLowCanYouGo(players=7, variant="whalen", max_deals=2),
    HowLowCanYouGo(players=10, max_deals=2),
]


def fast_facts(state, encoding, seat: int):
    out = array("f", bytes(4 * encoding.observation_size))
    state.write_observation(encoding, seat, out)
    return out


def slow_facts(state, seat: int):
    fresh = state.game.encoding()  # nothing remembered from earlier calls
    return array("f", fresh.encode(state.observation(seat)))


def check_every_seat(state, encoding) -> None:
    for seat in range(state.game.players):
        assert fast_facts(state, encoding, seat) == slow_facts(state, seat), f"seat {seat}"
    player = state.current_player()
    if player != TERMINAL:
        fresh = state.game.encoding()
        expected = fresh.legal_indices(state.observation(player))
        assert state.legal_numbers(encoding) == expected


@settings(max_examples=12, deadline=None)
@given(st.sampled_from(GAMES), st.integers(0, 10**6))
def test_the_fast_vector_and_mask_are_the_encoding_of_the_seats_observation(game, seed):
    rng = random.Random(seed)
    encoding = game.encoding()
    state = game.new_state(seed)
    side = None
    for step in range(2000):
        check_every_seat(state, encoding)
        if side is not None and not side.is_terminal():  # a clone, played on differently
            check_every_seat(side, encoding)
            side.apply_legal(rng.randrange(len(side.legal_actions())))
        if state.is_terminal():
            break
        if step % 37 == 5:
            side = state.clone()
        state.apply_legal(rng.randrange(len(state.legal_actions())))
    assert state.is_terminal()
    check_every_seat(game.new_state(seed + 1), encoding)  # a new game, the same encoding


@pytest.mark.parametrize("game", [GAMES[0], GAMES[3]], ids=["twenty-down", "how-low"])
def test_the_fast_path_refuses_a_seat_that_is_not_at_the_table(game):
    state = game.new_state(1)
    encoding = game.encoding()
    out = [0.0] * encoding.observation_size
    for seat in (-1, game.players, "0"):
        with pytest.raises(GameError):
            state.write_observation(encoding, seat, out)
