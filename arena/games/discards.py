"""Discards of up to three cards from a sorted five-card hand, as both bundled games offer them.

The tables are shared read-only tuples (``PAIR[a][b]`` is ``(a, b)``): every legal action that is a
single or a pair is the same object wherever it appears, which also lets a bot process receive it
as a reference (``arena.execution.process.wire`` memorises an engine's tuple tables).
"""

from __future__ import annotations

from itertools import combinations

from arena.cards import CARDS, Card

MAX_DISCARD = 3

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
