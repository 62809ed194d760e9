"""Discards of up to three cards from a sorted five-card hand, as both bundled games offer them.

``StandardDiscards`` is the 26 of a hand as a read-only sequence whose length is known without
listing them, built only when read: a playout, a search bot or the benchmark asks for
``len(state.legal_actions())`` and then plays an index (``apply_legal``), which the engines play
from their tables; anything else (indexing, iterating, ``in``, ``index``, comparisons, ``+``,
``*``) lists them once and reads the list. The observations a bot receives hold a plain list.

The tables are shared read-only tuples (``PAIR[a][b]`` is ``(a, b)``): every legal action that is a
single or a pair is the same object wherever it appears, which also lets a bot process receive it
as a reference (``arena.execution.process.wire`` memorises an engine's tuple tables).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from arena.cards import CARDS, Card

MAX_DISCARD = 3
STANDARD_COUNT = 26  # the sets of 0-3 cards of five different cards: 1 + 5 + 10 + 10

SINGLE: tuple[tuple[Card], ...] = tuple((c,) for c in CARDS)
PAIR: tuple[tuple[tuple[Card, Card], ...], ...] = tuple(tuple((a, b) for b in CARDS) for a in CARDS)


def discards_of_five(hand: list[Card]) -> list[tuple[Card, ...]]:
    """The 26 sets of 0-3 cards of a sorted 5-card hand, as sorted tuples: standing first, then by
    size, each size in ``combinations`` order. Written out: it is the engines' hot spot."""
    a, b, c, d, e = hand
    single = SINGLE
    pa = PAIR[a]
    pb = PAIR[b]
    pc = PAIR[c]
    return [
        (), single[a], single[b], single[c], single[d], single[e],
        pa[b], pa[c], pa[d], pa[e], pb[c], pb[d], pb[e], pc[d], pc[e], PAIR[d][e],
        (a, b, c), (a, b, d), (a, b, e), (a, c, d), (a, c, e), (a, d, e),
        (b, c, d), (b, c, e), (b, d, e), (c, d, e),
    ]  # fmt: skip


def discards_up_to(hand: list[Card], most: int) -> list[tuple[Card, ...]]:
    """Every set of 0 to ``most`` cards of a sorted hand, as sorted tuples, in the same order;
    equal cards (two packs) give equal sets, listed more than once."""
    options: list[tuple[Card, ...]] = [()]
    for size in range(1, most + 1):
        options += combinations(hand, size)
    return options


def as_discard(action) -> tuple[Card, ...] | None:
    """A set of cards written in any order (a list, a set, an unsorted tuple) as the sorted tuple
    the legal actions list (HL-19, TD-19: the order inside the set does not matter); None for
    anything else. Runs the bot's values' own code only through ``isinstance`` and ``int``."""
    if not isinstance(action, list | tuple | set | frozenset) or len(action) > MAX_DISCARD:
        return None
    cards = []
    for c in action:
        if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < 52:
            return None
        cards.append(CARDS[c])
    cards.sort()
    return tuple(cards)


class StandardDiscards:
    """``discards_of_five(hand)``, listed when first read; ``len`` is always 26. Immutable (give it
    a hand that is never changed in place), so a state and its clones may share one. A game
    whose listing keeps other tuples (Twenty Down's) subclasses it with its own ``listing``."""

    __slots__ = ("hand", "_items")
    listing = staticmethod(discards_of_five)

    def __init__(self, hand: list):
        self.hand = hand
        self._items = None

    def _list(self) -> list:
        items = self._items
        if items is None:
            items = self._items = self.listing(self.hand)
        return items

    def as_list(self) -> list:
        """A new plain list of the discards (the observation's ``legal_actions``)."""
        items = self._items
        if items is None:
            items = self._items = self.listing(self.hand)
        return items[:]

    copy = as_list

    def __len__(self) -> int:
        return STANDARD_COUNT

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

    __rmul__ = __mul__

    def __lt__(self, other):
        return self._list() < _plain(other)

    def __le__(self, other):
        return self._list() <= _plain(other)

    def __gt__(self, other):
        return self._list() > _plain(other)

    def __ge__(self, other):
        return self._list() >= _plain(other)

    def __repr__(self) -> str:
        return repr(self._list())

    def __reduce__(self):
        return (list, (self._list(),))  # pickles (and copies) as the plain list


def _plain(other):
    return other._list() if isinstance(other, StandardDiscards) else other


Sequence.register(StandardDiscards)
