"""The replay path of the Twenty Down engine (``apply_stored``, ``apply_stored_all``: what
``arena export`` replays every stored game through) leaves the very state that ``apply_legal``
leaves: the same history, chance log, points, tricks, legal actions and observations, whether the
game ran to its end or stopped anywhere, and the same error for an index with no action."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.base import RecordError
from arena.games.record import pack, replay_stored
from arena.games.twenty_down import TwentyDown
from arena.games.twenty_down.rules import _DISCARD_AT, PACK, _exchange_options

GAMES = {"twenty-down": TwentyDown}
SETTINGS = settings(max_examples=20, deadline=None)


def played(seed: int, variant: str | None, stop: int | None = None):
    """A random game (its state and the indices chosen), to its end or ``stop`` decisions."""
    state = TwentyDown(variant=variant).new_state(seed)
    rng = random.Random(seed)
    indices = []
    while not state.is_terminal() and (stop is None or len(indices) < stop):
        index = rng.randrange(len(state.legal_actions()))
        indices.append(index)
        state.apply_legal(index)
    return state, indices


def facts(state) -> dict:
    """Everything a user of a state can read of it."""
    out = {
        "record": state.record(),
        "player": state.current_player(),
        "legal": list(state.legal_actions()),
        "hands": [list(hand) for hand in state.hands],
        "talon": list(state.talon),
    }
    for name in ("points", "discards", "exchanged", "playing", "tricks", "trick", "tricks_won"):
        out[name] = list(getattr(state, name))
    for name in ("dealer", "forehand", "deal", "trump", "phase", "leader", "last_tricks"):
        out[name] = getattr(state, name)
    if not state.is_terminal():
        out["observations"] = [state.observation(seat).to_json() for seat in range(4)]
    return out


@given(
    seed=st.integers(0, 2**32 - 1),
    variant=st.sampled_from([None, "brostedt"]),
    part=st.one_of(st.just(1.0), st.floats(0, 1)),
)
@settings(max_examples=60, deadline=None)
def test_replaying_the_indices_leaves_the_state_that_playing_them_left(seed, variant, part):
    _, whole_game = played(seed, variant)
    state, indices = played(seed, variant, int(part * len(whole_game)))
    whole = TwentyDown(variant=variant).new_state(seed)
    whole.apply_stored_all(indices)
    one_by_one = TwentyDown(variant=variant).new_state(seed)
    for index in indices:
        one_by_one.apply_stored(index)
    assert facts(whole) == facts(state)
    assert facts(one_by_one) == facts(state)
    if not whole.is_terminal():  # and play goes on from there as from the played state
        rng = random.Random(seed + 1)
        for _ in range(40):
            if whole.is_terminal():
                break
            index = rng.randrange(len(whole.legal_actions()))
            whole.apply_legal(index)
            state.apply_legal(index)
        assert facts(whole) == facts(state)


@pytest.mark.parametrize("seed", range(6))
def test_a_stored_game_replays_to_the_record_of_the_game(seed):
    state, indices = played(seed, None)
    blob = pack(state, ("a",) * 4, [], indices, [0.0] * len(indices))
    replayed, _, _ = replay_stored(blob, GAMES)
    assert replayed.record() == state.record()


@pytest.mark.parametrize("seed", range(8))
def test_an_index_with_no_action_stops_the_replay_where_playing_it_would(seed):
    rng = random.Random(seed)
    _, indices = played(seed, None)
    at = rng.randrange(len(indices))
    before, _ = played(seed, None, at)
    bad = len(before.legal_actions()) + rng.randrange(3)
    state = TwentyDown().new_state(seed)
    with pytest.raises(IndexError):
        state.apply_stored_all([*indices[:at], bad, *indices[at + 1 :]])
    assert facts(state) == facts(before)


@given(st.lists(st.sampled_from(PACK), min_size=5, max_size=5, unique=True))
@SETTINGS
def test_a_discard_read_by_its_index_is_the_listed_one(cards):
    hand = sorted(cards)
    assert [discard(hand) for discard in _DISCARD_AT] == _exchange_options(hand)


def test_a_damaged_stored_index_is_a_record_error():
    state, indices = played(3, None)
    indices[10] = 200
    blob = pack(state, ("a",) * 4, [], indices, [0.0] * len(indices))
    with pytest.raises(RecordError, match="decision 11 has no action 200"):
        replay_stored(blob, GAMES)


def test_a_stored_record_with_a_signed_index_type_is_a_record_error():
    """A crafted header's index type "b" would read a negative index, which the replay path
    would play as a card outside the legal ones: it is refused as damage."""
    import json
    import zlib

    from arena.games.record import ZDICT

    state, indices = played(3, None)
    blob = pack(state, ("a",) * 4, [], indices, [0.0] * len(indices))
    inflate = zlib.decompressobj(zdict=ZDICT)
    body = inflate.decompress(blob) + inflate.flush()
    size = int.from_bytes(body[:4], "little")
    header = json.loads(body[4 : 4 + size])
    header["index_type"] = "b"
    head = json.dumps(header).encode()
    deflate = zlib.compressobj(1, zdict=ZDICT)
    crafted = len(head).to_bytes(4, "little") + head + body[4 + size :]
    crafted = deflate.compress(crafted) + deflate.flush()
    with pytest.raises(RecordError, match="damaged stored record: index type 'b'"):
        replay_stored(crafted, GAMES)
