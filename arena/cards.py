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


class _Named(int):
    """What a suit and a card share: an int with one instance per value, made once (so ``is``
    works and copying is free), that prints as its name and pickles as a reference to its
    module-level singleton (``_C36``): unpickling is a look-up, not a call."""

    __slots__ = ()
    # Per subclass, set where its instances are made (see _singletons).
    _instances: tuple
    _ascii_names: tuple[str, ...]
    _symbols: tuple[str, ...]
    _pickle_prefix: str

    def __new__(cls, spec: int | str):
        if isinstance(spec, str):
            return cls._parse(spec)
        try:
            return cls._instances[spec]
        except (IndexError, TypeError):
            last = len(cls._instances) - 1
            kind = cls.__name__.lower()
            raise CardError(f"no {kind} with number {spec!r} (0-{last})") from None

    @property
    def ascii(self) -> str:
        return self._ascii_names[self]

    def __str__(self) -> str:
        return self._symbols[self]

    def __repr__(self) -> str:
        return f"{type(self).__name__}('{self._ascii_names[self]}')"

    def __reduce__(self):
        return f"{self._pickle_prefix}{int(self)}"

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


def _singletons(cls: type, ascii_names: tuple[str, ...], symbols: tuple[str, ...], prefix: str):
    """Make the instances of ``cls``, one per name, and the module globals pickles refer to."""
    made = tuple(int.__new__(cls, i) for i in range(len(ascii_names)))
    cls._instances, cls._ascii_names, cls._symbols, cls._pickle_prefix = (
        made, ascii_names, symbols, prefix
    )  # fmt: skip
    for value in made:
        globals()[f"{prefix}{int(value)}"] = value
    return made


class Suit(_Named):
    """One of the four suits, an int 0-3 (♣ ♠ ♥ ♦) that prints as its symbol."""

    __slots__ = ()

    @staticmethod
    def _parse(name: str) -> Suit:
        return parse_suit(name)


SUITS: tuple[Suit, ...] = _singletons(Suit, SUIT_LETTERS, SUIT_SYMBOLS, "_S")
CLUBS, SPADES, HEARTS, DIAMONDS = SUITS

RANK_SYMBOLS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
RANK_LETTERS = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A")
TWO, THREE, FOUR, FIVE, SIX, SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE = range(13)


class Card(_Named):
    """One card. ``Card('QH') is Card('Q♥') is Card(36)``; ``str`` gives ``Q♥``."""

    __slots__ = ()

    @staticmethod
    def _parse(name: str) -> Card:
        return parse_card(name)

    @property
    def suit(self) -> Suit:
        return SUIT_OF[self]

    @property
    def rank(self) -> Rank:
        return RANK_OF[self]


SUIT_OF: tuple[Suit, ...] = tuple(SUITS[i // 13] for i in range(52))
RANK_OF: tuple[int, ...] = tuple(i % 13 for i in range(52))
ASCII_NAMES: tuple[str, ...] = tuple(
    RANK_LETTERS[i % 13] + SUIT_LETTERS[i // 13] for i in range(52)
)
UNICODE_NAMES: tuple[str, ...] = tuple(
    RANK_SYMBOLS[i % 13] + SUIT_SYMBOLS[i // 13] for i in range(52)
)
CARDS: tuple[Card, ...] = _singletons(Card, ASCII_NAMES, UNICODE_NAMES, "_C")

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
