"""Dealing the cards a seat cannot see (``TwentyDown.determinize``, ``HiddenCards``): what play
proves about the other hands, and uniform placements of the unseen cards that respect it.

Plain ints for cards (``suit * 13 + rank``), as the engine's hot path uses them. Every random draw
is the one ``random.Random.shuffle`` and ``randrange`` would make, in the same order, so that a
search bot's seed plays the same games whatever this module's speed.
"""

from __future__ import annotations

from math import comb
from typing import Any

from arena.games.shuffle import shuffle

_SUIT: tuple[int, ...] = tuple(c // 13 for c in range(52))
# For each set of void suits (a 4-bit mask): the cards of those suits, for one C-level test.
_CARDS_OF_SUITS: tuple[frozenset[int], ...] = tuple(
    frozenset(c for c in range(52) if mask >> (c // 13) & 1) for mask in range(16)
)


def proven_by_play(hand, tricks, trick, trump) -> tuple[list, list, set]:
    """From the cards played this deal: how many each seat played, the suits each is proven void
    in (did not follow; and trump too if it did not trump), and every card the observer saw."""
    played_by = [0, 0, 0, 0]
    voids: list[set[int]] = [set(), set(), set(), set()]
    seen = set(hand)
    for cards in [t.cards for t in tricks] + [tuple(trick)]:
        if not cards:
            continue
        led = _SUIT[cards[0][1]]
        for p, c in cards:
            played_by[p] += 1
            seen.add(c)
            s = _SUIT[c]
            if s != led:
                voids[p].add(led)
                if trump is not None and s != trump:
                    voids[p].add(int(trump))
    return played_by, voids, seen


def sample_placement(
    cards: list[int], slots: list[tuple[int, int, set[int]]], rng: Any, tries: int = 20
) -> tuple[list[list[int]] | None, list[int]]:
    """Place ``cards`` into hands of the given sizes, none holding a suit it is void in.

    Uniform over all valid placements. Returns the hands (in slot order) and the rest in random
    order, or ``(None, [])`` when no placement exists. Without voids a shuffle does; with voids a
    few (``tries``) shuffles are tried (rejection sampling is exact), then an exact count over how
    many cards of each suit go to each hand.
    """
    return sample_in_bounds(cards, slots, placement_bounds(slots), rng, tries)


def placement_bounds(slots: list[tuple[int, int, set[int]]]) -> tuple[tuple, bool, int]:
    """What ``sample_in_bounds`` reads from ``slots``, worked out once for many samples: each
    hand's ``(start, end, cards it may not hold or None)`` in a shuffled list, whether any hand
    is void in a suit, and how many cards the hands take."""
    bounds = []
    i = 0
    for _, size, void in slots:
        mask = 0
        for s in void:
            mask |= 1 << s
        bounds.append((i, i + size, _CARDS_OF_SUITS[mask] if mask else None))
        i += size
    return tuple(bounds), any(bad is not None for _, _, bad in bounds), i


def sample_in_bounds(
    cards: list[int], slots: list, bounds: tuple[tuple, bool, int], rng: Any, tries: int = 20
) -> tuple[list[list[int]] | None, list[int]]:
    """``sample_placement`` with its ``placement_bounds(slots)`` given: the same draws."""
    cards = list(cards)
    shuffle(rng, cards)
    bounds, voids, i = bounds
    if not voids:
        return [cards[lo:hi] for lo, hi, _ in bounds], cards[i:]
    for _ in range(tries):
        for lo, hi, bad in bounds:
            if bad is not None and not bad.isdisjoint(cards[lo:hi]):
                break
        else:
            return [cards[lo:hi] for lo, hi, _ in bounds], cards[i:]
        shuffle(rng, cards)
    return exact_placement(cards, slots, rng)


def exact_placement(
    cards: list[int], slots: list[tuple[int, int, set[int]]], rng: Any
) -> tuple[list[list[int]] | None, list[int]]:
    """``sample_placement`` by counting: how many cards of each suit go to each hand, drawn with
    the number of placements each choice leaves as its weight; ``cards`` are in random order."""
    by_suit: list[list[int]] = [[], [], [], []]
    for c in cards:
        by_suit[_SUIT[c]].append(c)
    memo: dict[tuple[int, tuple[int, ...]], int] = {}

    def vectors(size: int, remaining: tuple[int, ...], void: set[int]):
        caps = [0 if s in void else remaining[s] for s in range(4)]
        for a in range(min(size, caps[0]) + 1):
            for b in range(min(size - a, caps[1]) + 1):
                for c in range(min(size - a - b, caps[2]) + 1):
                    d = size - a - b - c
                    if d <= caps[3]:
                        yield (a, b, c, d)

    def ways(i: int, remaining: tuple[int, ...]) -> int:
        if i == len(slots):
            return 1
        key = (i, remaining)
        if key not in memo:
            _, size, void = slots[i]
            total = 0
            for v in vectors(size, remaining, void):
                rest = tuple(r - k for r, k in zip(remaining, v, strict=True))
                total += _choose(remaining, v) * ways(i + 1, rest)
            memo[key] = total
        return memo[key]

    remaining = tuple(len(x) for x in by_suit)
    if ways(0, remaining) == 0:
        return None, []
    counts = []
    for i, (_, size, void) in enumerate(slots):
        pick = rng.randrange(ways(i, remaining))
        for v in vectors(size, remaining, void):
            rest = tuple(r - k for r, k in zip(remaining, v, strict=True))
            pick -= _choose(remaining, v) * ways(i + 1, rest)
            if pick < 0:
                break
        counts.append(v)
        remaining = rest
    hands = [[] for _ in slots]
    for s in range(4):
        pool = by_suit[s]  # already in random order
        i = 0
        for h, v in zip(hands, counts, strict=True):
            h.extend(pool[i : i + v[s]])
            i += v[s]
        by_suit[s] = pool[i:]
    rest = [c for pool in by_suit for c in pool]
    shuffle(rng, rest)
    return hands, rest


def _choose(remaining: tuple[int, ...], v: tuple[int, ...]) -> int:
    return (
        comb(remaining[0], v[0])
        * comb(remaining[1], v[1])
        * comb(remaining[2], v[2])
        * comb(remaining[3], v[3])
    )
