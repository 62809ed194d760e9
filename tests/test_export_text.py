"""``arena export``'s fast path writes each record as the very bytes ``arena replay ID --format
json`` prints: ``RecordText`` over ``replay_stored`` against ``json.dumps(expand(...))``, on random
games of both games, several table sizes, variants and parameters."""

from __future__ import annotations

import json
import random
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.base import RecordError
from arena.games.record import (
    _LOW_MASK,
    ZDICT,
    _half_codes,
    _times_v2,
    expand,
    pack,
    replay_stored,
    time_of_code,
)
from arena.games.record_text import RecordText
from arena.plugins.builtin import BUILTIN_GAMES
from arena.views.export import _facts
from arena.views.replay import stored_facts

GAMES = {g.name: g for g in BUILTIN_GAMES}

TABLES = st.one_of(
    st.builds(
        lambda variant, fixed: ("twenty-down", {"variant": variant, "fixed_trump_after": fixed}),
        st.sampled_from([None, "brostedt"]),
        st.integers(0, 8),
    ),
    st.builds(
        lambda players, variant, deals: (
            "how-low-can-you-go",
            {"players": players, "variant": variant, "max_deals": deals},
        ),
        st.integers(2, 10),
        st.sampled_from([None, "whalen"]),
        st.integers(1, 12),
    ),
)


def _stored(name: str, kwargs: dict, seed, rng: random.Random, time_bank=None):
    """A random game played through ``apply_legal``: its final state and its compact record."""
    state = GAMES[name](**kwargs).new_state(seed)
    indices = []
    while not state.is_terminal():
        index = rng.randrange(len(state.legal_actions()))
        indices.append(index)
        state.apply_legal(index)
    times = [rng.choice([0.0, 2e-6, rng.random() * 1e-3, rng.random() * 3]) for _ in indices]
    bots = tuple(rng.choice(["random", 'ünïcode "bot"', "b"]) for _ in range(state.game.players))
    faults = rng.choice([[], [{"seat": 0, "decision": 1, "kind": "timeout", "message": "é"}]])
    return state, pack(state, bots, faults, indices, times, time_bank)


@settings(max_examples=40, deadline=None)
@given(TABLES, st.one_of(st.integers(0, 10**6), st.text(max_size=8)), st.randoms())
def test_the_fast_text_is_the_json_of_the_expanded_record(table, seed, rng):
    name, kwargs = table
    time_bank = rng.choice([None, {"bank": 1.5, "used": [0.25] * 10}])
    played, blob = _stored(name, kwargs, seed, rng, time_bank)
    replayed = expand(blob, GAMES)  # through the engine's replay path (How Low: apply_stored)
    assert {key: replayed[key] for key in played.record()} == played.record()
    writer = RecordText()
    expected = json.dumps(expand(blob, GAMES), ensure_ascii=False)
    for _ in range(2):  # the second time from the texts the writer keeps
        assert writer.text(*replay_stored(blob, GAMES)) == expected
        # as arena export replays: the game objects kept, the times as their stored codes
        exported = replay_stored(blob, GAMES, writer.games_made, codes=True)
        assert writer.text(*exported) == expected


def test_one_writer_serves_both_games_in_turn():
    """A Twenty Down trump (a Suit) and a How Low card can be the same int: never confused."""
    rng = random.Random(7)
    blobs = [
        _stored(name, kwargs, f"mixed-{i}", rng)[1]
        for i in range(3)
        for name, kwargs in (("twenty-down", {}), ("how-low-can-you-go", {"players": 5}))
    ]
    writer = RecordText()
    for blob in blobs + blobs[::-1]:
        expected = json.dumps(expand(blob, GAMES), ensure_ascii=False)
        assert writer.text(*replay_stored(blob, GAMES)) == expected


@pytest.mark.parametrize("name", ["twenty-down", "how-low-can-you-go"])
def test_an_index_with_no_action_is_a_record_error_naming_the_decision(name):
    state = GAMES[name]().new_state("bad-index")
    indices = []
    while len(indices) < 5:
        indices.append(0)
        state.apply_legal(0)
    bad = [*indices[:3], 200, *indices[4:]]
    blob = pack(state, ("a",) * state.game.players, [], bad, [0.0] * len(bad))
    with pytest.raises(RecordError, match="decision 4 has no action 200"):
        replay_stored(blob, GAMES)


def test_every_stored_time_code_reads_as_the_time_unpack_gives():
    codes = range(1 << 16)
    high = bytes(code >> 8 for code in codes)
    low = bytes(code & 0xFF for code in codes).translate(_LOW_MASK)  # (as pack stores them)
    times = _times_v2(high, low)
    read = [time_of_code(code) for code in _half_codes(high, low)]
    assert [repr(t) for t in read] == [repr(t) for t in times]  # (NaN included)
    assert read[0] == 0.0 and read[0x3C00] != 1.0  # (a time keeps the middle of its low bits)


SEATS = st.lists(
    st.fixed_dictionaries(
        {
            "score": st.one_of(st.integers(-(10**6), 10**6), st.floats(allow_nan=True)),
            "rank": st.integers(1, 10),
            "forfeit": st.sampled_from([0, 1, True, False]),
        }
    ),
    max_size=10,
)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 10**9),
    st.one_of(st.integers(1, 10**6), st.none()),
    st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(0, 2**40)),
    SEATS,
)
def test_the_facts_of_a_line_are_their_json(game_id, run_id, finished, seats):
    info = {"id": game_id, "run_id": run_id, "finished": finished, "seats": seats}
    rows = [(s["score"], s["rank"], s["forfeit"]) for s in seats]
    assert _facts(game_id, run_id, finished, rows) == json.dumps(
        stored_facts(info), ensure_ascii=False
    )


def _with_cards(blob: bytes, change) -> bytes:
    """``blob`` with its stored card orders changed by ``change(bytearray)``."""
    decompressor = zlib.decompressobj(zdict=ZDICT)
    body = bytearray(decompressor.decompress(blob) + decompressor.flush())
    size = int.from_bytes(body[:4], "little")
    count = json.loads(body[4 : 4 + size])["cards"]
    cards = body[4 + size : 4 + size + count]
    change(cards)
    body[4 + size : 4 + size + count] = cards
    compressor = zlib.compressobj(zdict=ZDICT)
    return compressor.compress(bytes(body)) + compressor.flush()


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("how", ["twice", "outside", "not a card"])
@pytest.mark.parametrize(
    "name, kwargs", [("twenty-down", {}), ("how-low-can-you-go", {"players": 3})]
)
def test_a_stored_card_order_that_is_not_an_order_of_the_pack_is_refused(name, kwargs, how, seed):
    rng = random.Random(seed)
    _, blob = _stored(name, kwargs, seed, rng)

    def change(cards: bytearray) -> None:
        at = rng.randrange(len(cards))
        if how == "twice":
            cards[at] = cards[at - 1 if at else 1]
        elif how == "outside" and name == "twenty-down":
            cards[at] = 0  # the two of clubs: not in a piquet pack
        else:
            cards[at] = 200

    with pytest.raises(RecordError, match="stored record"):
        replay_stored(_with_cards(blob, change), GAMES)


def test_a_plugin_games_own_kind_of_result_is_written_by_its_to_json():
    """A plugin game whose result adds a key to ``to_json`` exported without it."""
    from dataclasses import dataclass

    from arena.games.base import GameResult
    from arena.games.record_text import _result

    @dataclass(frozen=True)
    class WithBonus(GameResult):
        def to_json(self) -> dict:
            return {**super().to_json(), "bonus": [1, 0]}

    plain = GameResult((3, 5), (2, 1))
    assert json.loads(_result(plain)) == plain.to_json()
    assert json.loads(_result(WithBonus((3, 5), (2, 1)))) == {**plain.to_json(), "bonus": [1, 0]}
