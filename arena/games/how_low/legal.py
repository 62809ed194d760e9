"""The 26 standard discards of a sorted five-card hand as ``HowLowState.legal_actions()`` returns
them: a read-only sequence whose length is known without listing them, built only when read.

A playout, a search bot or the benchmark asks for ``len(state.legal_actions())`` and then plays an
index (``apply_legal``): with this sequence no discard is made for that, and the engine plays the
index from its tables (``tables.KEEP``, ``tables.THROWN``). Anything else (indexing, iterating,
``in``, ``index``, ``==``, ``+``) builds the plain list once (``discards_of_five``) and reads it.
The observations a bot receives hold a plain list, as before.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.games.discards import discards_of_five
from arena.games.how_low.tables import STANDARD


class StandardDiscards:
    """``discards_of_five(hand)``, listed when first read; ``len`` is always 26. Immutable (the
    hand is never changed in place), so a state and its clones may share one."""

    __slots__ = ("hand", "_items")

    def __init__(self, hand: list):
        self.hand = hand
        self._items = None

    def _list(self) -> list:
        items = self._items
        if items is None:
            items = self._items = discards_of_five(self.hand)
        return items

    def as_list(self) -> list:
        """A new plain list of the discards (the observation's ``legal_actions``)."""
        items = self._items
        if items is None:
            items = self._items = discards_of_five(self.hand)
        return items[:]

    copy = as_list

    def __len__(self) -> int:
        return STANDARD

    def __bool__(self) -> bool:
        return True

    def __getitem__(self, index):
        return self._list()[index]

    def __iter__(self):
        return iter(self._list())

    def __reversed__(self):
        return reversed(self._list())

    def __contains__(self, action) -> bool:
        return action in self._list()

    def index(self, action, *bounds) -> int:
        return self._list().index(action, *bounds)

    def count(self, action) -> int:
        return self._list().count(action)

    def __eq__(self, other) -> bool:
        if isinstance(other, StandardDiscards):
            other = other._list()
        return self._list() == other

    def __ne__(self, other) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]  (a list is not hashable either)

    def __add__(self, other):
        return self._list() + list(other)

    def __radd__(self, other):
        return list(other) + self._list()

    def __mul__(self, times: int) -> list:
        return self._list() * times

    def __repr__(self) -> str:
        return repr(self._list())

    def __reduce__(self):
        return (list, (self._list(),))  # pickles (and copies) as the plain list


Sequence.register(StandardDiscards)

_new = object.__new__


def standard_discards(hand: list) -> StandardDiscards:
    """``StandardDiscards(hand)`` without the call to ``__init__`` (one a decision)."""
    legal = _new(StandardDiscards)
    legal.hand = hand
    legal._items = None
    return legal
