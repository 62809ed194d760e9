"""The How Low Can You Go? engine's precomputed tables: what each of the 26 standard discards of a
sorted five-card hand takes and keeps, by its index in the legal actions, and the public
``(seat, count)`` entries of the discard counts, made once instead of at every turn."""

from __future__ import annotations

from itertools import combinations
from operator import itemgetter

from arena.games.how_low.hands import HAND_SIZE

# The hand positions each standard discard throws, in the order of ``discards_of_five``: the stand,
# the five singles, the ten pairs, the ten triples (each size in ``combinations`` order).
POSITIONS: tuple[tuple[int, ...], ...] = tuple(
    p for size in range(4) for p in combinations(range(HAND_SIZE), size)
)
STANDARD = len(POSITIONS)  # 26
COUNT: tuple[int, ...] = tuple(len(p) for p in POSITIONS)
# KEEP[i](hand) is the tuple of the cards discard ``i`` keeps (two to four: never a bare card);
# None for the stand, which keeps the hand as it is.
KEEP: tuple = tuple(
    itemgetter(*[i for i in range(HAND_SIZE) if i not in p]) if p else None for p in POSITIONS
)
# ENTRY[seat][count] is the ``(seat, count)`` of a turn in the public discard counts (HL-9).
ENTRY: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple((seat, count) for count in range(HAND_SIZE + 1)) for seat in range(10)
)
# THROWN[i](hand) is the sorted tuple of the cards discard ``i`` throws (the one legal action
# ``i`` of a sorted hand), made without listing the other 25 (``HowLowState.apply_legal``).
THROWN: tuple = tuple(
    itemgetter(*p) if len(p) > 1 else (lambda hand, i=p[0]: (hand[i],)) if p else (lambda hand: ())
    for p in POSITIONS
)
