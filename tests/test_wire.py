"""What goes through the pipes of ``--isolation process`` (``arena.execution.process.wire``): a bot process gets
exactly the observation the engine made, and the worker reads back only well-formed answers.

Every test runs twice: with the pure-Python diff and with the C extension ``arena.execution.process._wire_c``
(where it is built), which must give the same results, object for object."""

from __future__ import annotations

import pickle
import random
from array import array

import pytest

from arena.execution.process import wire
from arena.execution.process.wire import (
    FAULT,
    OK,
    CommandDecoder,
    BatchWriter,
    CommandEncoder,
    apply_changes,
    batch_message,
    builder,
    changes,
    decode_answers,
    differ_for,
    encode_answers,
    fields_getter,
    known_objects,
)
from arena.games import HowLowCanYouGo, TwentyDown
from arena.games.base import Observation

GAMES = (TwentyDown(), HowLowCanYouGo())

C_MISSING = (
    "arena.execution.process._wire_c is not built (no C compiler at install time?) or out of date"
)
needs_c = pytest.mark.skipif(wire._wire_c is None, reason=C_MISSING)


@pytest.fixture(autouse=True, params=["python", pytest.param("c", marks=needs_c)])
def implementation(request):
    """Diff and apply in pure Python or in the C extension for the test."""
    was_c = wire._use_c
    assert wire.use_c_extension(request.param == "c") == (request.param == "c")
    yield request.param
    wire.use_c_extension(was_c)


def _observations(game, seed: str):
    state = game.new_state(seed)
    rng = random.Random(seed)
    while (seat := state.current_player()) >= 0:
        yield seat, state.observation(seat)
        state.apply_legal(rng.randrange(len(state.legal_actions())))


def _same(a, b) -> bool:
    return type(a) is type(b) and repr(a) == repr(b)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_each_seat_gets_the_engines_observation_through_pickles_and_changes(game):
    encoder = CommandEncoder(known_objects(GAMES))
    decoder = CommandDecoder()
    decoder.decode(encoder.preamble[4:])
    sent: dict = {}  # the worker's last values per seat
    views: dict = {}  # the bot process's
    grown = 0
    for seat, observation in _observations(game, "wire"):
        values = fields_getter(type(observation))(observation)
        last = sent.get(seat)
        sent[seat] = values
        if last is None:
            (got,) = decoder.decode(encoder.encode([observation])[4:])
            views[seat] = list(fields_getter(type(got))(got))
        else:
            found = differ_for(type(observation))(values, last)
            grown += any(code >= len(values) for code in found[::2])
            (found,) = decoder.decode(encoder.encode([found])[4:])
            apply_changes(views[seat], found)
            got = builder(type(observation))(views[seat])  # as the bot process makes it
        assert _same(got, observation)
        for name in type(observation).fields:
            assert _same(getattr(got, name), getattr(observation, name)), name
    # Twenty Down's last_tricks went as the tail of the tricks the seat had seen, deal after deal.
    assert (grown > 0) == bool(getattr(type(observation), "grows_from", None))


class _Listy(Observation):
    __slots__ = ("log",)
    fields = Observation.fields + __slots__


def test_an_object_changed_in_place_is_sent_again():
    log = [1]
    first = builder(_Listy)(["g", 0, [], log])
    log.append(2)  # the same list, changed: identity alone must not count as unchanged
    second = builder(_Listy)(["g", 0, [], log])
    getter = fields_getter(_Listy)
    found = changes(getter(second), getter(first))
    assert found == [2, [], 3, [1, 2]]  # the same str and int left out, the new empty list not


def test_a_tuple_that_grew_sends_its_tail():
    head = (("a", 1), ("b", 2))
    found = changes(("g", head + (("c", 3),)), ("g", head))
    assert found == [-2, (("c", 3),)]
    values = ["g", head]
    apply_changes(values, found)
    assert values == ["g", head + (("c", 3),)]


def test_a_field_that_grew_from_another_sends_its_tail_before_the_other_changes():
    seen = (("t", 1), ("t", 2))
    last = ("g", seen, (("old", 0),))
    values = ("g", (), seen + (("t", 3),))  # field 2 now holds field 1's last value and more
    found = changes(values, last, grows_from=((2, 1),))
    assert found == [3 + 2 * 3 + 1, (("t", 3),), 1, ()]
    view = list(last)
    apply_changes(view, found)
    assert view == list(values) and view[2][0] is seen[0]
    # Not a continuation: the whole value, as without the hint.
    other = ("g", seen, (("t", 9),))
    assert changes(other, last, grows_from=((2, 1),)) == [2, (("t", 9),)]
    with pytest.raises(ValueError):
        changes(values, last, grows_from=((2, 1), (1, 0)))


def test_a_tuple_rebuilt_of_the_same_elements_is_left_out():
    scores = (3, None, "x")
    again = scores[:1] + scores[1:]
    assert again is not scores
    assert changes(("g", again, (1, 2)), ("g", scores, (1, 2.5))) == [2, (1, 2)]


def test_a_tuple_rebuilt_of_equal_but_other_elements_is_sent():
    # 2 == 2.0, yet the bot must see what the engine made: elements count by identity
    assert changes(((2.0,),), ((2,),)) == [0, (2.0,)]


def test_an_engines_shared_card_tuples_go_as_references_to_the_memo():
    from arena.games.discards import PAIR, SINGLE

    known = known_objects(GAMES)
    encoder = CommandEncoder(known)
    decoder = CommandDecoder()
    memorised = decoder.decode(encoder.preamble[4:])
    for shared in (PAIR[3][9], SINGLE[7], PAIR[50][2]):
        position = next(i for i, k in enumerate(known) if k is shared)
        message = encoder.encode([("act", 1, [shared])])
        (got,) = decoder.decode(message[4:])
        assert got[2][0] is memorised[position] and got[2][0] == shared
    built = PAIR[3][9][:1] + PAIR[3][9][1:]  # equal to a shared pair, but not one
    (got,) = decoder.decode(encoder.encode([built])[4:])
    assert got == built and all(got is not k for k in memorised)


def test_a_known_named_tuple_comes_back_as_itself():
    from arena.cards import CARDS
    from arena.games.twenty_down import Trick

    encoder = CommandEncoder(known_objects(GAMES))
    decoder = CommandDecoder()
    decoder.decode(encoder.preamble[4:])
    trick = Trick(2, ((2, CARDS[9]), (3, CARDS[20])), 3)
    (got,) = decoder.decode(encoder.encode([(trick, (trick,))])[4:])
    assert type(got[0]) is Trick and got[0] == trick and got[0].winner == 3
    assert type(got[1][0]) is Trick and got[1][0] == trick


def test_answers_round_trip_and_arrive_whole_or_not_at_all():
    data = encode_answers(
        array("i", [3, OK, FAULT]), array("d", [0.25, 0.0, 1.5]), [[2, "timeout", "too slow"]]
    )
    more = encode_answers(array("i", [0]), array("d", [0.125]), [])
    buffer = bytearray(data + more[:5])
    used, codes, seconds, faults = decode_answers(buffer, owed=4)
    assert used == len(data)
    assert codes == [3, OK, FAULT] and seconds == [0.25, 0.0, 1.5]
    assert faults == {2: ("timeout", "too slow")}
    del buffer[:used]
    buffer += more[5:]
    assert decode_answers(buffer, owed=1)[1:3] == ([0], [0.125])


def test_answers_that_are_not_answers_are_refused():
    assert decode_answers(bytearray(b"\xff" * 16), owed=10) is None
    broken = bytearray(encode_answers(array("i", [FAULT]), array("d", [0.0]), []))
    broken[4:8] = (3).to_bytes(4, "little")  # claims 3 bytes of JSON: not JSON
    broken += b"{x]"
    assert decode_answers(broken, owed=1) is None


def _answers(codes, seconds, faults=()):
    return bytearray(encode_answers(array("i", codes), array("d", seconds), list(faults)))


@pytest.mark.parametrize(
    "what,data,owed",
    [
        ("more answers than owed", _answers([0, 0, 0], [0.0, 0.0, 0.0]), 2),
        ("answers nobody asked for", _answers([0], [0.0]), 0),
        ("a time that is not a number", _answers([0], [float("nan")]), 1),
        ("a negative time", _answers([0], [-1.0]), 1),
        ("an endless time", _answers([0], [float("inf")]), 1),
        ("a time not a number among others", _answers([0] * 3, [0.5, float("nan"), 0.5]), 3),
        ("endless times both ways", _answers([0, 0], [float("inf"), -float("inf")]), 2),
        ("a time past the bound among others", _answers([0, 0], [0.0, 1e9]), 2),
        ("a fault at a position out of range", _answers([FAULT], [0.0], [[5, "x", "y"]]), 1),
        ("a position that overflows", _answers([FAULT], [0.0], [[1e999, "x", "y"]]), 1),
        ("JSON of another shape", _answers([FAULT], [0.0], [{"a": 1}]), 1),
    ],
)
def test_answers_a_hostile_bot_process_could_write_are_refused_not_raised(what, data, owed):
    assert decode_answers(data, owed) is None, what


def test_times_within_bounds_are_taken():
    times = [0.0, -0.0, 0.25, 1e9 - 1]
    assert decode_answers(_answers([0] * 4, times), owed=4)[2] == times


def test_a_huge_announced_description_is_refused_before_it_arrives():
    header = bytearray(encode_answers(array("i", [0]), array("d", [0.0]), []))
    header[4:8] = (1 << 30).to_bytes(4, "little")  # 1 GiB of JSON to come
    assert decode_answers(header, owed=1) is None


def test_fault_messages_are_cut_to_a_line():
    data = _answers([FAULT], [0.0], [[0, "exception", "x" * 400_000]])
    assert decode_answers(data, owed=1) is None  # the description is bigger than allowed
    emoji = "\U0001f600" * 500  # 12 bytes each once escaped: honest, and must get through
    data = _answers([FAULT] * 3, [0.0] * 3, [[i, "exception", emoji] for i in range(3)])
    assert decode_answers(data, owed=3)[3][2] == ("exception", emoji)
    data = _answers([FAULT], [0.0], [[0, "exception", "x" * 400]])
    assert len(decode_answers(data, owed=1)[3][0][1]) == 400


def test_a_cyclic_command_still_goes_through():
    encoder = CommandEncoder(known_objects(GAMES))
    decoder = CommandDecoder()
    decoder.decode(encoder.preamble[4:])
    loop: list = ["x"]
    loop.append(loop)
    (got,) = decoder.decode(encoder.encode([loop])[4:])
    assert got[0] == "x" and got[1] is got
    assert decoder.decode(encoder.encode([("after", 1)])[4:]) == [("after", 1)]


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_a_batch_pickled_command_by_command_is_the_batch_pickled_whole(game):
    """The worker pickles each command as it makes it (``BatchWriter``): the bot process must get
    the very list it would get from the batch pickled at once."""
    encoder = CommandEncoder(known_objects(GAMES))
    writer = BatchWriter(encoder)
    decoder = CommandDecoder()
    decoder.decode(encoder.preamble[4:])
    loop: list = ["x"]
    loop.append(loop)
    commands = [("act", 7, observation) for _, observation in _observations(game, "pieces")][:40]
    commands += [("end", 3, game.new_state("x").game.name), ("drop", 9)]
    for size in (0, 1, 2, len(commands)):
        batch = commands[:size]
        for command in batch:
            writer.dump(command)
        message = writer.message()
        assert not writer.pieces
        if size > 1:  # (``encode`` writes a one-item list with APPEND instead)
            assert message == encoder.encode(batch)
        got = decoder.decode(message[4:])
        assert len(got) == size and all(map(_same, got, batch))
    # A command with a cycle goes through too, and leaves the memo as it was.
    with pytest.raises(ValueError):
        writer.dump(loop)
    assert not writer.pieces
    writer.dump_cyclic(loop)
    (got,) = decoder.decode(writer.message()[4:])
    assert got[1] is got
    writer.dump(commands[0])
    (got,) = decoder.decode(writer.message()[4:])
    assert _same(got, commands[0])


def test_commands_holding_big_strings_and_bytes_arrive_whole():
    """The pickler writes a str, bytes or bytearray of 64 KiB or more to its file apart from the
    rest of the pickle: each command must still be one piece of the batch (a game's observation
    or parameters may hold that much text, and observations are pickled by the pickler)."""
    encoder = CommandEncoder(known_objects(GAMES))
    writer = BatchWriter(encoder)
    decoder = CommandDecoder()
    decoder.decode(encoder.preamble[4:])
    text, data = "é" * (50 * 1024), b"y" * 70_000  # (100 KiB of UTF-8)
    commands = [
        ("act", 1, {"text": text, "data": data}),
        ("act", 2, text),
        ("drop", 3),
        ("act", 4, [bytearray(data), text, data]),
    ]
    for command in commands:
        writer.dump(command)
    assert len(writer.pieces) == len(commands)  # (the worker counts the commands sent so)
    assert decoder.decode(writer.message()[4:]) == commands
    # A command that fails after writing a big value (a cycle found later) leaves nothing.
    loop: list = [data]
    loop.append(loop)
    with pytest.raises(ValueError):
        writer.dump(("act", 5, loop))
    assert not writer.pieces
    writer.dump_cyclic(("act", 5, loop))
    writer.dump(commands[0])
    (cyclic, first) = decoder.decode(writer.message()[4:])
    assert cyclic[2][0] == data and cyclic[2][1] is cyclic[2]
    assert first == commands[0]


def test_a_batch_message_is_the_length_and_the_pickle_of_the_list():
    pickles = [pickle.dumps(command, 3) for command in (("act", 1, (2, 3)), ("end", 5, None))]
    message = wire.batch_message(pickles)
    body = b"\x80\x03](" + pickles[0][2:-1] + pickles[1][2:-1] + b"e."
    assert message == len(body).to_bytes(4, "little") + body
    assert pickle.loads(message[4:]) == [("act", 1, (2, 3)), ("end", 5, None)]
    assert wire.batch_message([]) == b"\x06\x00\x00\x00\x80\x03](e."
    assert pickle.loads(wire.batch_message([])[4:]) == []


def test_a_games_own_dataclass_comes_back_equal_and_frozen(monkeypatch):
    """A How Low showdown (a slotted, frozen dataclass of the game's module) crosses as its field
    values: equal, of its class and still frozen on the other end, and without the generic
    dataclass pickling, which calls ``dataclasses.fields`` in Python on both ends (about 10 µs a
    showdown each way)."""
    import dataclasses

    from arena.cards import CARDS
    from arena.games.how_low.rules import Showdown

    encoder = CommandEncoder(known_objects(GAMES))
    decoder = CommandDecoder()
    decoder.decode(encoder.preamble[4:])
    showdown = Showdown(
        3, 1, ((CARDS[0], CARDS[5]), None), (2, None), (4, -4), (False, True), ((0, 2), (1, 1))
    )
    message = encoder.encode([("act", 1, [showdown, (showdown,)])])
    monkeypatch.setattr(dataclasses, "fields", None)  # neither end may need it now
    ((_, _, (got, (again,))),) = decoder.decode(message[4:])
    assert type(got) is Showdown and got == showdown and again == showdown
    with pytest.raises(dataclasses.FrozenInstanceError):
        got.deal = 4
