"""Twenty Down's exchanges are listed only when read (``rules._Exchanges``): random play and
playouts ask for their number and play an index. The index plays the listed discard, the same
object for a single or a pair (the process wire sends those as references), and what a state
lists stays its own whatever the state it was cloned from or into does next."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.twenty_down import TwentyDown
from arena.games.twenty_down.phases import EXCHANGE
from arena.games.twenty_down.rules import PACK, _exchange_at, _exchange_options


@given(st.lists(st.sampled_from(PACK), min_size=5, max_size=5, unique=True))
@settings(max_examples=30, deadline=None)
def test_an_exchange_played_by_its_index_is_the_listed_one(cards):
    hand = sorted(cards)
    listed = _exchange_options(hand)
    for index, discard in enumerate(listed):
        played = _exchange_at(hand, index)
        assert played == discard
        if len(discard) in (1, 2):
            assert played is discard


def at_an_exchange(seed: int):
    state = TwentyDown().new_state(seed)
    rng = random.Random(seed)
    while state.phase != EXCHANGE:
        state.apply_legal(rng.randrange(len(state.legal_actions())))
    return state


def test_the_unlisted_exchanges_read_as_the_list_and_a_clone_keeps_its_own():
    state = at_an_exchange(4)
    legal = state.legal_actions()
    hand = list(state.hands[state.current_player()])
    assert len(legal) == 26
    clone = state.clone()
    state.apply_legal(25)  # three cards go from the original's hand
    assert list(clone.legal_actions()) == _exchange_options(hand)
    assert clone.legal_actions() == _exchange_options(hand)
    assert clone.observation(clone.current_player()).legal_actions == _exchange_options(hand)
    assert type(clone.observation(clone.current_player()).legal_actions) is list


def test_an_index_out_of_range_fails_as_a_list_would():
    state = at_an_exchange(5)
    before = state.clone()
    state.apply_legal(-1)  # a negative index reads from the end, as a list's does
    before.apply_legal(25)
    assert state.history == before.history
    with pytest.raises(IndexError):
        at_an_exchange(5).apply_legal(26)


def test_the_sequence_of_discards_reads_as_its_list_in_every_operation_a_bot_may_use():
    """Both games' lazy discards (How Low's and Twenty Down's exchanges) answer as the list they
    stand for: a search bot written against a list keeps working (``2 * legal`` and ordering
    comparisons raised before)."""
    from arena.games.discards import StandardDiscards
    from arena.games.how_low import HowLowCanYouGo

    how_low = HowLowCanYouGo().new_state(3)
    for legal in (at_an_exchange(7).legal_actions(), how_low.legal_actions()):
        assert isinstance(legal, StandardDiscards)
        plain = list(legal)
        assert len(plain) == len(legal) == 26
        assert 2 * legal == legal * 2 == plain * 2
        assert legal + [] == [] + legal == plain
        assert legal[-1] == plain[-1] and legal[::-2] == plain[::-2]
        assert (legal < plain + [()]) and (legal <= plain) and (legal >= plain)
        assert not (legal > plain) and legal == plain and not (legal != plain)
        assert legal.index(plain[5]) == 5 and legal.count(plain[5]) == 1
        assert random.Random(1).choice(legal) == random.Random(1).choice(plain)
        assert type(legal.copy()) is list and legal.copy() == plain
