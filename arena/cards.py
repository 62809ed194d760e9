"""The card model both games share: compact int values with readable names.

A card is a small int (``suit * 13 + rank``), as python-chess makes a square an int: comparisons,
hashing and table look-ups run at int speed. ``Card`` is an ``int`` subclass whose 52 instances are
made once, so a card prints as ``Q♥`` and reads back from ``QH``, ``Q♥`` or ``10H`` without costing
anything in the engines' hot loops. Two packs are two copies of the same 52 values: in a
two-pack game equal cards are interchangeable, exactly as on a real table.
"""

from __future__ import annotations

from collections.abc import Iterable


class CardError(ValueError):
    """A string or number that names no card or suit."""


Rank = int  # 0 for the two ... 12 for the ace

SUIT_SYMBOLS = ("♣", "♠", "♥", "♦")
SUIT_LETTERS = ("C", "S", "H", "D")
SUIT_NAMES = ("clubs", "spades", "hearts", "diamonds")


class Suit(int):
    """One of the four suits, an int 0-3 (♣ ♠ ♥ ♦) that prints as its symbol."""

    __slots__ = ()

    def __new__(cls, spec: int | str) -> Suit:
        if isinstance(spec, str):
            return parse_suit(spec)
        try:
            return SUITS[spec]
        except (IndexError, TypeError):
            raise CardError(f"no suit with number {spec!r} (0-3)") from None

    @property
    def ascii(self) -> str:
        return SUIT_LETTERS[self]

    def __str__(self) -> str:
        return SUIT_SYMBOLS[self]

    def __repr__(self) -> str:
        return f"Suit('{SUIT_LETTERS[self]}')"

    def __reduce__(self):
        return f"_S{int(self)}"

    def __copy__(self) -> Suit:
        return self

    def __deepcopy__(self, memo) -> Suit:
        return self


SUITS: tuple[Suit, ...] = tuple(int.__new__(Suit, i) for i in range(4))
CLUBS, SPADES, HEARTS, DIAMONDS = SUITS
for _s in SUITS:
    globals()[f"_S{int(_s)}"] = _s

RANK_SYMBOLS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
RANK_LETTERS = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A")
TWO, THREE, FOUR, FIVE, SIX, SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE = range(13)


class Card(int):
    """One card. ``Card('QH') is Card('Q♥') is Card(36)``; ``str`` gives ``Q♥``."""

    __slots__ = ()

    def __new__(cls, spec: int | str) -> Card:
        if isinstance(spec, str):
            return parse_card(spec)
        try:
            return CARDS[spec]
        except (IndexError, TypeError):
            raise CardError(f"no card with number {spec!r} (0-51)") from None

    @property
    def suit(self) -> Suit:
        return SUIT_OF[self]

    @property
    def rank(self) -> Rank:
        return RANK_OF[self]

    @property
    def ascii(self) -> str:
        return ASCII_NAMES[self]

    def __str__(self) -> str:
        return UNICODE_NAMES[self]

    def __repr__(self) -> str:
        return f"Card('{ASCII_NAMES[self]}')"

    def __reduce__(self):
        # A reference to the module-level singleton (``_C36``): unpickling is a look-up, not a call.
        return f"_C{int(self)}"

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo) -> Card:
        return self


SUIT_OF: tuple[Suit, ...] = tuple(SUITS[i // 13] for i in range(52))
RANK_OF: tuple[int, ...] = tuple(i % 13 for i in range(52))
ASCII_NAMES: tuple[str, ...] = tuple(
    RANK_LETTERS[i % 13] + SUIT_LETTERS[i // 13] for i in range(52)
)
UNICODE_NAMES: tuple[str, ...] = tuple(
    RANK_SYMBOLS[i % 13] + SUIT_SYMBOLS[i // 13] for i in range(52)
)
CARDS: tuple[Card, ...] = tuple(int.__new__(Card, i) for i in range(52))
for _c in CARDS:
    globals()[f"_C{int(_c)}"] = _c  # what pickles refer to

_BY_NAME: dict[str, Card] = {}
for _c in CARDS:
    for _rank in {RANK_LETTERS[_c.rank], RANK_SYMBOLS[_c.rank]}:
        for _suit in (SUIT_LETTERS[_c.suit], SUIT_SYMBOLS[_c.suit]):
            _BY_NAME[_rank + _suit] = _c
_SUIT_BY_NAME: dict[str, Suit] = {}
for _s in SUITS:
    for _name in (SUIT_LETTERS[_s], SUIT_SYMBOLS[_s], SUIT_NAMES[_s]):
        _SUIT_BY_NAME[_name] = _s


def card(rank: Rank, suit: Suit) -> Card:
    return CARDS[suit * 13 + rank]


def parse_card(name: str) -> Card:
    """``'QH'``, ``'qh'``, ``'Q♥'``, ``'10H'`` or ``'TH'`` -> the card."""
    try:
        return _BY_NAME[name.strip().upper()]
    except (KeyError, AttributeError):
        raise CardError(f"not a card: {name!r} (write it like QH, TH, 10H or Q♥)") from None


def parse_cards(names: str | Iterable[str]) -> list[Card]:
    """``'QH 7S AD'`` or ``['QH', '7S']`` -> cards."""
    if isinstance(names, str):
        names = names.replace(",", " ").split()
    return [parse_card(n) for n in names]


def parse_suit(name: str) -> Suit:
    try:
        key = name.strip()
        return _SUIT_BY_NAME[key.upper() if len(key) == 1 else key.lower()]
    except (KeyError, AttributeError):
        raise CardError(f"not a suit: {name!r} (C, S, H, D or ♣ ♠ ♥ ♦)") from None


def suit_name(suit: Suit) -> str:
    return SUIT_SYMBOLS[suit]


def cards_str(cards: Iterable[int]) -> str:
    return " ".join(UNICODE_NAMES[c] for c in cards)


def full_pack() -> list[Card]:
    """The 52-card pack in a fixed order (clubs, spades, hearts, diamonds; 2 to ace)."""
    return list(CARDS)


def piquet_pack() -> list[Card]:
    """The 32-card pack, 7 to ace in each suit, in a fixed order."""
    return [c for c in CARDS if c.rank >= SEVEN]
