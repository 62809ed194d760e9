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
from itertools import chain
from operator import attrgetter
from typing import Any

from arena.cards import ASCII_NAMES, CARDS, SUITS, Card, Suit
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


class TextMemo:
    """The JSON text of immutable values by their identity (tuples, and what is in them: the
    finished tricks, the pairs of a trick being played), shared by the writers of one program's
    seats: the seats of one game see the very same public tuples."""

    __slots__ = ("texts", "keep", "actions", "kept_actions")

    def __init__(self):
        self.texts: dict[int, str] = dict(_ATOM_TEXTS)  # id of a value -> its JSON text
        self.keep: list = []  # the values memorised (alive, so that their ids stay theirs)
        # the same for legal actions, apart: most sets of cards a legal action lists are met
        # once, and would push the shared tuples out of ``texts``
        self.actions: dict[int, str] = dict(_ATOM_TEXTS)
        self.kept_actions: list = []

    def remember_action(self, value: Any, found: str) -> None:
        if len(self.kept_actions) >= MEMO_SIZE:
            self.kept_actions = []
            self.actions = dict(_ATOM_TEXTS)
        self.kept_actions.append(value)
        self.actions[id(value)] = found

    def remember(self, value: Any, found: str) -> None:
        if len(self.keep) >= MEMO_SIZE:  # start again (but for the atoms): a long life
            self.keep = []
            self.texts = dict(_ATOM_TEXTS)
        self.keep.append(value)
        self.texts[id(value)] = found


class RequestWriter:
    """Writes the ``act`` requests of one seat, remembering its last observation's fields, and
    the text of immutable values in ``memo``, so that a tuple that grew pays only for its new
    elements."""

    __slots__ = (
        "verified", "memo", "cls", "getter", "values", "texts", "heads", "legal_at", "legal",
        "time_key", "time_text", "only", "shown",
    )  # fmt: skip

    def __init__(self, verified: dict, memo: TextMemo | None = None):
        self.verified = verified  # class -> checks left (0: fast), or None: written by to_json
        self.memo = TextMemo() if memo is None else memo
        self.cls = None
        self.only: frozenset | None = None
        self.time_key = None
        self.time_text = ""

    def line(
        self,
        key: int,
        observation: Any,
        time: dict,
        request: int | None = None,
        only: frozenset | None = None,
    ) -> tuple[bytes, Legal | list]:
        """(the request's line, its legal actions for ``answer_index``); ``only``: the fields
        of the compact form (``messages.fields_wanted``), None for the whole observation."""
        cls = type(observation)
        left = self.verified.get(cls, CHECKS)
        fields = getattr(cls, "fields", None)
        if left is None or not fields or "legal_actions" not in fields:
            data = observation.to_json()
            legal = data["legal_actions"]
            count = None if only is None else len(legal)
            shown = messages.only_fields(data, only)
            return messages.dumps(messages.act(key, shown, time, request, count)), legal
        if cls is not self.cls or only is not self.only:
            self.start(cls, fields, only)
        values, texts, heads = self.values, self.texts, self.heads
        value_text = self.value_text
        for i, value in enumerate(self.getter(observation)):
            if value is not values[i]:
                values[i] = value
                if i == self.legal_at:  # (kept: the answer is found by its text)
                    if self.shown:
                        self.legal = legal = self.legal_actions(value)
                        texts[i] = heads[i] + legal.text
                    else:  # (read for the answer, not written)
                        self.legal = Legal(None, value, None)
                else:
                    texts[i] = heads[i] + value_text(value)
        bank = time.get("bank")
        time_key = (time.get("move"), bank, type(bank))
        if time_key != self.time_key or len(time) != 2:
            self.time_key, self.time_text = time_key, _dumps(time)
        number = "" if request is None else f'"request":{request},'
        if only is not None:
            number += f'"count":{len(self.legal.actions)},'
        body = ",".join(texts) if self.shown else ",".join(texts[:-1])
        line = (
            f'{{"type":"act","id":{key},{number}"observation":{{{body}}},'
            f'"time":{self.time_text}}}\n'
        )
        if left:
            data = observation.to_json()
            count = None if only is None else len(data["legal_actions"])
            whole = messages.act(key, messages.only_fields(data, only), time, request, count)
            expected = json.loads(messages.dumps(whole))
            if json.loads(line) != expected:  # its to_json is its own: use it
                self.verified[cls] = None
                return self.line(key, observation, time, request, only)
            self.verified[cls] = left - 1
        return line.encode(), self.legal

    def start(self, cls: type, fields: tuple, only: frozenset | None) -> None:
        """Begin writing observations of ``cls`` (all its fields, or those in ``only``: the
        legal actions are read then, for the answer, if not written: last, and left out)."""
        self.cls, self.only = cls, only
        self.shown = only is None or "legal_actions" in only
        if only is None:
            names = list(fields)
        elif self.shown:
            names = [name for name in fields if name in only]
        else:
            names = [name for name in fields if name in only]
            names.append("legal_actions")
        self.values = [_MISSING] * len(names)
        self.texts = [""] * len(names)
        self.heads = [_dumps(name) + ":" for name in names]
        self.legal_at = names.index("legal_actions")
        self.getter = attrgetter(*names) if len(names) > 1 else _one(names[0])

    def value_text(self, value: Any) -> str:
        """The JSON text of a field's value: looked up by identity first, and so are the
        elements of a sequence."""
        texts = self.memo.texts
        found = texts.get(id(value))
        if found is not None:
            return found
        kind = type(value)
        if kind is not tuple and kind is not list:
            return text(plain(value))
        if not value:
            return "[]"
        try:  # cards only
            return '["' + '","'.join(map(_card_name, map(id, value))) + '"]'
        except KeyError:
            pass
        parts = []
        for element in value:
            found = texts.get(id(element))
            parts.append(found if found is not None else self.element_text(element))
        found = "[" + ",".join(parts) + "]"
        if kind is tuple:
            self.memo.remember(value, found)
        return found

    def legal_actions(self, value: Any) -> Legal:
        """The legal actions with their JSON text."""
        if type(value) is not list and type(value) is not tuple:
            value = list(value)
        whole = card_sets_text(value)
        if whole is not None:
            return Legal(None, value, whole)
        texts = self.element_texts(value)
        return Legal(texts, value, "[" + ",".join(texts) + "]")

    def element_texts(self, value: Any) -> list[str]:
        """The JSON text of each of the legal actions, looked up by identity first: an engine
        gives the same objects again (cards, the sets of its tables of card sets)."""
        if type(value) is not list and type(value) is not tuple:
            value = list(value)
        actions = self.memo.actions
        found = list(map(actions.get, map(id, value)))
        if None in found:
            remember = self.memo.remember_action
            for i, one in enumerate(found):
                if one is None:
                    element = value[i]
                    found[i] = one = self.element_text(element, False)
                    if isinstance(element, _IMMUTABLE):
                        remember(element, one)
        return found

    def element_text(self, element: Any, memorise: bool = True) -> str:
        """An element's text, memorised by its identity when it cannot change (and
        ``memorise``)."""
        if type(element) is tuple and element:
            try:  # a set of cards: made again faster than memorised
                return '["' + '","'.join(map(_card_name, map(id, element))) + '"]'
            except KeyError:
                if len(element) == 2 and type(element[0]) is int and type(element[1]) is Card:
                    found = f'[{element[0]},"{ASCII_NAMES[element[1]]}"]'  # (seat, card)
                else:
                    found = text(plain(element))
        else:
            found = text(plain(element))
        if memorise and isinstance(element, _IMMUTABLE):
            self.memo.remember(element, found)
        return found


class Legal:
    """The legal actions of a request: the engine's, their JSON text, and that of each (made
    when first asked for, when they are sets of cards)."""

    __slots__ = ("texts", "actions", "text")

    def __init__(self, texts: list[str] | None, actions: Any, text: str | None):
        self.texts = texts
        self.actions = actions
        self.text = text  # (None: not written, the compact form without them)

    def index(self, written: str) -> int:
        """The index of the legal action written ``written`` (ValueError: none)."""
        texts = self.texts
        if texts is None:
            if self.text is None:
                self.text = card_sets_text(self.actions)
            if self.text is not None:  # sets of cards: "[[],[…],…]"
                texts = ["[" + part + "]" for part in self.text[2:-2].split("],[")]
            else:
                texts = [text(plain(action)) for action in self.actions]
            self.texts = texts
        return texts.index(written)


def card_sets_text(value: list | tuple) -> str | None:
    """The JSON text of a list of sets of cards (tuples of ``Card``; None for anything else),
    made by the str methods: a set's card numbers as characters, each character then replaced
    by its card's name (``str.translate``). A hand's 26 discards cost a few microseconds."""
    if not value or type(value[0]) is not tuple:
        return None
    if set(map(type, value)) != _TUPLE or not set(map(type, _flat(value))) <= _CARD:
        return None
    skeleton = _SET_SEPARATOR.join(map(bytes, value)).decode("latin-1")
    return ("[[" + skeleton.translate(_SETS_TABLE) + "]]").replace("[,", "[")


def answer_index(message: dict, legal: Legal | list) -> int:
    """``messages.action_index`` of an answer, for the legal actions ``RequestWriter.line``
    gave: an action written as arena wrote it is found by its text, without converting the
    legal actions; any other (a set of cards in another order) as ``action_index`` finds it."""
    if type(legal) is Legal:
        if message.get("type") == "action" and ("action" in message) != ("index" in message):
            if "index" in message:
                return messages.index_named(message["index"], len(legal.actions))
            try:
                return legal.index(_dumps(message["action"]))
            except ValueError:
                pass
        legal = legal_plain(legal.actions)
    return messages.action_index(message, legal)


def legal_plain(value: Any) -> list:
    """The legal actions in record notation, sets of cards converted by identity look-ups."""
    if type(value) is not tuple and type(value) is not list:
        return plain(value)
    try:  # cards only
        return list(map(_card_name, map(id, value)))
    except KeyError:
        pass
    found = []
    for element in value:
        if type(element) is tuple:
            try:
                found.append(list(map(_card_name, map(id, element))))
                continue
            except KeyError:
                pass
        found.append(plain(element))
    return found


MEMO_SIZE = 16384  # values memorised before the memo starts again
_MISSING = object()
# Immutable, so an element's text stays right as long as the element lives (kept in ``keep``).
# A tuple is memorised by its identity too: observations are snapshots of tuples.
_IMMUTABLE = (tuple, str, int, float, frozenset)
# (the small ints too: CPython makes each once, as the counts and sizes of observations are)
_ATOMS = (*CARDS, *SUITS, None, True, False, *range(-5, 257))
_ATOM_TEXTS = {id(atom): text(plain(atom)) for atom in _ATOMS}
# A card by its identity (cards are singletons): a look-up that fails for anything else, an int
# equal to a card's number too.
_NAMES = {id(card): name for card, name in zip(CARDS, ASCII_NAMES, strict=True)}
_card_name = _NAMES.__getitem__
_card_text = {key: f'"{name}"' for key, name in _NAMES.items()}.__getitem__
# ``card_sets_text``: a card's number (as a character) -> ',"QC"', the sets' separator -> '],['.
_SET_SEPARATOR = b"\x80"
_SETS_TABLE = {int(card): f',"{name}"' for card, name in zip(CARDS, ASCII_NAMES, strict=True)}
_SETS_TABLE[0x80] = "],["
_TUPLE = {tuple}
_CARD = {Card}
_flat = chain.from_iterable


def _one(name: str):
    get = attrgetter(name)
    return lambda observation: (get(observation),)
