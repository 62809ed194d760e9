"""The ``act`` lines of one seat's decisions, written fast: each field's JSON text is kept while
the field's value stays the same object (the games share their public tuples between
observations until they change, and the process wire keeps unchanged fields), so a decision pays
only for the fields that changed.

The text must be exactly ``observation.to_json()``: the first ``CHECKS`` observations of each class
are compared with it, and a class whose ``to_json`` says otherwise is written by ``to_json`` from
then on (``verified``, shared by the writers of a process).
"""

from __future__ import annotations

import json
from typing import Any

from arena.cards import ASCII_NAMES, Card, Suit
from arena.protocol import messages

CHECKS = 3
_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def plain(value: Any) -> Any:
    """``games.base.to_plain``, objects with a ``to_json`` of their own written by it."""
    kind = type(value)
    if kind is Card:
        return ASCII_NAMES[value]
    if kind is tuple or kind is list:
        return [ASCII_NAMES[v] if type(v) is Card else plain(v) for v in value]
    if value is None or kind is int or kind is str or kind is bool or kind is float:
        return value
    if isinstance(value, Card):
        return ASCII_NAMES[value]
    if isinstance(value, Suit):
        return value.ascii
    to_json = getattr(kind, "to_json", None)
    if to_json is not None:
        return value.to_json()
    if isinstance(value, list | tuple | frozenset | set):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    raise TypeError(f"cannot convert {kind.__name__} to JSON")


def text(value: Any) -> str:
    """The compact JSON of a plain value, as ``json.dumps`` writes it, written out for the common
    cases (lists of card names, numbers): a call of the encoder costs more than the text."""
    kind = type(value)
    if kind is list:
        if not value:
            return "[]"
        first = type(value[0])
        if first is str:
            joined = '","'.join(value) if all(type(v) is str for v in value) else None
            if joined is not None and _safe(joined):
                return '["' + joined + '"]'
        elif first is int and all(type(v) is int for v in value):
            return "[" + ",".join(map(str, value)) + "]"
        return "[" + ",".join([text(v) for v in value]) + "]"
    if kind is str and _safe(value):
        return '"' + value + '"'
    if kind is int:
        return str(value)
    if value is None:
        return "null"
    return _dumps(value)


def _safe(string: str) -> bool:
    """Whether ``string`` is written in JSON as it is (printable ASCII, no quote nor backslash)."""
    return string.isascii() and string.isprintable() and '"' not in string and "\\" not in string


class RequestWriter:
    """Writes the ``act`` requests of one seat, remembering its last observation's fields."""

    __slots__ = ("verified", "cls", "values", "texts", "plains", "heads")

    def __init__(self, verified: dict):
        self.verified = verified  # class -> checks left (0: fast), or None: written by to_json
        self.cls = None

    def line(self, key: int, observation: Any, time: dict) -> tuple[bytes, list]:
        """(the request's line, the legal actions in record notation)."""
        cls = type(observation)
        left = self.verified.get(cls, CHECKS)
        fields = getattr(cls, "fields", None)
        if left is None or not fields or "legal_actions" not in fields:
            data = observation.to_json()
            return messages.dumps(messages.act(key, data, time)), data["legal_actions"]
        if cls is not self.cls:
            self.cls = cls
            self.values = [_MISSING] * len(fields)
            self.texts = [""] * len(fields)
            self.plains = [None] * len(fields)
            self.heads = [_dumps(name) + ":" for name in fields]
        values, texts, plains = self.values, self.texts, self.plains
        for i, name in enumerate(fields):
            value = getattr(observation, name)
            if value is not values[i]:
                values[i] = value
                plains[i] = found = plain(value)
                texts[i] = text(found)
        body = ",".join([head + text for head, text in zip(self.heads, texts, strict=True)])
        line = f'{{"type":"act","id":{key},"observation":{{{body}}},"time":{_dumps(time)}}}\n'
        legal = plains[fields.index("legal_actions")]
        if left:
            expected = json.loads(messages.dumps(messages.act(key, observation.to_json(), time)))
            if json.loads(line) != expected:  # its to_json is its own: use it
                self.verified[cls] = None
                return self.line(key, observation, time)
            self.verified[cls] = left - 1
        return line.encode(), legal


_MISSING = object()
