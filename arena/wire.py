"""What goes through the pipes between a game worker and a bot process (``--isolation process``).

Commands go as pickles, one batch per message. Both ends first learn a list of *known* objects
(the cards, the games' classes) that recur in every batch: afterwards each is a two-byte reference
to the memo both ends keep, instead of a look-up by name on both sides, which cost more than the
rest of an observation. And a seat's observation goes as its changes since that seat's last one
(``changes``): most fields stay the same object from one decision to the next, and tuples such as the
finished tricks only grow. Answers come back as binary arrays (``encode_answers``): the worker reads
only numbers and JSON from a bot's process, never a pickle.
"""

from __future__ import annotations

import copyreg
import io
import json
import operator
import pickle
import struct
import sys
from array import array
from collections import deque
from collections.abc import Callable
from itertools import repeat

from .cards import CARDS, SUITS
from .games.base import Observation, _rebuild_observation

OK = -1  # the code of a success that has no value
FAULT = -2  # the code of a fault, described in the JSON part
_ANSWERS = struct.Struct("<II")  # number of answers, bytes of JSON
MAX_ANSWERS = 1 << 24
MAX_DESCRIPTION = 500  # characters of a fault's message that are kept


def known_objects(games) -> list:
    """What both ends memorise first: cards, suits, and the classes of the games' modules."""
    known: list = [*CARDS, *SUITS, _rebuild_observation, copyreg.__newobj__, copyreg._reconstructor]
    for game in games:
        module = sys.modules.get(type(game).__module__)
        for value in vars(module).values() if module else ():
            if isinstance(value, type) and value.__module__ == module.__name__:
                try:
                    pickle.dumps(value, 3)
                except Exception:
                    continue
                known.append(value)
    return known


_GETTERS: dict[type, Callable | None] = {}
_IMMUTABLE: set[type] = {tuple, str, int, float, bool, type(None), frozenset, bytes}
_is = operator.is_
_consume = deque(maxlen=0).extend


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


def changes(values: tuple, last: tuple) -> tuple[list, list]:
    """``values`` as changes to ``last``: the indices and new values of the fields that changed,
    with ``-1 - i`` and the tail for a tuple that only grew. A field left out is the very same
    immutable object (compared by identity: an engine that changed an object in place would
    otherwise go unnoticed)."""
    indices: list = []
    found: list = []
    i = -1
    for value, old in zip(values, last):
        i += 1
        if value is old:
            if type(value) in _IMMUTABLE or _immutable(type(value)):
                continue
        elif (
            type(value) is tuple
            and type(old) is tuple
            and 0 < len(old) < len(value)
            and all(map(_is, value, old))
        ):
            indices.append(-1 - i)
            found.append(value[len(old) :])
            continue
        indices.append(i)
        found.append(value)
    return indices, found


def apply_changes(values: list, indices: list, found: list) -> None:
    for i, value in zip(indices, found):
        if i < 0:
            values[-1 - i] += value
        else:
            values[i] = value


def rebuild(cls: type, values: list) -> Observation:
    observation = cls.__new__(cls)
    _consume(map(setattr, repeat(observation), cls.fields, values))
    return observation


class CommandEncoder:
    """The worker's end: pickles batches for one bot process, memo reset to the known objects."""

    def __init__(self, known: list):
        self.buffer = io.BytesIO()
        # Protocol 3 writes memo indices explicitly, so that each batch can reuse the same ones.
        self.pickler = pickle.Pickler(self.buffer, 3)
        self.preamble = self._message(known)
        self.base = self.pickler.memo.copy()

    def encode(self, batch: list) -> bytes:
        # Without memorising what it writes: a batch shares little but the known objects.
        self.pickler.fast = True
        try:
            self.pickler.memo = self.base
            return self._message(batch)
        except (ValueError, RecursionError):  # a cycle: only the memo can write it
            self.pickler.fast = False
            self.pickler.memo = self.base
            return self._message(batch)

    def _message(self, value) -> bytes:
        buffer = self.buffer
        buffer.seek(0)
        buffer.truncate()
        self.pickler.dump(value)
        data = buffer.getvalue()
        return len(data).to_bytes(4, "little") + data


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
        if not all(0.0 <= t < 1e9 for t in times):  # NaN fails every comparison
            return None
        seconds += times
        if m:
            for position, kind, message in json.loads(buffer[end - m : end]):
                if not (isinstance(position, int) and 0 <= position < n):
                    return None
                faults[first + position] = (str(kind)[:40], str(message)[:MAX_DESCRIPTION])
        used = end
    return used, codes, seconds, faults
