"""What goes through the pipes between a game worker and a bot process (``--isolation process``).

Commands go as pickles, one batch per message. Both ends first learn a list of *known* objects
(the names of the commands, the cards, the games' classes and their shared tables of card tuples,
such as every pair of cards) that recur in every batch: afterwards each is a reference to the memo
both ends keep, instead of a look-up by name on both sides, which cost more than the rest of an
observation. And a seat's observation goes as its changes since that seat's last one
(``changes``): most fields stay the same object from one decision to the next, tuples such as the
finished tricks only grow, and others are rebuilt of the very same elements. Answers come back as
binary arrays (``encode_answers``): the worker reads only numbers and JSON from a bot's process,
never a pickle.

The diff, applying it and the named tuples' pickling are also written in C, in the optional
extension ``arena.execution.process._wire_c`` (built at install time where a C compiler is
present; the same results, object for object). It is used when built, unless
``ARENA_PURE_PYTHON_WIRE=1`` or :func:`use_c_extension` says otherwise; :func:`implementation`
tells which runs.

Observations, ``GameInfo``, ``GameResult`` and the slotted dataclasses of the games' modules (How
Low's ``Showdown``) are pickled by the encoder's own reducers (``_reducers``): the field values in
order, smaller and faster than pickle's default for slotted objects. The games know nothing of it.
"""

from __future__ import annotations

import copyreg
import dataclasses
import io
import json
import operator
import pickle
import struct
import sys
from array import array
from collections.abc import Callable
from keyword import iskeyword

from arena import c_extensions
from arena.cards import CARDS, SUITS
from arena.games.base import GameResult, Observation
from arena.referee.outcome import GameInfo

# Bumped with every change of meaning of the Python code below that _wire_c.c (next to this file)
# repeats, and there with the same change: an extension built from older sources is not used.
_C_TRANSCRIPTION = 3

_wire_c = c_extensions.load("arena.execution.process._wire_c", _C_TRANSCRIPTION)

PURE_PYTHON_VARIABLE = "ARENA_PURE_PYTHON_WIRE"

# The first item of every command (see ``bot_host``): names made only of letters and "_", which
# Python interns, so that each is one object that the pickler finds in its memo.
COMMANDS = ("new", "act", "act_changes", "end", "drop")
OK = -1  # the code of a success that has no value
FAULT = -2  # the code of a fault, described in the JSON part
NOT_CREATED = -3  # the code of a ``new`` whose bot could not be created: a fault, described too
_ANSWERS = struct.Struct("<II")  # number of answers, bytes of JSON
MAX_ANSWERS = 1 << 24
MAX_DESCRIPTION = 5000  # characters of a fault's message kept: its line and a traceback (faults.py)
MAX_SHARED = 10_000  # tuples of one engine table that both ends memorise (every pair: 2,704)


def known_objects(games) -> list:
    """What both ends memorise first: the names of the commands, cards, suits, and from the games'
    modules their classes and their tables of card tuples."""
    known: list = [*COMMANDS, *CARDS, *SUITS, rebuild_observation, rebuild_dataclass, _tuple_new]
    known += (copyreg.__newobj__, copyreg._reconstructor)
    atoms = {id(k) for k in known}
    for game in games:
        module = sys.modules.get(type(game).__module__)
        for value in vars(module).values() if module else ():
            if isinstance(value, type) and value.__module__ == module.__name__:
                try:
                    pickle.dumps(value, 3)
                except Exception:
                    continue
                known.append(value)
        for value in vars(module).values() if module else ():
            if type(value) is tuple:
                shared = _shared_tuples(value, atoms)
                if len(shared) <= MAX_SHARED:  # a table of every hand would be too long to send
                    known += shared
    return known


def _shared_tuples(table: tuple, atoms: set[int]) -> list:
    """The tuples of ``atoms`` in a table of them, or in a table of such tables: an engine
    that keeps, say, every pair of cards in one gives the same objects to every observation, and
    a legal action that is one of them then goes as a reference to the memo."""
    found = []
    for item in table:
        if type(item) is not tuple:
            return []
        if all(id(x) in atoms for x in item):
            found.append(item)
        else:
            inner = _shared_tuples(item, atoms)
            if not inner:
                return []
            found += inner
    return found


_use_c = False  # see use_c_extension


def use_c_extension(enabled: bool = True) -> bool:
    """Diff and apply in the C extension (when it is built) or, ``enabled=False``, in Python.

    Returns whether the C extension is now in use. At import it is used unless the environment
    variable ``ARENA_PURE_PYTHON_WIRE`` is set to anything but ``0`` or nothing. (Differs already
    made keep their kind; a bot process and its worker may each use either.)
    """
    global _use_c
    _use_c = enabled and _wire_c is not None
    return _use_c


def implementation() -> str:
    """Which code diffs observations: the C extension or pure Python."""
    return "C extension (arena.execution.process._wire_c)" if _use_c else "pure Python"


_GETTERS: dict[type, Callable | None] = {}
_IMMUTABLE: set[type] = {tuple, str, int, float, bool, type(None), frozenset, bytes}
_is = operator.is_


def fields_getter(cls: type) -> Callable | None:
    """``cls``'s field values as a tuple, for an observation class; None for anything else."""
    getter = _GETTERS.get(cls, False)
    if getter is False:
        fields = getattr(cls, "fields", ()) if issubclass(cls, Observation) else ()
        getter = _GETTERS[cls] = operator.attrgetter(*fields) if len(fields) > 1 else None
    return getter


def _immutable(cls: type) -> bool:
    params = getattr(cls, "__dataclass_params__", None)
    immutable = cls.__dictoffset__ == 0 and (
        issubclass(cls, (int, float, str, bytes, tuple, frozenset))
        or (params is not None and params.frozen)
    )
    if immutable:
        _IMMUTABLE.add(cls)
    return immutable


def changes(values: tuple, last: tuple, grows_from: tuple[tuple[int, int], ...] = ()) -> list:
    """``values`` as changes to ``last`` (as long): ``[i, value, ...]`` for the fields that
    changed, with ``-1 - i`` and the tail for a tuple that only grew. A field left out is the very
    same immutable object (compared by identity: an engine that changed an object in place would
    otherwise go unnoticed), or a tuple rebuilt of the very same elements, such as a score table
    made again after a trick that changed no score. For a pair ``(i, j)`` of ``grows_from``, a
    field ``i`` that begins with field ``j``'s last value goes as ``n + i * n + j`` and its tail,
    first in the list (before ``j`` itself may change)."""
    return changes_for(len(values), grows_from)(values, last)


def differ_for(cls: type) -> Callable:
    """``changes`` for observations of ``cls``, with the hints of its ``grows_from``: an optional
    class attribute, field -> another field whose earlier value the first one's new value usually
    begins with (say, the tricks of the deal just ended and the tricks of that deal seen before)."""
    fields = cls.fields
    pairs = tuple(
        (fields.index(target), fields.index(source))
        for target, source in getattr(cls, "grows_from", {}).items()
        if target in fields and source in fields
    )
    return changes_for(len(fields), pairs)


_DIFFERS: dict[tuple, Callable] = {}

_FIELD_CHANGES = """
    if v{i} is not l{i}:
        if (
            type(v{i}) is tuple
            and type(l{i}) is tuple
            and len(l{i}) <= len(v{i})
            and all(map(is_, v{i}, l{i}))
        ):
            if len(l{i}) < len(v{i}):
                found += (-1 - {i}, v{i}[len(l{i}) :]) if l{i} else ({i}, v{i})
        else:
{otherwise}
    elif type(v{i}) not in immutable_types and not immutable(type(v{i})):
        found += ({i}, v{i})"""

_SENT_WHOLE = """            found += ({i}, v{i})"""

_GROWN_FROM = """            if (
                type(v{i}) is tuple
                and type(l{j}) is tuple
                and 0 < len(l{j}) <= len(v{i})
                and all(map(is_, v{i}, l{j}))
            ):
                found[:0] = ({code}, v{i}[len(l{j}) :])
            else:
                found += ({i}, v{i})"""


def changes_for(n: int, grows_from: tuple[tuple[int, int], ...] = ()) -> Callable:
    """``changes`` for ``n`` values, with a block written out for each: half the cost of a loop."""
    key = (n, grows_from, _use_c)
    differ = _DIFFERS.get(key)
    if differ is not None:
        return differ
    sources = dict(grows_from)
    if set(sources) & set(sources.values()):
        raise ValueError("grows_from: a field that grows from another cannot be grown from")
    if _use_c:
        sources_of = tuple(sources.get(i, -1) for i in range(n))
        _DIFFERS[key] = differ = _wire_c.Differ(n, sources_of, _IMMUTABLE, _immutable)
        return differ
    source = ["def differ(values, last):", "    found = []"]
    if n:
        source.append(f"    {''.join(f'v{i}, ' for i in range(n))}= values")
        source.append(f"    {''.join(f'l{i}, ' for i in range(n))}= last")
    for i in range(n):
        j = sources.get(i)
        otherwise = _SENT_WHOLE if j is None else _GROWN_FROM
        otherwise = otherwise.format(i=i, j=j, code=n + i * n + (j or 0))
        source.append(_FIELD_CHANGES.format(i=i, otherwise=otherwise))
    source.append("    return found")
    namespace = {"is_": _is, "immutable_types": _IMMUTABLE, "immutable": _immutable}
    exec("\n".join(source), namespace)  # made of numbers only
    _DIFFERS[key] = differ = namespace["differ"]
    return differ


def apply_changes(values: list, found: list) -> None:
    """Make ``values`` (a list) what it was when ``changes`` found ``found``."""
    if _use_c:
        _wire_c.apply_changes(values, found)
        return
    n = len(values)
    pairs = iter(found)
    for i, value in zip(pairs, pairs, strict=False):
        if i < 0:
            values[-1 - i] += value
        elif i < n:
            values[i] = value
        else:  # field i grew from field j's last value (see changes)
            i, j = divmod(i - n, n)
            values[i] = values[j] + value


def changes_applier() -> Callable:
    """``apply_changes`` itself: the C function when the extension is in use."""
    return _wire_c.apply_changes if _use_c else apply_changes


_BUILDERS: dict[type, Callable] = {}


def builder(cls: type) -> Callable:
    """A function making a ``cls`` of its field values with the stores written out: a third of
    the cost of a ``setattr`` call for each field."""
    build = _BUILDERS.get(cls)
    if build is not None:
        return build
    fields = cls.fields
    if not all(name.isidentifier() and not iskeyword(name) for name in fields):
        return lambda values: rebuild_observation(cls, values)
    source = (
        "def build(values):\n"
        "    observation = new(cls)\n"
        f"    {''.join(f'observation.{name}, ' for name in fields)}= values\n"
        "    return observation\n"
    )
    namespace = {"new": cls.__new__, "cls": cls}
    exec(source, namespace)  # the field names of a class, checked above
    _BUILDERS[cls] = build = namespace["build"]
    return build


def rebuild_observation(cls: type, values: tuple) -> Observation:
    """An observation of ``cls`` made of its field values (see ``_reduce_observation``)."""
    observation = cls.__new__(cls)
    for name, value in zip(cls.fields, values, strict=True):
        setattr(observation, name, value)
    return observation


def _reduce_observation(observation: Observation) -> tuple:
    # Field values in order: smaller and faster than pickle's default for slotted objects.
    return rebuild_observation, (type(observation), fields_values(type(observation))(observation))


_VALUES: dict[type, Callable] = {}


def fields_values(cls: type) -> Callable:
    """A function giving the field values of an observation of ``cls`` (two or more fields)."""
    getter = _VALUES.get(cls)
    if getter is None:
        getter = _VALUES[cls] = operator.attrgetter(*cls.fields)
    return getter


def _reduce_game_result(result: GameResult) -> tuple:
    # Sent to every bot process at the end of a game: a slotted dataclass's own pickling calls
    # fields() each time.
    return GameResult, (result.scores, result.ranks, result.better)


def _reduce_game_info(info: GameInfo) -> tuple:
    # Sent to a bot process for every seat of every game.
    fields = (info.game, info.seat, info.players, info.variant, info.params, info.move_time)
    if info.time_bank is not None:
        fields += (info.time_bank,)
    return GameInfo, fields


_DATACLASS_FIELDS: dict[type, tuple[tuple[str, ...], Callable]] = {}


def _slotted_dataclass(cls) -> bool:
    return (
        isinstance(cls, type)
        and dataclasses.is_dataclass(cls)
        and "__slots__" in vars(cls)
        and not issubclass(cls, Observation)
    )


def _dataclass_fields(cls: type) -> tuple[tuple[str, ...], Callable]:
    found = _DATACLASS_FIELDS.get(cls)
    if found is None:
        names = tuple(f.name for f in dataclasses.fields(cls))
        getter = operator.attrgetter(*names) if len(names) > 1 else _one_value(names)
        found = _DATACLASS_FIELDS[cls] = (names, getter)
    return found


def _one_value(names: tuple[str, ...]) -> Callable:
    return lambda value: tuple(getattr(value, name) for name in names)


def _reduce_dataclass(value) -> tuple:
    # A game's own slotted dataclass (a showdown): its field values in order. Its default
    # pickling, and unpickling, call dataclasses.fields() every time, in Python.
    return rebuild_dataclass, (type(value), _dataclass_fields(type(value))[1](value))


def rebuild_dataclass(cls: type, values: tuple):
    """A slotted dataclass (frozen or not) made of its field values (``_reduce_dataclass``)."""
    value = object.__new__(cls)
    for name, field_value in zip(_dataclass_fields(cls)[0], values, strict=True):
        object.__setattr__(value, name, field_value)
    return value


def _reducers(known: list) -> dict:
    """The pickler's own ways of writing the values that cross to bot processes most often."""
    # A known named tuple (a finished trick) is made again by tuple.__new__, in C on both ends:
    # its own pickling calls its __getnewargs__ here and its __new__ there, in Python.
    reduce = _wire_c.reduce_named_tuple if _use_c else _reduce_named_tuple
    table: dict = {cls: reduce for cls in known if _is_named_tuple(cls)}
    for cls in known:
        if isinstance(cls, type) and issubclass(cls, Observation) and len(cls.fields) > 1:
            table[cls] = _reduce_observation
    for cls in known:
        if _slotted_dataclass(cls) and cls not in (GameResult, GameInfo):
            table[cls] = _reduce_dataclass
    table[GameResult] = _reduce_game_result
    table[GameInfo] = _reduce_game_info
    return table


_tuple_new = tuple.__new__


def _reduce_named_tuple(value: tuple) -> tuple:
    return _tuple_new, (type(value), tuple(value))


def _is_named_tuple(value) -> bool:
    return isinstance(value, type) and issubclass(value, tuple) and hasattr(value, "_fields")


class CommandEncoder:
    """The worker's end: pickles batches for one bot process, with a memo of the known objects."""

    def __init__(self, known: list):
        self.buffer = io.BytesIO()
        # Protocol 3 writes memo indices explicitly, so that each batch can reuse the same ones.
        self.pickler = pickle.Pickler(self.buffer, 3)
        self.pickler.dispatch_table = _reducers(known)
        self.preamble = self._message(known)
        self.base = self.pickler.memo.copy()
        # Batches are written without memorising anything (they share little but the known
        # objects), so the memo stays as the preamble left it.
        self.pickler.fast = True

    def encode(self, batch: list) -> bytes:
        try:
            return self._message(batch)
        except (ValueError, RecursionError):  # a cycle: only the memo can write it
            self.pickler.fast = False
            try:
                return self._message(batch)
            finally:
                self.pickler.memo = self.base
                self.pickler.fast = True

    def _message(self, value) -> bytes:
        buffer = self.buffer
        buffer.seek(0)
        buffer.truncate()
        self.pickler.dump(value)
        data = buffer.getvalue()
        return len(data).to_bytes(4, "little") + data


class _Sink:
    """A pickler's file whose ``write`` is a list's ``append`` (see ``_whole_dumps``)."""

    __slots__ = ("write",)

    def __init__(self, write: Callable):
        self.write = write


def _whole_dumps(pickler: pickle.Pickler, pieces: list) -> Callable:
    """``pickler.dump``, for a pickler writing into ``pieces`` (``_Sink``), leaving each pickle
    one bytes object there. The pickler writes a str, bytes or bytearray of 64 KiB or more
    straight to its file, apart from what comes before and after it: those writes are joined.
    A dump that fails leaves nothing (it may have written the bytes before such a value)."""
    dump = pickler.dump

    def whole_dump(command) -> None:
        start = len(pieces)
        try:
            dump(command)
        except BaseException:
            del pieces[start:]
            raise
        if len(pieces) > start + 1:
            pieces[start:] = [b"".join(pieces[start:])]

    return whole_dump


class BatchWriter:
    """The worker's end for one bot process: its batch of commands being gathered.

    Each command is pickled as soon as it is made (``dump``): it then reads its objects while the
    processor's caches still hold them (a batch pickled later, after the worker has stepped its
    other games, cost three times as much). Each command's pickle is one bytes object of
    ``pieces`` (``_whole_dumps``), and ``message`` joins them into the pickle of their list,
    which the bot process decodes as one."""

    def __init__(self, encoder: CommandEncoder):
        self.pieces: list[bytes] = []
        self.pickler = pickle.Pickler(_Sink(self.pieces.append), 3)
        self.pickler.dispatch_table = encoder.pickler.dispatch_table
        self.base = encoder.base
        self.pickler.memo = self.base
        self.pickler.fast = True  # (see ``CommandEncoder``)
        self.dump_pickled = _whole_dumps(self.pickler, self.pieces)
        # ValueError or RecursionError: call ``dump_cyclic``.
        self.dump = self.dump_pickled if not _use_c else _c_writer(self, encoder)

    def dump_cyclic(self, command) -> None:
        """``dump`` for a command with a cycle, which only the memo can write (``dump`` raised
        ValueError or RecursionError, and wrote nothing)."""
        self.pickler.fast = False
        try:
            self.dump_pickled(command)
        finally:
            self.pickler.memo = self.base
            self.pickler.fast = True

    def message(self) -> bytes:
        """The commands gathered as one message (``batch_message``); none are left."""
        message = batch_message(self.pieces)
        self.pieces.clear()
        return message


def _c_writer(writer: BatchWriter, encoder: CommandEncoder) -> Callable:
    """The writer's pickler in C (``_wire_c.CommandWriter``) for the commands it can write,
    falling back to the pickler for the others: the same bytes."""
    memo = {key: index for key, (index, _) in encoder.base.items()}
    table = encoder.pickler.dispatch_table
    named = {cls for cls, reduce in table.items() if reduce is _wire_c.reduce_named_tuple}
    dataclass_values = {
        cls: _dataclass_fields(cls)[1]
        for cls, reduce in table.items()
        if reduce is _reduce_dataclass
    }
    return _wire_c.CommandWriter(
        writer.pieces,
        memo,
        named,
        memo[id(_tuple_new)],
        dataclass_values,
        memo[id(rebuild_dataclass)],
        writer.pickler.dump,  # (its writes joined in C, as ``_whole_dumps`` joins them)
    )


def batch_message(pickles: list[bytes]) -> bytes:
    """The message of a batch of commands pickled one by one (protocol 3, ``BatchWriter``): a
    protocol 3 pickle of their list (an empty list, a mark, the commands without their PROTO and
    STOP opcodes, APPENDS), decoded as one; for two or more, the very bytes
    ``CommandEncoder.encode`` writes for the list."""
    if _use_c:
        return _wire_c.batch_message(pickles)
    data = b"".join((_BATCH_HEAD, *[p[2:-1] for p in pickles], _BATCH_TAIL))
    return len(data).to_bytes(4, "little") + data


_BATCH_HEAD = pickle.PROTO + bytes((3,)) + pickle.EMPTY_LIST + pickle.MARK  # (protocol 3)
_BATCH_TAIL = pickle.APPENDS + pickle.STOP


class _Feed:
    """One message at a time, for an unpickler that keeps its memo from one to the next."""

    def __init__(self):
        self.data = b""
        self.pos = 0

    def peek(self, n: int = 0) -> bytes:
        return self.data[self.pos :]

    def read(self, n: int = -1) -> bytes:
        start = self.pos
        self.pos = len(self.data) if n < 0 else min(len(self.data), start + n)
        return self.data[start : self.pos]

    def readinto(self, buffer) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def readline(self) -> bytes:
        end = self.data.find(b"\n", self.pos)
        return self.read(-1 if end < 0 else end + 1 - self.pos)


class CommandDecoder:
    """The bot process's end: the first message is the known objects, then batches."""

    def __init__(self):
        self.feed = _Feed()
        self.unpickler = pickle.Unpickler(self.feed)

    def decode(self, message: bytes):
        self.feed.data = message
        self.feed.pos = 0
        return self.unpickler.load()


def encode_answers(codes: array, seconds: array, faults: list) -> bytes:
    """``codes`` (int32), ``seconds`` (float64) and ``[[position, kind, message], ...]``."""
    described = json.dumps(faults, separators=(",", ":")).encode() if faults else b""
    return b"".join(
        (_ANSWERS.pack(len(codes), len(described)), codes.tobytes(), seconds.tobytes(), described)
    )


def decode_answers(buffer: bytearray, owed: int) -> tuple[int, list, list, dict] | None:
    """(bytes used, codes, seconds, {position: (kind, message)}) of the complete answers at the
    start of ``buffer``; None if they are not answers at all, or more than the ``owed`` ones.

    The bot's own code runs in the process that writes them, so they are checked as hostile
    input: a count or a size out of bounds, a time that is not a finite number of seconds, a fault
    described at a position that does not exist — anything at all wrong is None, never an error.
    """
    try:
        return _decode_answers(buffer, owed)
    except Exception:  # noqa: BLE001 - whatever a hostile writer manages to provoke
        return None


def _plausible_seconds(times: list) -> bool:
    """Whether every time is a finite number of seconds, ``0 <= t < 1e9``, in three passes in C
    (a generator over the times cost as much per answer as the rest of decoding it): a NaN makes
    the sum NaN, which is not equal to itself, and an infinity fails the bounds."""
    total = sum(times)
    return total == total and min(times) >= 0.0 and max(times) < 1e9


def _decode_answers(buffer: bytearray, owed: int) -> tuple[int, list, list, dict] | None:
    used = 0
    codes: list = []
    seconds: list = []
    faults: dict = {}
    while len(buffer) - used >= _ANSWERS.size:
        n, m = _ANSWERS.unpack_from(buffer, used)
        if n > owed - len(codes) or m > 16 * MAX_DESCRIPTION * (n + 1):  # \uXXXX\uXXXX: 12
            return None
        end = used + _ANSWERS.size + 12 * n + m
        if len(buffer) < end:
            break
        start = used + _ANSWERS.size
        view = memoryview(buffer)
        first = len(codes)
        codes += view[start : start + 4 * n].cast("i").tolist()
        times = view[start + 4 * n : start + 12 * n].cast("d").tolist()
        view.release()
        if times and not _plausible_seconds(times):
            return None
        seconds += times
        if m:
            for position, kind, message in json.loads(buffer[end - m : end]):
                if not (isinstance(position, int) and 0 <= position < n):
                    return None
                faults[first + position] = (str(kind)[:40], str(message)[:MAX_DESCRIPTION])
        used = end
    return used, codes, seconds, faults


use_c_extension(c_extensions.wanted(PURE_PYTHON_VARIABLE))
