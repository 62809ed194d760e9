"""The fast paths of the Twenty Down engine and its search bot give what the plain ones gave:
``Random.shuffle``'s order, a full clone, the same deals when the cards are drawn late, the
same determinized samples from a prepared observation, the same playout cards."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.base import replay
from arena.games.twenty_down import PLAY, TwentyDown
from arena.games.twenty_down.rules import _COPIED_FIELDS, _SHARED_FIELDS, TwentyDownState
from arena.games.twenty_down.sampling import shuffle
from arena.plugins.baseline import td_search as td

GAMES = {"twenty-down": TwentyDown}
SETTINGS = settings(max_examples=25, deadline=None)


def position(seed, deal=2, tricks=1, cards=2, variant=None):
    """A state in the play phase of ``deal`` after ``tricks`` tricks and ``cards`` cards (None if
    the game ends or passes it first)."""
    state = TwentyDown(variant=variant).new_state(seed)
    rng = random.Random(seed)
    while not (
        state.deal == deal
        and state.phase == PLAY
        and len(state.tricks) == tricks
        and len(state.trick) == cards
    ):
        if state.is_terminal() or state.deal > deal:
            return None
        state.apply_legal(rng.randrange(len(state.legal_actions())))
    return state


@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 32))
@SETTINGS
def test_shuffle_makes_random_shuffles_draws_and_order(seed, n):
    ours, theirs = list(range(n)), list(range(n))
    a, b = random.Random(seed), random.Random(seed)
    shuffle(a, ours)
    b.shuffle(theirs)
    assert ours == theirs
    assert a.random() == b.random()


def test_shuffle_leaves_another_generator_to_its_own_shuffle():
    class Reversing(random.Random):
        def shuffle(self, x):
            x.reverse()

    cards = [1, 2, 3]
    shuffle(Reversing(1), cards)
    assert cards == [3, 2, 1]


def test_a_clone_has_every_slot_shares_the_immutable_ones_and_copies_the_lists():
    state = position(5)
    other = state.clone()
    for name in _SHARED_FIELDS:
        assert getattr(other, name) is getattr(state, name), name
    for name in _COPIED_FIELDS:
        assert getattr(other, name) == getattr(state, name), name
        assert getattr(other, name) is not getattr(state, name), name
    assert other.hands == state.hands and other.hands[0] is not state.hands[0]
    assert set(_SHARED_FIELDS) | set(_COPIED_FIELDS) | {"chance", "_hands"} == set(
        TwentyDownState.__slots__
    )
    while not other.is_terminal():
        other.apply_legal(0)
    assert state.deal == 2 and state.phase == PLAY  # the original did not move


@given(seed=st.integers(0, 10_000), looks=st.integers(0, 2**20))
@SETTINGS
def test_drawing_a_deal_late_gives_the_deals_and_record_of_drawing_it_at_once(seed, looks):
    """One state is looked at (observation, hands) after a random selection of actions, which
    draws each deal as soon as it begins; the other never until the end."""
    game = TwentyDown(start_points=6)
    looked, plain = game.new_state(seed), game.new_state(seed)
    rng = random.Random(seed)
    step = 0
    while not plain.is_terminal():
        index = rng.randrange(len(plain.legal_actions()))
        for state in (looked, plain):
            state.apply_legal(index)
        if looks >> (step % 20) & 1 and not looked.is_terminal():
            looked.observation(looked.current_player())
            assert sum(map(len, looked.hands)) > 0
        step += 1
    assert looked.record() == plain.record()
    assert replay(plain.record(), GAMES).result() == plain.result()


def test_a_clone_of_a_state_between_deals_deals_the_same_cards():
    state = position(3, deal=2, tricks=4, cards=3)
    state.apply_legal(0)  # the last card of the deal
    assert state.deal == 3 and state._pending
    other = state.clone()
    assert other.hands == state.hands
    assert other.talon == state.talon and len(state.talon) == 24


@pytest.mark.parametrize("variant", [None, "brostedt"])
def test_determinize_from_a_prepared_observation_is_determinize(variant):
    game = TwentyDown(variant=variant)
    states = [s for s in (position(seed, variant=variant) for seed in range(20)) if s][:6]
    assert len(states) >= 3
    for seed, state in enumerate(states):
        obs = state.observation(state.current_player())
        fresh = TwentyDown(variant=variant).determinize(obs, random.Random(seed))
        game.determinize(obs, random.Random(99))  # the memo now holds this observation
        again = game.determinize(obs, random.Random(seed))
        assert again.hands == fresh.hands and again.talon == fresh.talon
        assert again.discards == fresh.discards
        hands, talon = game.hidden_cards(obs).deal(random.Random(seed))
        assert hands == [[int(c) for c in h] for h in fresh.hands]
        assert talon == [int(c) for c in fresh.talon]


def test_determinize_reads_a_new_observation_and_new_discards_again():
    game = TwentyDown()
    first = position(1)
    second = position(2)
    obs1 = first.observation(first.current_player())
    obs2 = second.observation(second.current_player())
    game.determinize(obs1, random.Random(1))
    sample = game.determinize(obs2, random.Random(1))
    assert sample.hands[obs2.seat] == list(obs2.hand)
    mine = second.clone()
    remembered = tuple(c for c in mine.discards[:1])  # any card of the discard pile will do
    if remembered:
        sample = game.determinize(obs2, random.Random(1), discarded=remembered)
        assert set(remembered) <= set(sample.discards)


def reference_play_out(hands, trump, leader, trick, won, nxt, size, first=None):
    """play_out as it was before bisection: policy_card for every card."""
    cards_left = sum(len(h) for h in hands)
    if trick:
        led, best, best_seat = trick[0][1] // 13, trick[0][1], trick[0][0]
        for seat, c in trick[1:]:
            s, bs = c // 13, best // 13
            if (s == bs and c > best) or (s == trump and bs != trump):
                best, best_seat = c, seat
        p, n = nxt[trick[-1][0]], len(trick)
    else:
        led, best, best_seat, p, n = -1, -1, -1, leader, 0
    while cards_left:
        hand = hands[p]
        c = first if first is not None else td.policy_card(hand, led, best, trump)
        first = None
        hand.remove(c)
        cards_left -= 1
        if n == 0:
            led, best, best_seat = c // 13, c, p
        else:
            s, bs = c // 13, best // 13
            if (s == bs and c > best) or (s == trump and bs != trump):
                best, best_seat = c, p
        n += 1
        if n == size:
            won[best_seat] += 1
            p, n, led, best = best_seat, 0, -1, -1
        else:
            p = nxt[p]
    return won


@given(seed=st.integers(0, 2**32 - 1), trump=st.integers(0, 3), played=st.integers(0, 3))
@SETTINGS
def test_the_playout_plays_the_policys_cards(seed, trump, played):
    rng = random.Random(seed)
    deck = [c for c in range(52) if c % 13 >= 5]
    rng.shuffle(deck)
    hands = [sorted(deck[5 * p : 5 * p + 5]) for p in range(4)]
    trick = []
    for k in range(played):  # the first cards of the first trick, by the policy
        p = k
        led = trick[0][1] // 13 if trick else -1
        best = max((c for _, c in trick), default=-1) if trick else -1
        c = td.policy_card(hands[p], led, best, trump)
        hands[p].remove(c)
        trick.append((p, c))
    expected = reference_play_out([h[:] for h in hands], trump, 0, trick, [0] * 4, (1, 2, 3, 0), 4)
    assert td.play_out([h[:] for h in hands], trump, 0, trick, [0] * 4, (1, 2, 3, 0), 4) == (
        expected
    )


def test_a_copy_of_a_chance_that_has_not_drawn_yet_never_advances_its_original():
    from arena.games.base import Chance

    original = Chance("same-seed")
    copy = original.copy()
    copy.randrange("deal", 1000)  # the copy draws first
    fresh = Chance("same-seed")
    assert original.randrange("deal", 1000) == fresh.randrange("deal", 1000)
