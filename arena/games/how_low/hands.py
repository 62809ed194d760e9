"""What a How Low Can You Go? hand is worth (HL-2) and the moves a hand allows, shared by the
rules and the view."""

from __future__ import annotations

from arena.cards import ACE, RANK_OF, SUIT_OF

REDRAW = "redraw"
"""The ``whalen`` variant's action: show the original hand, discard all five, draw five."""

HAND_SIZE = 5
ROUNDS = 3

# HL-2: K 13, Q 12, J 11, 10..2 face value, black aces 1, red aces -5 (rank 0 is the two).
VALUE: tuple[int, ...] = tuple(
    ((-5 if SUIT_OF[c] >= 2 else 1) if RANK_OF[c] == ACE else RANK_OF[c] + 2) for c in range(52)
)


def hand_total(cards) -> int:
    """HL-2: the sum of the card values."""
    return sum(VALUE[c] for c in cards)
