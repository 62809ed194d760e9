"""How Low Can You Go?'s fast paths against what they stand for: a standard discard played by its
index (``tables.KEEP``) leaves the hand the rules say (HL-7, HL-8), at every table size; the
determinization's shuffle is ``Random.shuffle`` draw for draw."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.how_low import REDRAW, HowLowCanYouGo
from arena.games.how_low.determinize import shuffle
from arena.games.how_low.tables import COUNT, KEEP, POSITIONS


def test_the_tables_describe_the_standard_discards_in_their_order():
    hand = list(range(5))
    assert [tuple(hand[p] for p in positions) for positions in POSITIONS[:1]] == [()]
    for index, positions in enumerate(POSITIONS):
        assert COUNT[index] == len(positions)
        if positions:
            kept = KEEP[index](hand)
            assert sorted(kept + positions) == hand


VARIANTS = st.sampled_from([None, "whalen"])


@pytest.mark.parametrize("players", [2, 4, 5, 7, 10])
@settings(max_examples=4, deadline=None, database=None)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1), variant=VARIANTS)
def test_every_exchange_leaves_the_hand_minus_the_discard_plus_the_top_of_the_stock(
    players, seed, variant
):
    game = HowLowCanYouGo(players=players, variant=variant, max_deals=4)
    state = game.new_state(seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        seat = state.current_player()
        legal = state.legal_actions()
        action = legal[rng.randrange(len(legal))]
        hand = Counter(state.hands[seat])
        pile, stock = list(state.pile), list(state.stock)
        deal, restocks = state.deal, state.restocks
        if action == REDRAW or rng.random() < 0.5:
            state.apply_legal(legal.index(action))
        else:  # the referee's path: the same set written another way (HL-19)
            state.apply_action(list(reversed(action)))
        if action == REDRAW or state.deal != deal or state.is_terminal():
            continue  # (a showdown dealt anew: that hand is gone)
        n = len(action)
        if state.restocks != restocks:  # HL-8: the sorted pile, shuffled, went under the stock
            assert len(stock) < n
            stock = list(reversed(state.chance.log[-1][1])) + stock
            pile = []
        drawn = stock[len(stock) - n :]
        assert state.hands[seat] == sorted((hand - Counter(action) + Counter(drawn)).elements())
        assert state.stock == stock[: len(stock) - n]
        assert state.pile == pile + list(action)
        assert state.discards[-1] == (seat, n)


@pytest.mark.parametrize("seed", range(20))
def test_shuffle_is_random_shuffle_draw_for_draw(seed):
    for size in (0, 1, 2, 3, 5, 31, 47, 52, 99, 104):
        mine, theirs = list(range(size)), list(range(size))
        a, b = random.Random(seed), random.Random(seed)
        shuffle(a, mine)
        b.shuffle(theirs)
        assert mine == theirs
        assert a.random() == b.random(), "the same number of draws"


def test_shuffle_leaves_another_generator_its_own_shuffle():
    class Reversing(random.Random):
        def shuffle(self, x):
            x.reverse()

    cards = list(range(10))
    shuffle(Reversing(1), cards)
    assert cards == list(range(9, -1, -1))


@settings(max_examples=10, deadline=None, database=None)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1), players=st.sampled_from([2, 4, 6]))
def test_legal_actions_read_as_the_list_of_discards_in_every_way_a_bot_reads_a_list(seed, players):
    """``legal_actions()`` may be a lazily listed sequence (one pack): every reading of it — length,
    index, slice, iteration, ``in``, ``index``, ``==``, ``+``, ``copy`` — gives what the plain
    list ``discards_of_five`` / the observation gives, and playing an index plays that action."""
    import copy
    import json

    game = HowLowCanYouGo(players=players, max_deals=2)
    state = game.new_state(seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        seat = state.current_player()
        legal = state.legal_actions()
        listed = state.observation(seat).legal_actions
        assert type(listed) is list
        assert len(legal) == len(listed) and bool(legal)
        assert legal == listed and listed == legal and not (legal != listed)
        assert list(legal) == listed and legal[:] == listed and legal[-1] == listed[-1]
        assert copy.copy(legal) == listed and json.dumps(legal + []) == json.dumps(listed)
        index = rng.randrange(len(legal))
        action = listed[index]
        assert action in legal and legal.index(action) == listed.index(action)
        assert legal[index] == action and legal.count(action) == listed.count(action)
        probe = state.clone()
        probe.apply_action(action)
        state.apply_legal(index)
        assert state.history[-1] == (seat, action)
        assert probe.hands == state.hands and probe.discards == state.discards
